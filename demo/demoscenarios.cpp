#include "demoscenarios.h"

#include <algorithm>

#include <QCoreApplication>
#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLoggingCategory>

#include "accounting/callending.h"
#include "loopbackclient.h"
#include "mockprovider.h"

using namespace Qt::StringLiterals;
using namespace std::chrono_literals;

Q_LOGGING_CATEGORY(lcDemo, "breakwater.demo")

namespace {

const QString kChatPath = u"/v1/chat/completions"_s;

QByteArray chatJson(const QString &prompt)
{
    const QJsonObject body{
        {u"model"_s, u"gpt-4o-mini"_s},
        {u"messages"_s, QJsonArray{QJsonObject{{u"role"_s, u"user"_s}, {u"content"_s, prompt}}}}};
    return QJsonDocument(body).toJson(QJsonDocument::Compact);
}

const HeaderList kDemoHeaders{{"Authorization", "Bearer sk-breakwater-demo"}, {"Content-Type", "application/json"}};

// "48 miss" for the status line, one per x-breakwater-dedup value (servedName()); null for a word
// this build does not know, which is then shown as the wire says it.
const char *countedServed(const QByteArray &wire)
{
    static const std::pair<Served, const char *> counted[] = {
        {Served::Miss, QT_TRANSLATE_NOOP("DemoScenarios", "%1 miss")},
        {Served::Joined, QT_TRANSLATE_NOOP("DemoScenarios", "%1 joined")},
        {Served::Hit, QT_TRANSLATE_NOOP("DemoScenarios", "%1 hit")},
        {Served::Bypass, QT_TRANSLATE_NOOP("DemoScenarios", "%1 bypass")},
        {Served::Refused, QT_TRANSLATE_NOOP("DemoScenarios", "%1 refused")}};
    for (const auto &[served, text] : counted) {
        if (servedName(served) == wire)
            return text;
    }
    return nullptr;
}

} // namespace

QString DemoScenarios::Result::summary(bool translated) const
{
    // English for the log; translated for the dashboard's status line, where the
    // x-breakwater-dedup values are said in its language too (the log keeps the wire's words).
    const auto say = [translated](const char *text) {
        return translated ? QCoreApplication::translate("DemoScenarios", text) : QString::fromUtf8(text);
    };
    QStringList outcomes;
    for (auto it = dedup.begin(); it != dedup.end(); ++it) {
        const char *counted = translated ? countedServed(it.key()) : nullptr;
        outcomes << (counted ? say(counted).arg(it.value()) : u"%1 %2"_s.arg(it.value()).arg(QString::fromLatin1(it.key())));
    }
    QStringList codes;
    for (auto it = statuses.begin(); it != statuses.end(); ++it)
        codes << u"%1× %2"_s.arg(it.value()).arg(it.key());
    //: The demo's status line. Keep "; " between the parts: a narrow status bar drops middle parts there
    return say(QT_TRANSLATE_NOOP("DemoScenarios", "%1: %2 requests, %3 upstream calls; %4; status %5; %6 without an answer; slowest %7 ms%8"))
        .arg(translated ? title(scenario) : QString::fromLatin1(titleSource(scenario)))
        .arg(sent)
        .arg(upstreamCalls)
        .arg(outcomes.isEmpty() ? say(QT_TRANSLATE_NOOP("DemoScenarios", "no de-dup headers")) : outcomes.join(u", "_s),
             codes.isEmpty() ? say(QT_TRANSLATE_NOOP("DemoScenarios", "none")) : codes.join(u", "_s))
        .arg(failed)
        .arg(slowestMs)
        .arg((fellBack > 0 ? say(QT_TRANSLATE_NOOP("DemoScenarios", "; %1 answered by the fallback")).arg(fellBack) : QString())
             + (stopped ? say(QT_TRANSLATE_NOOP("DemoScenarios", " (stopped)")) : QString()));
}

DemoScenarios::DemoScenarios(quint16 proxyPort, MockProvider *mock, QObject *parent)
    : QObject(parent)
    , m_proxyPort(proxyPort)
    , m_mock(mock)
{
    connect(&m_steadyTimer, &QTimer::timeout, this, &DemoScenarios::sendSteadyPrompt);
    m_deadline.setSingleShot(true);
    connect(&m_deadline, &QTimer::timeout, this, [this] {
        qCWarning(lcDemo) << "scenario" << titleSource(m_scenario) << "ran past its deadline; stopping it";
        finish(true);
    });
    m_faultTimer.setSingleShot(true);
    connect(&m_faultTimer, &QTimer::timeout, this, &DemoScenarios::armInjectedHang);
}

DemoScenarios::~DemoScenarios()
{
    if (m_running)
        finish(true);   // puts the mock back as it was
}

