#include "traycontroller.h"

#include <QApplication>
#include <QClipboard>
#include <QDateTime>
#include <QEvent>
#include <QMenu>
#include <QSystemTrayIcon>
#include <QWidget>

#include "dashboardmodel.h"
#include "dashboardstyle.h"
#include "democontroller.h"
#include "desktopnotification.h"
#include "faultcontrol.h"
#include "fleetpanel.h"
#include "gettingstarted.h"
#include "livecontrol.h"
#include "proxyconfig.h"

using namespace Qt::StringLiterals;

namespace {
constexpr int kRefreshMs = 1000;
constexpr int kMessageMs = 8000;
constexpr qint64 kSpendNoticeGapMs = 60'000;   // one spend-limit notice a minute, not one per refusal
} // namespace

TrayController *TrayController::install(const Wiring &wiring, bool trayAvailable, QObject *parent)
{
    if (!trayAvailable)
        return nullptr;
    QApplication::setQuitOnLastWindowClosed(false);   // the tray keeps the app; Quit is in its menu
    return new TrayController(wiring, parent);
}

TrayController::TrayController(const Wiring &wiring, QObject *parent)
    : QObject(parent)
    , m_wiring(wiring)
{
    m_menu = new QMenu;
    m_menu->setAccessibleName(tr("Breakwater"));
    m_menu->setAccessibleDescription(tr("The dashboard, each upstream's breaker, admission, the base URLs, fault injection and quitting"));
    connect(m_menu->addAction(tr("Open dashboard")), &QAction::triggered, this, &TrayController::showWindow);
    // A line per upstream with its breaker's state (filled by refresh()), above this separator.
    m_breakersEnd = m_menu->addSeparator();
    if (m_wiring.proxy) {
        m_pauseAdmission = m_menu->addAction(tr("Pause admission"));
        m_pauseAdmission->setToolTip(tr("Refuse new calls with 503 `paused`; calls in flight go on"));
        connect(m_pauseAdmission, &QAction::triggered, this, [this] {
            livecontrol::setAdmissionPaused(m_wiring.proxy, !m_wiring.model->snapshot().admissionPaused);
        });
        m_menu->addSeparator();
    }
    connect(m_menu->addAction(tr("Copy OpenAI base URL")), &QAction::triggered, this,
            [this] { QApplication::clipboard()->setText(m_wiring.openaiBaseUrl); });
    connect(m_menu->addAction(tr("Copy Anthropic base URL")), &QAction::triggered, this,
            [this] { QApplication::clipboard()->setText(m_wiring.anthropicBaseUrl); });
    connect(m_menu->addAction(tr("Copy export lines")), &QAction::triggered, this,
            [this] { QApplication::clipboard()->setText(environmentLines()); });
    if (m_wiring.proxy) {
        m_menu->addSeparator();
        m_faultsMenu = m_menu->addMenu(tr("Fault injection"));
        faultcontrol::addPresetActions(m_faultsMenu, m_wiring.proxy);
    }
    if (m_wiring.demo) {
        m_menu->addSeparator();
        QMenu *demo = m_menu->addMenu(tr("Demo scenarios"));
        m_wiring.demo->populate(demo);
    }
    m_menu->addSeparator();
    QAction *quit = m_menu->addAction(tr("Quit Breakwater"));
    quit->setShortcuts(dashboardstyle::quitShortcuts());
    connect(quit, &QAction::triggered, qApp, &QCoreApplication::quit);

    m_icon = new QSystemTrayIcon(dashboardstyle::trayIcon(BreakerState::Closed), this);
    m_icon->setContextMenu(m_menu);
    connect(m_icon, &QSystemTrayIcon::activated, this, [this](QSystemTrayIcon::ActivationReason reason) {
        if (reason == QSystemTrayIcon::Trigger || reason == QSystemTrayIcon::DoubleClick)
            showWindow();
    });
    connect(m_wiring.model, &DashboardModel::breakerTransitioned, this, &TrayController::onTransition);
    connect(m_wiring.model, &DashboardModel::spendRefused, this, &TrayController::onSpendRefused);
    m_refresh.setInterval(kRefreshMs);
    connect(&m_refresh, &QTimer::timeout, this, &TrayController::refresh);
    m_refresh.start();
    if (m_wiring.window)
        m_wiring.window->installEventFilter(this);
    refresh();
    m_icon->show();
}

