#include "democontroller.h"

#include <QAction>
#include <QLoggingCategory>
#include <QMenu>

#include "accounting/calllog.h"
#include "dashboardmodel.h"
#include "mockprovider.h"
#include "proxyserver.h"
#include "servicethread.h"

using namespace Qt::StringLiterals;

Q_LOGGING_CATEGORY(lcDemoUi, "breakwater.ui.demo")

namespace {
constexpr int kSideConcurrencies[] = {1, 4};
}

DemoController::DemoController(DashboardModel *model, quint16 proxyPort, MockProvider *mock,
                               const ProxyConfig &config, QObject *parent)
    : QObject(parent)
    , m_model(model)
    , m_proxyPort(proxyPort)
    , m_config(config)
{
    m_scenarios = new DemoScenarios(proxyPort, mock, this);
    m_scenarios->setControlToken(config.controlToken);
    const auto addScenario = [this](DemoScenarios::Scenario scenario, const QString &text) {
        auto *action = new QAction(text, this);
        action->setToolTip(DemoScenarios::description(scenario));
        connect(action, &QAction::triggered, this, [this, scenario] { m_scenarios->start(scenario); });
        m_actions.append(action);
    };
    const DemoScenarios::Options &options = m_scenarios->options();
    addScenario(DemoScenarios::Scenario::Herd, tr("Herd: %1 identical requests at once").arg(options.herdSize));
    addScenario(DemoScenarios::Scenario::Outage, tr("Outage: 503s from 15 s to 75 s in steady traffic"));
    addScenario(DemoScenarios::Scenario::Hang, {});
    m_hang = m_actions.last();
    // Breakwater's own fault injection instead of the mock: with --timeout 5 the breaker opens.
    addScenario(DemoScenarios::Scenario::InjectedHang, {});
    m_injectedHang = m_actions.last();
    showTimeout(config.upstreamTimeout);
    auto *fallback = new QAction(tr("Fallback: 529 overloaded from 15 s to 75 s, a second provider stands in"), this);
    fallback->setToolTip(DemoScenarios::description(DemoScenarios::Scenario::Fallback));
    connect(fallback, &QAction::triggered, this, [this] { startFallback(); });
    m_actions.append(fallback);

    // Burst choices: the running proxy's own concurrency, then one and four at a time.
    auto *ownBurst = new QAction(tr("Burst of %1 prompts, %2 at a time (this proxy)")
                                     .arg(options.burstSize).arg(config.concurrency), this);
    connect(ownBurst, &QAction::triggered, this, [this] { startBurst(m_config.concurrency); });
    m_burstActions.append(ownBurst);
    for (const int concurrency : kSideConcurrencies) {
        if (concurrency == config.concurrency)
            continue;
        auto *action = new QAction(tr("Burst of %1 prompts, %2 at a time (second proxy, concurrency %2)")
                                       .arg(options.burstSize).arg(concurrency), this);
        connect(action, &QAction::triggered, this, [this, concurrency] { startBurst(concurrency); });
        m_burstActions.append(action);
    }
    m_actions += m_burstActions;

    m_stop = new QAction(tr("Stop scenario"), this);
    m_stop->setEnabled(false);
    connect(m_stop, &QAction::triggered, m_scenarios, &DemoScenarios::stop);

    connect(m_scenarios, &DemoScenarios::started, this, &DemoController::onRunningChanged);
    connect(m_scenarios, &DemoScenarios::finished, this, &DemoController::onRunningChanged);
    connect(m_scenarios, &DemoScenarios::progress, this, [this](const QString &text) {
        m_status = text;
        Q_EMIT statusChanged(text);
    });
}

DemoController::~DemoController()
{
    delete m_scenarios;     // stops a running scenario while the side proxies still exist
    m_scenarios = nullptr;
    m_sideProxies.clear();  // each joins its thread
    m_fallbackProxy.reset();
    m_backupMock.reset();
}

void DemoController::showTimeout(std::chrono::milliseconds timeout)
{
    const double seconds = double(timeout.count()) / 1000.0;
    m_hang->setText(tr("Hang: provider hangs from 15 s to 75 s (proxy timeout %1 s)").arg(seconds));
    m_injectedHang->setText(tr("Injected hang: hang:for=60s from 15 s (proxy timeout %1 s; --timeout 5 opens the breaker)").arg(seconds));
}

void DemoController::populate(QMenu *menu)
{
    // The timeout the proxy runs with when the menu opens: Settings may have changed it live
    // (the menu said "proxy timeout 5 s" after it was set to 3 s).
    connect(menu, &QMenu::aboutToShow, this, [this] {
        if (!m_model->snapshot().upstreams.isEmpty())
            showTimeout(m_model->snapshot().settings.timeout);
    });
    for (QAction *action : m_actions) {
        if (action == m_burstActions.first())
            menu->addSeparator();
        menu->addAction(action);
    }
    menu->addSeparator();
    menu->addAction(m_stop);
}

