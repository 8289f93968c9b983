#pragma once

#include <chrono>
#include <functional>

#include <QList>
#include <QMap>
#include <QObject>
#include <QTimer>

class LoopbackClient;
struct LoopbackResponse;
class MockProvider;

// The field test's scenarios, replayed against a running Breakwater and its in-process mock
// provider (`breakwater --demo`): a herd of identical requests, a 503 outage in steady traffic, a
// hang in steady traffic, and a burst of different prompts. InjectedHang is the hang made by
// Breakwater's own fault injection instead of the mock: at the same time it arms `hang:for=...`
// through the control API (POST /breakwater/faults, as `breakwater fault add` does), so the
// dashboard shows the rule armed while the breaker opens on the timeouts. Clients are LoopbackClient calls, one
// connection each (QNetworkAccessManager would allow only 6 per host), bounded in number and in
// time: every scenario ends by itself, and stop() ends it at once.
//
// Lives on the thread that creates it (the GUI thread in the app) and needs its event loop. The
// mock lives on its own thread; its setters are thread-safe. One scenario runs at a time, and the
// mock's mode and latency are put back when it ends.
class DemoScenarios final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(DemoScenarios)
public:
    // Fallback: the Outage's traffic to a proxy whose upstream for the demo's model names a
    // fallback (kFallbackPrimary, kFallbackBackup), the mock answering 529 overloaded meanwhile.
    enum class Scenario { Herd, Outage, Hang, Burst, InjectedHang, Fallback };
    Q_ENUM(Scenario)

    // The field test's figures. `timeScale` multiplies every duration except the client timeout,
    // so tests can run an outage in seconds (0.05: one prompt every 100 ms, 503s for 3 s).
    struct Options
    {
        int herdSize = 200;
        int burstSize = 20;
        std::chrono::milliseconds slowLatency{1500};       // herd and burst: a 1.5 s provider
        std::chrono::milliseconds steadyLatency{400};      // outage and hang traffic
        std::chrono::milliseconds restoreLatency{400};     // the mock's latency after a scenario
        std::chrono::milliseconds steadyInterval{2000};    // one new prompt every 2 s ...
        std::chrono::milliseconds steadyDuration{150'000}; // ... for 150 s
        std::chrono::milliseconds healthyBefore{15'000};   // then 503 (or hang) from 15 s ...
        std::chrono::milliseconds faultLength{60'000};     // ... to 75 s, then healthy again
        std::chrono::milliseconds clientTimeout{120'000};  // a demo client hangs up after this
        double timeScale = 1.0;
    };

    struct Result
    {
        Scenario scenario = Scenario::Herd;
        int sent = 0;
        int answered = 0;             // complete HTTP responses
        int failed = 0;               // no complete response (refused connection, timeout, stop)
        QMap<QByteArray, int> dedup;  // x-breakwater-dedup values seen: miss, joined, hit, ...
        QMap<int, int> statuses;
        int upstreamCalls = 0;        // chat calls that reached the mock during the scenario
        int fellBack = 0;             // answers marked x-breakwater-fallback (another upstream answered)
        qint64 elapsedMs = 0;
        qint64 slowestMs = 0;
        bool stopped = false;
        QString summary(bool translated = false) const;   // English unless `translated` (the log's)
    };

    DemoScenarios(quint16 proxyPort, MockProvider *mock, QObject *parent = nullptr);
    ~DemoScenarios() override;

    void setOptions(const Options &options) { m_options = options; }
    const Options &options() const { return m_options; }
    // The proxy's control token (ProxyConfig::controlToken), for the Injected hang's rule, which is
    // armed through /breakwater/faults like any client's.
    void setControlToken(const QByteArray &token) { m_controlToken = token; }

    // Starts a scenario; false if one is already running. `port` sends it to another proxy (0 =
    // the one given at construction), e.g. a second one with a different concurrency.
    bool start(Scenario scenario, quint16 port = 0);
    void stop();
    bool isRunning() const { return m_running; }

    // The Fallback scenario's upstreams, as the proxy it runs against names them (the mock, and
    // the second mock that stands in for it).
    static constexpr char kFallbackPrimary[] = "primary";
    static constexpr char kFallbackBackup[] = "backup";

    static QString title(Scenario scenario);   // translated; the prompts and the log use titleSource
    static const char *titleSource(Scenario scenario);
    static QString description(Scenario scenario);

Q_SIGNALS:
    void started(DemoScenarios::Scenario scenario);
    void progress(const QString &text);
    void finished(const DemoScenarios::Result &result);

private:
    std::chrono::milliseconds scaled(std::chrono::milliseconds duration) const;
    void send(const QString &prompt);
    void onCallDone(LoopbackClient *call);
    void sendSteadyPrompt();
    void reportProgress();
    void finishIfDone();
    void finish(bool stopped);
    void armInjectedHang();
    void sendControl(const QByteArray &method, const QByteArray &path, const QByteArray &body,
                     std::function<void(const LoopbackResponse &)> done = {});

    quint16 m_proxyPort;
    quint16 m_targetPort = 0;
    MockProvider *m_mock;   // owned by its ServiceThread, which outlives this object
    Options m_options;
    QByteArray m_controlToken;
    bool m_running = false;
    Scenario m_scenario = Scenario::Herd;
    Result m_result;
    int m_callsAtStart = 0;
    int m_run = 0;             // makes every run's prompts new, so the answer cache never hides them
    int m_steadySent = 0;
    int m_steadyTotal = 0;
    QList<LoopbackClient *> m_calls;   // open calls (children of this)
    QTimer m_steadyTimer;      // outage and hang: the next prompt
    QTimer m_deadline;         // the scenario's hard end
    QTimer m_faultTimer;       // injected hang: when the rule is armed
    int m_faultId = 0;         // the rule it armed (0: none), disarmed if the scenario is stopped
    qint64 m_startedAtMs = 0;
};