bool TrayController::eventFilter(QObject *watched, QEvent *event)
{
    // Closing the window only hides it (the tray keeps the app): say once where Breakwater still
    // runs, or a user who closed it believes the proxy stopped (issue 27).
    if (watched == m_wiring.window && event->type() == QEvent::Hide && !m_toldStillRunning
        && !m_wiring.window->isMinimized() && !QCoreApplication::closingDown()) {
        m_toldStillRunning = true;
        notify(tr("%1 is still running").arg(title()),
               tr("Apps pointed at %1 keep working. Open the dashboard or quit from this icon's menu.").arg(m_wiring.openaiBaseUrl));
    }
    return QObject::eventFilter(watched, event);
}

TrayController::~TrayController()
{
    delete m_menu;   // a context menu has no parent widget to delete it
}

QString TrayController::environmentLines() const
{
    // The SDKs refuse to start without a key: the demo's mock takes any (the README's block), real
    // providers need the user's own, which Breakwater passes through.
    using Sdk = GettingStarted::Sdk;
    const bool demo = m_wiring.demo != nullptr;
    QString lines = GettingStarted::exportLine(Sdk::OpenAI, m_wiring.openaiBaseUrl, demo) + u'\n'
        + GettingStarted::exportLine(Sdk::Anthropic, m_wiring.anthropicBaseUrl, demo) + u'\n';
    if (!demo) {
        lines += u"# export OPENAI_API_KEY=...     (your own keys: Breakwater passes them through)\n"
                 "# export ANTHROPIC_API_KEY=...\n"_s;
    }
    return lines;
}

QString TrayController::title() const
{
    return u"Breakwater :%1"_s.arg(QUrl(m_wiring.openaiBaseUrl).port());
}

QString TrayController::upstreamName(const QString &upstream) const
{
    const ProxyConfig defaults;
    QUrl url;
    QUrl provider;
    if (upstream == u"openai"_s) {
        url = m_wiring.openaiUpstream;
        provider = defaults.openaiUpstream;
    } else if (upstream == u"anthropic"_s) {
        url = m_wiring.anthropicUpstream;
        provider = defaults.anthropicUpstream;
    }
    if (url.isEmpty() || url.host().isEmpty() || url == provider)
        return upstream;
    const QString host = url.host().contains(u':') ? u'[' + url.host() + u']' : url.host();   // IPv6
    return u"%1:%2"_s.arg(host).arg(url.port(url.scheme() == u"https"_s ? 443 : 80));
}

QString TrayController::toolTip() const
{
    const DashboardModel &model = *m_wiring.model;
    const DashboardModel::Totals &totals = model.totals();
    QStringList breakers;
    for (const QString &upstream : model.upstreams())
        breakers << upstreamName(upstream) + u' ' + dashboardstyle::breakerLabel(model.breakerState(upstream));
    // The first line is the title: on D-Bus hosts Qt sends the whole text as the tooltip's title.
    const QString faults = faultcontrol::armedSummary(model.snapshot());
    using dashboardstyle::countOf;
    const QString paused = model.snapshot().admissionPaused ? tr("\nADMISSION PAUSED: new calls get 503") : QString();
    const QString away = m_wiring.remoteStatus ? m_wiring.remoteStatus() : QString();
    // With --shared-state, one line for the fleet: how many instances are alive, or degraded.
    const FleetView &fleet = model.snapshot().fleet;
    const QString fleetLine = fleet.enabled ? u'\n' + FleetPanel::trayLine(fleet) : QString();
    return tr("%1%2\n%3\n%4, %5, %6 joined, %7\n%8 refused, %9 failed\nin flight %10, queued %11\nbreakers: %12%13%14%15")
        .arg(title(), m_wiring.demo ? tr(" (demo)") : QString(),
             away.isEmpty() ? m_wiring.openaiBaseUrl : m_wiring.openaiBaseUrl + u'\n' + away,
             countOf(totals.requests, tr("request"), tr("requests")),
             countOf(totals.upstreamCalls(), tr("upstream call"), tr("upstream calls")))
        .arg(totals.count(DashboardModel::Category::Joined))
        .arg(countOf(totals.count(DashboardModel::Category::Hit), tr("cache hit"), tr("cache hits")))
        .arg(totals.count(DashboardModel::Category::Refused))
        .arg(totals.failures())
        .arg(model.inFlight())
        .arg(model.queued())
        .arg(breakers.isEmpty() ? u"–"_s : breakers.join(u", "_s), paused,
             faults.isEmpty() ? QString() : tr("\nFAULT INJECTION ARMED: ") + faults, fleetLine);
}