const char *DemoScenarios::titleSource(Scenario scenario)
{
    switch (scenario) {
    case Scenario::Herd: return QT_TR_NOOP("Herd");
    case Scenario::Outage: return QT_TR_NOOP("Outage");
    case Scenario::Hang: return QT_TR_NOOP("Hang");
    case Scenario::Burst: return QT_TR_NOOP("Burst");
    case Scenario::InjectedHang: return QT_TR_NOOP("Injected hang");
    case Scenario::Fallback: return QT_TR_NOOP("Fallback");
    }
    return "";
}

QString DemoScenarios::title(Scenario scenario)
{
    return tr(titleSource(scenario));
}

QString DemoScenarios::description(Scenario scenario)
{
    switch (scenario) {
    case Scenario::Herd: return tr("identical requests at once against a 1.5 s provider: one upstream call");
    case Scenario::Outage: return tr("one new prompt every 2 s; the provider answers 503 from 15 s to 75 s");
    case Scenario::Hang: return tr("one new prompt every 2 s; the provider hangs from 15 s to 75 s");
    case Scenario::Burst: return tr("different prompts at once against a 1.5 s provider");
    case Scenario::InjectedHang:
        return tr("one new prompt every 2 s; Breakwater injects a hang (hang:for=60s) from 15 s to 75 s");
    case Scenario::Fallback:
        return tr("one new prompt every 2 s; the provider answers 529 overloaded from 15 s to 75 s, and a second one stands in");
    }
    return {};
}

std::chrono::milliseconds DemoScenarios::scaled(std::chrono::milliseconds duration) const
{
    return std::chrono::milliseconds(std::max<qint64>(1, qint64(double(duration.count()) * m_options.timeScale)));
}

bool DemoScenarios::start(Scenario scenario, quint16 port)
{
    if (m_running)
        return false;
    m_running = true;
    m_scenario = scenario;
    m_targetPort = port ? port : m_proxyPort;
    m_result = Result();
    m_result.scenario = scenario;
    m_callsAtStart = m_mock->callCount(kChatPath);
    m_startedAtMs = QDateTime::currentMSecsSinceEpoch();
    m_steadySent = 0;
    m_steadyTotal = 0;
    ++m_run;
    Q_EMIT started(scenario);
    const QString stamp = QDateTime::currentDateTime().toString(u"HH:mm:ss"_s);

    std::chrono::milliseconds expected{0};
    switch (scenario) {
    case Scenario::Herd:
    case Scenario::Burst: {
        m_mock->setMode(MockProvider::Mode::Ok);
        m_mock->setLatency(scaled(m_options.slowLatency));
        const int count = scenario == Scenario::Herd ? m_options.herdSize : m_options.burstSize;
        for (int i = 0; i < count; ++i) {
            // The herd asks one question 200 times; the burst asks 20 different ones.
            send(scenario == Scenario::Herd
                     ? u"Herd %1 (%2): what does a breakwater do?"_s.arg(m_run).arg(stamp)
                     : u"Burst %1 (%2), prompt %3: name a sea creature."_s.arg(m_run).arg(stamp).arg(i + 1));
        }
        expected = scaled(m_options.slowLatency);
        break;
    }
    case Scenario::Outage:
    case Scenario::Hang:
    case Scenario::InjectedHang:
    case Scenario::Fallback: {
        m_mock->setLatency(scaled(m_options.steadyLatency));
        if (scenario == Scenario::InjectedHang) {
            m_mock->setMode(MockProvider::Mode::Ok);   // the provider stays healthy: Breakwater hangs
            m_faultId = 0;
            m_faultTimer.start(scaled(m_options.healthyBefore));
        } else {
            const auto fault = scenario == Scenario::Outage    ? MockProvider::Mode::Error503
                             : scenario == Scenario::Fallback ? MockProvider::Mode::Overloaded529
                                                              : MockProvider::Mode::Hang;
            m_mock->setSchedule({{scaled(m_options.healthyBefore), MockProvider::Mode::Ok},
                                 {scaled(m_options.faultLength), fault},
                                 {1ms, MockProvider::Mode::Ok}});
        }
        m_steadyTotal = int(m_options.steadyDuration / m_options.steadyInterval);
        m_steadyTimer.start(scaled(m_options.steadyInterval));
        sendSteadyPrompt();
        expected = scaled(m_options.steadyDuration);
        break;
    }
    }
    m_deadline.start(expected + m_options.clientTimeout + 5s);
    reportProgress();
    return true;
}

void DemoScenarios::stop()
{
    if (m_running)
        finish(true);
}