bool DemoController::startBurst(int concurrency)
{
    const quint16 port = concurrency == m_config.concurrency ? m_proxyPort : ensureSideProxy(concurrency);
    if (port == 0)
        return false;
    return m_scenarios->start(DemoScenarios::Scenario::Burst, port);
}

quint16 DemoController::sideProxyPort(int concurrency) const
{
    const auto it = m_sideProxies.find(concurrency);
    return it == m_sideProxies.end() || !it->second->service() ? 0 : it->second->service()->port();
}

bool DemoController::startFallback()
{
    const quint16 port = ensureFallbackProxy();
    return port != 0 && m_scenarios->start(DemoScenarios::Scenario::Fallback, port);
}

quint16 DemoController::fallbackProxyPort() const
{
    return m_fallbackProxy && m_fallbackProxy->service() ? m_fallbackProxy->service()->port() : 0;
}

quint16 DemoController::ensureFallbackProxy()
{
    if (const quint16 port = fallbackProxyPort())
        return port;
    m_backupMock = std::make_unique<ServiceThread<MockProvider>>(u"mock-backup"_s, [] {
        auto *provider = new MockProvider;
        provider->setLatency(std::chrono::milliseconds(600));   // a little slower: the stand-in
        return provider;
    });
    ProxyConfig config = m_config;
    config.listenPort = 0;
    // Every model to the mock, which names the backup as its fallback; the backup's own pattern
    // matches no model, so nothing goes to it but what falls back.
    config.upstreamRoutes = {
        {QString::fromLatin1(DemoScenarios::kFallbackPrimary), ApiStyle::OpenAI, m_config.openaiUpstream, {u"*"_s},
         QString::fromLatin1(DemoScenarios::kFallbackBackup), {}},
        {QString::fromLatin1(DemoScenarios::kFallbackBackup), ApiStyle::OpenAI, m_backupMock->service()->openaiBaseUrl(),
         {u"backup-only/*"_s}, {}, {}},
    };
    m_fallbackProxy = startSideProxy(u"proxy-fallback"_s, config, u"fallback"_s);
    return fallbackProxyPort();
}

quint16 DemoController::ensureSideProxy(int concurrency)
{
    if (const quint16 port = sideProxyPort(concurrency))
        return port;
    ProxyConfig config = m_config;
    config.listenPort = 0;
    config.concurrency = concurrency;
    std::unique_ptr<ServiceThread<ProxyServer>> side = startSideProxy(u"proxy-c%1"_s.arg(concurrency), config,
                                                                      u"concurrency %1"_s.arg(concurrency));
    if (!side)
        return 0;
    const quint16 port = side->service()->port();
    m_sideProxies.emplace(concurrency, std::move(side));
    qCInfo(lcDemoUi) << "second proxy with concurrency" << concurrency << "on port" << port;
    return port;
}

std::unique_ptr<ServiceThread<ProxyServer>> DemoController::startSideProxy(const QString &name, const ProxyConfig &config,
                                                                           const QString &source)
{
    auto side = std::make_unique<ServiceThread<ProxyServer>>(name, [this, config] {
        auto *server = new ProxyServer(config, m_clock);
        if (const Result listening = server->listen(); !listening.ok()) {
            qCWarning(lcDemoUi) << "cannot start the second proxy:" << listening.error();
            delete server;
            return static_cast<ProxyServer *>(nullptr);
        }
        return server;
    });
    ProxyServer *server = side->service();
    if (!server)
        return nullptr;
    // Its calls, but not its breaker: that would be mistaken for the main proxy's.
    connect(server, &ProxyServer::callStarted, m_model, &DashboardModel::addStarted, Qt::QueuedConnection);
    connect(server, &ProxyServer::callCompleted, m_model, &DashboardModel::addRecord, Qt::QueuedConnection);
    // ... and its pools' gauges: the burst one at a time waits in its queue, which "queued" must show.
    connect(server, &ProxyServer::snapshotReady, m_model,
            [model = m_model, source](const ProxySnapshot &snapshot) {
                model->setSideSnapshot(source, snapshot);
            }, Qt::QueuedConnection);
    if (CallLog *log = m_callLog) {
        // Direct, as for the main proxy: append() only queues the record (any thread).
        connect(server, &ProxyServer::callCompleted, server, [log](const CallRecord &record) { log->append(record); },
                Qt::DirectConnection);
    }
    return side;
}

void DemoController::onRunningChanged()
{
    const bool running = m_scenarios->isRunning();
    for (QAction *action : m_actions)
        action->setEnabled(!running);
    m_stop->setEnabled(running);
}