void TrayController::refresh()
{
    const QString text = toolTip();
    if (text != m_shownToolTip) {
        m_shownToolTip = text;
        ++m_toolTipUpdates;
        m_icon->setToolTip(text);
    }
    const BreakerState worst = m_wiring.model->worstBreakerState();
    const bool faults = !m_wiring.model->snapshot().faults.isEmpty();
    const bool paused = m_wiring.model->snapshot().admissionPaused;
    if (worst != m_shownState || faults != m_shownFaults || paused != m_shownPaused) {
        m_shownState = worst;
        m_shownFaults = faults;
        m_shownPaused = paused;
        m_icon->setIcon(dashboardstyle::trayIcon(worst, faults, paused));
    }
    if (m_pauseAdmission)
        m_pauseAdmission->setText(paused ? tr("Resume admission") : tr("Pause admission"));
    refreshBreakerLines();
}

void TrayController::refreshBreakerLines()
{
    const DashboardModel &model = *m_wiring.model;
    const QStringList upstreams = model.upstreams();
    while (m_breakerLines.size() > upstreams.size())
        delete m_breakerLines.takeLast();
    while (m_breakerLines.size() < upstreams.size()) {
        auto *line = new QAction(m_menu);
        line->setEnabled(false);   // a state to read, not a command
        m_menu->insertAction(m_breakersEnd, line);
        m_breakerLines.append(line);
    }
    for (qsizetype i = 0; i < upstreams.size(); ++i) {
        const QString text = tr("%1: breaker %2").arg(upstreamName(upstreams[i]),
                                                    dashboardstyle::breakerLabel(model.breakerState(upstreams[i])));
        if (m_breakerLines[i]->text() != text)
            m_breakerLines[i]->setText(text);
    }
}

void TrayController::onTransition(const BreakerTransition &transition)
{
    refresh();   // the icon's colour should not lag a second behind the notice, which shows it too
    const QString name = upstreamName(transition.upstream);
    if (transition.to == BreakerState::Open) {
        notify(tr("%1 breaker open").arg(name), tr("%1 stopped calling %2: %3").arg(title(), name, transition.reason.translated()));
    } else if (transition.to == BreakerState::Closed && transition.from != BreakerState::Closed) {
        notify(tr("%1 breaker closed").arg(name), tr("%1 calls %2 again: %3").arg(title(), name, transition.reason.translated()));
    }
}

void TrayController::onSpendRefused(const CallRecord &)
{
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    if (now - m_lastSpendNoticeMs < kSpendNoticeGapMs)
        return;
    m_lastSpendNoticeMs = now;
    notify(tr("Spend limit reached"), tr("%1 is refusing calls that would pass today's spend limit.").arg(title()));
}

void TrayController::notify(const QString &title, const QString &message)
{
    ++m_notifications;
    m_lastNotification = title + u'\n' + message;
    // With the state's icon, not a generic warning or information one, which a StatusNotifier host
    // would show in the tray for as long as the message lasts, hiding the colour (desktopnotification.h).
    m_lastNotificationIcon = dashboardstyle::trayIcon(m_shownState);
    if (!m_statusNotifierItem)
        m_statusNotifierItem = desktopnotification::trayIsStatusNotifierItem();
    if (m_statusNotifierItem)
        desktopnotification::send(title, message, m_lastNotificationIcon, kMessageMs);
    else
        m_icon->showMessage(title, message, m_lastNotificationIcon, kMessageMs);   // XEmbed: Qt's balloon
}

void TrayController::showWindow()
{
    // show() leaves a minimised window iconified: the state has to be cleared (keeping maximised).
    QWidget *window = m_wiring.window;
    window->setWindowState((window->windowState() & ~Qt::WindowMinimized) | Qt::WindowActive);
    window->show();
    window->raise();
    window->activateWindow();
}

QStringList TrayController::breakerLines() const
{
    QStringList lines;
    for (const QAction *line : m_breakerLines)
        lines << line->text();
    return lines;
}