void DemoScenarios::send(const QString &prompt)
{
    // Each call reads its answer to the end (Content-Length or the last chunk: the server keeps
    // connections open, so the end must be found, not waited for), then hangs up.
    auto *call = new LoopbackClient(m_targetPort, "POST", kChatPath.toLatin1(), kDemoHeaders, chatJson(prompt), this);
    connect(call, &LoopbackClient::finished, this, [this, call] { onCallDone(call); });
    call->setTimeout(m_options.clientTimeout);
    m_calls.append(call);
    ++m_result.sent;
    call->start();
}

void DemoScenarios::armInjectedHang()
{
    // For the fault's length, in milliseconds (a scaled test run arms it for a few seconds).
    const QJsonObject rule{{u"rule"_s, u"hang:for=%1ms"_s.arg(scaled(m_options.faultLength).count())}};
    sendControl("POST", "/breakwater/faults", QJsonDocument(rule).toJson(QJsonDocument::Compact),
                [this](const LoopbackResponse &response) {
        if (response.status != 201) {
            qCWarning(lcDemo) << "could not arm the injected hang:" << response.status << response.body;
            return;
        }
        if (m_running)
            m_faultId = QJsonDocument::fromJson(response.body).object().value(u"id"_s).toInt();
    });
}

void DemoScenarios::sendControl(const QByteArray &method, const QByteArray &path, const QByteArray &body,
                                std::function<void(const LoopbackResponse &)> done)
{
    // Not one of the scenario's calls: it is neither counted nor hung up by finish().
    HeaderList headers{{"Authorization", "Bearer " + m_controlToken}};
    if (!body.isEmpty())
        headers.append(qMakePair(QByteArray("Content-Type"), QByteArray("application/json")));
    auto *call = new LoopbackClient(m_targetPort, method, path, headers, body, this);
    connect(call, &LoopbackClient::finished, this, [call, done = std::move(done)] {
        if (done)
            done(call->response());
        call->deleteLater();
    });
    call->setTimeout(m_options.clientTimeout);
    call->start();
}

void DemoScenarios::sendSteadyPrompt()
{
    if (m_steadySent >= m_steadyTotal) {
        m_steadyTimer.stop();
        finishIfDone();
        return;
    }
    ++m_steadySent;
    send(u"%1 %2, prompt %3: one fact about tides."_s.arg(QString::fromLatin1(titleSource(m_scenario))).arg(m_run).arg(m_steadySent));
    reportProgress();
}

void DemoScenarios::onCallDone(LoopbackClient *call)
{
    m_calls.removeOne(call);
    const LoopbackResponse &response = call->response();
    if (response.complete) {
        ++m_result.answered;
        ++m_result.statuses[response.status];
        if (const QByteArray dedup = response.header("x-breakwater-dedup"); !dedup.isEmpty())
            ++m_result.dedup[dedup];
        m_result.fellBack += !response.header("x-breakwater-fallback").isEmpty();
    } else {
        ++m_result.failed;
    }
    m_result.slowestMs = std::max(m_result.slowestMs, response.elapsedNs / 1'000'000);
    call->deleteLater();   // we are inside its socket's signal
    if (m_running) {
        reportProgress();
        finishIfDone();
    }
}

void DemoScenarios::reportProgress()
{
    const int done = m_result.answered + m_result.failed;
    QString text = tr("%1: %2 of %3 answered").arg(title(m_scenario)).arg(done).arg(
        m_steadyTotal > 0 ? m_steadyTotal : m_result.sent);
    if (m_steadyTotal > 0)
        text += tr(", %1 s in").arg((QDateTime::currentMSecsSinceEpoch() - m_startedAtMs) / 1000);
    Q_EMIT progress(text);
}

void DemoScenarios::finishIfDone()
{
    const bool allSent = m_steadyTotal == 0 || m_steadySent >= m_steadyTotal;
    if (m_running && allSent && m_calls.isEmpty())
        finish(false);
}

void DemoScenarios::finish(bool stopped)
{
    m_running = false;   // first: aborting calls below reports them as failed, not as progress
    m_steadyTimer.stop();
    m_deadline.stop();
    m_faultTimer.stop();
    // A rule this scenario armed goes with it when stopped early; otherwise its for= ends it.
    if (stopped && m_faultId > 0)
        sendControl("DELETE", "/breakwater/faults/" + QByteArray::number(m_faultId), {});
    m_faultId = 0;
    const QList<LoopbackClient *> open = m_calls;
    for (LoopbackClient *call : open)
        call->hangUp();
    m_calls.clear();
    m_mock->setMode(MockProvider::Mode::Ok);
    m_mock->setLatency(m_options.restoreLatency);
    m_result.stopped = stopped;
    m_result.upstreamCalls = m_mock->callCount(kChatPath) - m_callsAtStart;
    m_result.elapsedMs = QDateTime::currentMSecsSinceEpoch() - m_startedAtMs;
    qCInfo(lcDemo).noquote() << m_result.summary();
    Q_EMIT progress(m_result.summary(true));
    Q_EMIT finished(m_result);
}
