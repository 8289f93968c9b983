// breakwater-bench: the figures of the issues, measured on this machine against a real proxy and the
// mock provider (in-process, loopback). Usage: breakwater-bench SCENARIO [--scale X]
//   report      the field test's four scenarios (herd, outage, hang, burst) direct, through
//               Breakwater and through a peer proxy (--peer URL), written up in --out DIR
//               (benchreport.h): the table, the dashboard's charts, a CSV per scenario and target
//   herd        200 identical concurrent requests, provider latency 1.5 s
//   hits        cache-hit throughput and latency over 32 keep-alive connections
//   overhead    the latency the proxy adds at 1 keep-alive client, provider latency 0: p50/p99 of
//               5000 round trips (after 200 warm-up) straight to the mock, through the proxy as
//               misses (every body different), and through the proxy as cache hits
//   throughput  requests/s and p50/p99 at 50 keep-alive connections, provider latency 0: all
//               misses (every body different), then all hits (each 1 s warm-up, then 5 s)
//   key         the cost of keying a request (parse + canonical form + SHA-256)
//   fleet-herd  the herd over three Breakwaters (in this process) at one mock: 200 identical requests
//               spread over them, provider latency 1.5 s; with --shared-state they are one fleet
//   burst       20 different prompts at once, provider latency 1.5 s (--concurrency N)
//   outage      one prompt every 2 s for 150 s, provider 503 from 15 s to 75 s, SDK-like retrying client
//   hang        the same, provider hanging from 15 s to 75 s, --timeout 5
//   soak        30 min of mixed traffic and provider faults; RSS, descriptors and flights every 10 s
//   engine      issue 23's upstream-engine targets, side by side with direct and the older engines
//               (enginebench.h: --engines, --portkey PATH, --storm-seconds S)
// --shared-state URL runs herd, hits, overhead and the report's Breakwater with a fleet Redis (a
// redis-server you start, e.g. redis-server --port 6390 --save '' --appendonly no).
// --scale X multiplies the durations (0.1 for a quick look; figures are for 1): the steady traffic,
// the outage, the timeout and the cool-down of the field test's scenarios, the load scenarios'
// running time; not the herd's and the burst's request counts nor the provider's 1.5 s.
// The herd, burst, outage and hang are the same code as the report's (fieldtest.h).

#include "benchloads.h"
#include "benchreport.h"
#include "dashboardstyle.h"
#include "enginebench.h"
#include "fieldtest.h"
#include "loopbackclient.h"
#include "proxyharness.h"
#include "proxyserver.h"
#include "servicethread.h"
#include "sdklikeclient.h"
#include "soak.h"
#include "sharing/requestkey.h"

#include <QApplication>
#include <QCoreApplication>
#include <QDir>
#include <QDateTime>
#include <QElapsedTimer>
#include <QJsonDocument>
#include <QLoggingCategory>
#include <QMap>
#include <QSemaphore>
#include <QThread>
#include <QTimer>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <unistd.h>

using namespace Qt::StringLiterals;
using namespace std::chrono_literals;

namespace {

double g_scale = 1.0;
int g_concurrency = defaults::kConcurrency;
double g_timeoutSeconds = 5.0;
std::optional<RedisTarget> g_sharedState;   // --shared-state: the herd, hits and overhead through a fleet Redis

// The proxy's options the bench passes on (--shared-state).
void applyBenchOptions(ProxyConfig &config)
{
    config.sharedState = g_sharedState;
}

// Waits (bounded) until the proxy's link to the fleet's Redis is up, so the figures are shared ones.
bool waitForSharedState(const ProxyHarness &harness)
{
    if (!g_sharedState)
        return true;
    QElapsedTimer timer;
    timer.start();
    while (timer.elapsed() < 5'000) {
        if (fetch(harness.port(), "GET", "/healthz").body.contains("\"shared_state\":\"shared\""))
            return true;
        QThread::msleep(20);
    }
    std::fprintf(stderr, "breakwater-bench: --shared-state: the proxy did not reach Redis within 5 s\n");
    return false;
}

std::chrono::milliseconds scaled(double seconds)
{
    return std::chrono::milliseconds(qint64(seconds * 1000 * g_scale));
}

int hits()
{
    ProxyHarness harness(applyBenchOptions);
    if (!waitForSharedState(harness))
        return 1;
    const QByteArray body = chatBody(u"a cached prompt"_s);
    if (harness.post("/v1/chat/completions", body).status != 200)
        return 1;
    const QByteArray request = chatRequest(harness.port(), body);
    const int connections = 32;
    const Load load = loadFor(harness.port(), connections, [&](int) { return sameRequest(request); },
                              0ms, scaled(5));
    const auto &trips = load.tripsNs;
    std::printf("hits: %d keep-alive connections, %.1f s, one cached answer\n", connections, load.seconds);
    std::printf("  requests           %lld (%d not 200)\n", qint64(trips.size()), load.failures);
    std::printf("  throughput         %.0f requests/s\n", trips.size() / load.seconds);
    std::printf("  latency p50 / p99  %.3f / %.3f ms\n", load.p50Ms(), load.p99Ms());
    std::printf("  upstream calls     %d\n", harness.mock()->callCount());
    return 0;
}

// The latency the proxy adds to one client's request, with a provider that answers at once.
int overhead()
{
    ProxyHarness harness(applyBenchOptions);
    if (!waitForSharedState(harness))
        return 1;
    harness.mock()->setLatency(0ms);
    harness.mock()->setChunkInterval(0ms);
    const int count = qMax(1, int(5000 * g_scale));
    const int warmUp = qMax(1, int(200 * g_scale));
    const QByteArray cachedBody = chatBody(u"a cached prompt"_s);
    if (harness.post("/v1/chat/completions", cachedBody).status != 200)
        return 1;
    const QByteArray cachedRequest = chatRequest(harness.port(), cachedBody);

    const quint16 mockPort = harness.mock()->port();
    const Load direct = sequentialLoad(mockPort, distinctRequests(mockPort, 0), warmUp, count);
    harness.mock()->resetCounters();
    const Load misses = sequentialLoad(harness.port(), distinctRequests(harness.port(), 1), warmUp, count);
    const int missCalls = harness.mock()->callCount();
    harness.mock()->resetCounters();
    const Load cached = sequentialLoad(harness.port(), sameRequest(cachedRequest), warmUp, count);
    const int cachedCalls = harness.mock()->callCount();

    std::printf("overhead: 1 keep-alive connection, mock provider latency 0, %d requests each after %d warm-up\n",
                count, warmUp);
    auto line = [](const char *name, const Load &load) {
        std::printf("  %-22s p50 / p99  %.3f / %.3f ms   (%lld answers + warm-up, %d failed%s; %.1f s)\n",
                    name, load.p50Ms(), load.p99Ms(), qint64(load.tripsNs.size()), load.failures,
                    load.timedOut ? ", TIMED OUT" : "", load.seconds);
    };
    line("direct to the mock", direct);
    line("proxy, misses", misses);
    line("proxy, cache hits", cached);
    std::printf("  added by the proxy     misses %+.3f / %+.3f ms, hits %+.3f / %+.3f ms (p50 / p99)\n",
                misses.p50Ms() - direct.p50Ms(), misses.p99Ms() - direct.p99Ms(),
                cached.p50Ms() - direct.p50Ms(), cached.p99Ms() - direct.p99Ms());
    std::printf("  x-breakwater-dedup     misses: %s; hits: %s (warm-up included)\n", misses.dedupText().constData(),
                cached.dedupText().constData());
    std::printf("  upstream calls         misses %d, hits %d (warm-up included)\n", missCalls, cachedCalls);
    return 0;
}

// Waits until the proxy has no upstream call left: clients that were stopped leave their last
// request behind, and the proxy still makes that call (it belongs to the flight, not the caller).
void settle(const ProxyHarness &harness)
{
    QElapsedTimer timer;
    timer.start();
    while (harness.onProxyThread<int>([](ProxyServer *proxy) { return proxy->flightsInProgress(); }) > 0
           && timer.elapsed() < 10'000)
        QThread::msleep(20);
}

void raiseTo(std::atomic<int> &peak, int value)
{
    int seen = peak.load();
    while (value > seen && !peak.compare_exchange_weak(seen, value)) { }
}

// Requests per second through the proxy at 50 connections: every request a miss, then every one a hit.
int throughput()
{
    // The pool's peaks, from the proxy's own live figures (every 250 ms, on the proxy thread), to
    // show whether --concurrency or --max-queue held the misses back. Declared before the harness,
    // so they outlive the proxy thread.
    std::atomic<int> mostRunning = 0, mostQueued = 0;
    ProxyHarness harness;
    harness.mock()->setLatency(0ms);
    harness.mock()->setChunkInterval(0ms);
    const QByteArray cachedBody = chatBody(u"a cached prompt"_s);
    if (harness.post("/v1/chat/completions", cachedBody).status != 200)
        return 1;
    const QByteArray cachedRequest = chatRequest(harness.port(), cachedBody);
    const int connections = 50;
    const auto warmUp = scaled(1);
    const auto duration = scaled(5);

    const auto peaks = QObject::connect(harness.proxy(), &ProxyServer::snapshotReady, harness.proxy(),
        [&mostRunning, &mostQueued](const ProxySnapshot &snapshot) {
            for (const UpstreamSnapshot &upstream : snapshot.upstreams) {
                if (upstream.name == "openai") {
                    raiseTo(mostRunning, upstream.running);
                    raiseTo(mostQueued, upstream.queued);
                }
            }
        }, Qt::DirectConnection);
    const Load misses = loadFor(harness.port(), connections, [&](int i) { return distinctRequests(harness.port(), i); },
                                 warmUp, duration);
    QObject::disconnect(peaks);
    settle(harness);
    harness.mock()->resetCounters();
    const Load cached = loadFor(harness.port(), connections, [&](int) { return sameRequest(cachedRequest); },
                                warmUp, duration);
    const int cachedCalls = harness.mock()->callCount();

    std::printf("throughput: %d keep-alive connections, mock provider latency 0, %.1f s warm-up then %.1f s each\n",
                connections, warmUp.count() / 1000.0, duration.count() / 1000.0);
    std::printf("  proxy --concurrency %d, --max-queue %d (defaults)\n", harness.config().concurrency,
                harness.config().maxQueued);
    auto block = [](const char *name, const Load &load) {
        std::printf("  %s\n", name);
        std::printf("    requests           %lld in %.1f s (%d failed: not 200 or connection lost)\n",
                    qint64(load.tripsNs.size()), load.seconds, load.failures);
        std::printf("    throughput         %.0f requests/s\n", load.tripsNs.size() / load.seconds);
        std::printf("    latency p50 / p99  %.3f / %.3f ms\n", load.p50Ms(), load.p99Ms());
        std::printf("    x-breakwater-dedup %s\n", load.dedupText().constData());
    };
    block("misses (every body different)", misses);
    std::printf("    upstream pool      at most %d running, %d queued (250 ms samples)\n", mostRunning.load(),
                mostQueued.load());
    block("hits (one cached answer)", cached);
    std::printf("    upstream calls     %d\n", cachedCalls);
    return 0;
}

int key()
{
    QString history;
    for (int i = 0; i < 20; ++i)
        history += u"turn %1: some words of an ordinary conversation with an assistant. "_s.arg(i);
    const QByteArray body = chatBody(history);
    const int rounds = 100000;
    QElapsedTimer clock;
    clock.start();
    QByteArray sink;
    for (int i = 0; i < rounds; ++i) {
        const QJsonObject object = QJsonDocument::fromJson(body).object();
        sink = requestKey({"/v1/chat/completions", {}, "https://api.openai.com/v1", {{"authorization", "Bearer sk-test"}},
                           {}, object});
    }
    const double us = clock.nsecsElapsed() / 1000.0 / rounds;
    std::printf("key: %d requests of %lld bytes: %.2f us per request (parse + canonical form + SHA-256)\n",
                rounds, qint64(body.size()), us);
    return sink.isEmpty();
}

fieldtest::Settings fieldSettings()
{
    fieldtest::Settings settings;
    settings.scale = g_scale;
    settings.concurrency = g_concurrency;
    settings.timeoutSeconds = g_timeoutSeconds;
    settings.sharedState = g_sharedState;
    settings.nonce = QDateTime::currentDateTime().toString(u"yyyyMMdd-HHmmss.zzz"_s);
    return settings;
}

const fieldtest::Target kBreakwater{fieldtest::Target::Kind::Breakwater, {}};
const fieldtest::Target kDirect{fieldtest::Target::Kind::Direct, {}};

int herd()
{
    const fieldtest::TargetRun run = fieldtest::run(fieldtest::Scenario::Herd, {kBreakwater}, fieldSettings()).first();
    const fieldtest::Figures f = run.figures();
    qint64 fastest = -1, slowest = 0;
    int miss = 0, joined = 0;
    for (const fieldtest::AppCall &call : run.calls) {
        const qint64 at = call.finishedAtMs() - run.startedAtMs;
        fastest = fastest < 0 ? at : std::min(fastest, at);
        slowest = std::max(slowest, at);
        miss += call.attempts.last().dedup == "miss";
        joined += call.attempts.last().dedup == "joined";
    }
    std::printf("herd: 200 identical requests, provider latency 1500 ms\n");
    std::printf("  first / last answer %lld / %lld ms after the herd was sent\n", fastest, slowest);
    std::printf("  upstream calls     %d\n  answers 200        %d\n  miss / joined      %d / %d\n",
                f.upstreamCalls, f.answered, miss, joined);
    std::printf("  slowest response   %lld ms (upstream latency + %lld ms)\n", f.slowestMs, f.slowestMs - 1500);
    qint64 lastIn = 0;
    for (const CallRecord &r : run.proxyRecords) {
        lastIn = std::max(lastIn, r.receivedAtMs - run.startedAtMs);
        if (r.outcome == Outcome::Miss)
            std::printf("  the shared call    arrived +%lld ms, upstream start +%lld, first byte +%lld, answered +%lld\n",
                        r.receivedAtMs - run.startedAtMs, r.upstreamStartAtMs - run.startedAtMs,
                        r.firstByteAtMs - run.startedAtMs, r.endAtMs - run.startedAtMs);
    }
    std::printf("  last request in    +%lld ms\n", lastIn);
    return 0;
}

// The herd of issue 21: N identical requests over three instances. Without --shared-state each
// instance makes its own call (3); with it the fleet makes one, and the others join it through Redis.
int fleetHerd()
{
    constexpr int kInstances = 3;
    const int requests = 200;
    ServiceThread<MockProvider> mock(u"mock"_s, [] { return new MockProvider; });
    mock.service()->setLatency(1500ms);
    std::vector<std::unique_ptr<ServiceThread<ProxyServer>>> proxies;
    QList<quint16> ports;
    SystemClock clock;
    for (int i = 0; i < kInstances; ++i) {
        ProxyConfig config;
        config.listenPort = 0;
        config.openaiUpstream = mock.service()->openaiBaseUrl();
        config.anthropicUpstream = mock.service()->anthropicBaseUrl();
        config.controlToken = kTestControlToken;
        applyBenchOptions(config);
        proxies.push_back(std::make_unique<ServiceThread<ProxyServer>>(u"proxy"_s, [config, &clock] {
            auto *server = new ProxyServer(config, clock);
            if (const Result listening = server->listen(); !listening.ok())
                qFatal("proxy cannot listen: %s", qPrintable(listening.error()));
            return server;
        }));
        ports.append(proxies.back()->service()->port());
    }
    for (const quint16 port : std::as_const(ports)) {
        QElapsedTimer waited;
        waited.start();
        while (g_sharedState && waited.elapsed() < 5'000
               && !fetch(port, "GET", "/healthz").body.contains("\"shared_state\":\"shared\""))
            QThread::msleep(50);
    }
    const QByteArray body = chatBody(u"the fleet's herd"_s);
    QList<LoopbackClient *> calls;
    QElapsedTimer timer;
    timer.start();
    for (int i = 0; i < requests; ++i) {
        auto *call = new LoopbackClient(ports[i % kInstances], "POST", "/v1/chat/completions",
                                        {{"Authorization", "Bearer sk-bench"}, {"Content-Type", "application/json"}}, body);
        call->setTimeout(30s);
        calls.append(call);
        call->start();
    }
    qint64 lastMs = 0;
    int done = 0;
    for (LoopbackClient *call : std::as_const(calls)) {
        QObject::connect(call, &LoopbackClient::finished, call, [&] { ++done; lastMs = timer.elapsed(); });
    }
    while (done < requests && timer.elapsed() < 40'000)
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 50);
    QMap<QByteArray, int> dedup;
    int ok = 0;
    for (const LoopbackClient *call : std::as_const(calls)) {
        ok += call->response().status == 200;
        ++dedup[call->response().header("x-breakwater-dedup")];
    }
    qDeleteAll(calls);
    std::printf("fleet-herd: %d identical requests over %d instances%s, provider latency 1500 ms\n", requests,
                kInstances, g_sharedState ? " sharing one Redis" : " (no --shared-state)");
    std::printf("  upstream calls     %d\n  answers 200        %d\n  miss / joined      %d / %d\n",
                mock.service()->callCount(), ok, dedup.value("miss"), dedup.value("joined"));
    std::printf("  last answer        %lld ms after the herd was sent (upstream latency + %lld ms)\n", lastMs,
                lastMs - 1500);
    proxies.clear();   // first: they call the mock
    return 0;
}

int burst()
{
    const fieldtest::TargetRun run = fieldtest::run(fieldtest::Scenario::Burst, {kBreakwater}, fieldSettings()).first();
    QList<qint64> doneAt;
    for (const fieldtest::AppCall &call : run.calls)
        doneAt.append(call.finishedAtMs() - run.startedAtMs);
    std::sort(doneAt.begin(), doneAt.end());
    std::printf("burst: 20 different prompts, provider latency 1500 ms, --concurrency %d\n  finished at (ms):", g_concurrency);
    for (qint64 at : doneAt)
        std::printf(" %lld", at);
    std::printf("\n  all done in        %lld ms, upstream calls %d, most at once %d\n", doneAt.isEmpty() ? 0 : doneAt.last(),
                run.upstreamCalls, run.mostAtOnce);
    return 0;
}

int outage()
{
    const QList<fieldtest::TargetRun> runs = fieldtest::run(fieldtest::Scenario::Outage, {kDirect, kBreakwater}, fieldSettings());
    std::printf("outage: one prompt every %.1f s for %.0f s, provider 503 from %.0f s to %.0f s\n",
                2 * g_scale, 150 * g_scale, 15 * g_scale, 75 * g_scale);
    std::printf("  direct:  %d calls reached the dead provider\n", runs[0].figures().upstreamCallsInFault);
    const fieldtest::TargetRun &proxy = runs[1];
    // A caller refused by the open breaker: its one answer a 503 that Breakwater made.
    QList<qint64> refusedWaits;
    for (const fieldtest::AppCall &call : proxy.calls) {
        const SdkLikeClient::Attempt &last = call.attempts.last();
        if (call.status == 503 && last.breaker != "closed")
            refusedWaits.append(call.waitedMs);
    }
    const fieldtest::Figures f = proxy.figures();
    std::printf("  proxy:   %d calls reached the dead provider (+ health probes: GET /v1/models)\n", f.upstreamCallsInFault);
    std::printf("           callers refused by the open breaker: %lld, wait p50 %.0f ms, p95 %.0f ms\n",
                qint64(refusedWaits.size()), percentile(refusedWaits, 0.5), percentile(refusedWaits, 0.95));
    std::printf("           first answer after the provider recovered: +%lld ms\n", f.recoverMs);
    std::printf("           breaker transitions:");
    for (const BreakerTransition &t : proxy.transitions)
        std::printf(" [%s->%s: %s]", breakerStateName(t.from).constData(), breakerStateName(t.to).constData(),
                    qPrintable(t.reason.english()));
    std::printf("\n");
    return 0;
}

int hang()
{
    const fieldtest::TargetRun run = fieldtest::run(fieldtest::Scenario::Hang, {kBreakwater}, fieldSettings()).first();
    const fieldtest::Figures f = run.figures();
    QList<qint64> waitsWhileOpen;
    for (const fieldtest::AppCall &call : run.calls) {
        if (call.attempts.last().breaker == "open")
            waitsWhileOpen.append(call.waitedMs);
    }
    std::printf("hang: one prompt every %.1f s for %.0f s, provider hangs from %.0f s to %.0f s, --timeout %.2f\n",
                2 * g_scale, 150 * g_scale, 15 * g_scale, 75 * g_scale, g_timeoutSeconds * g_scale);
    std::printf("  breaker opened     %.1f s after the hang began\n", double(f.breakerOpenedMs) / 1000.0);
    std::printf("  slowest wait       %lld ms\n", f.slowestMs);
    std::printf("  median wait while open %.1f ms (%lld callers)\n", percentile(waitsWhileOpen, 0.5),
                qint64(waitsWhileOpen.size()));
    std::printf("  calls that reached the hung provider: %d in all\n", f.upstreamCalls);
    return 0;
}

// The progress line on stderr: the scenario, the share of the whole report done, the time left.
// Rewritten in place on a terminal; elsewhere (a CI log) a line every tenth of the way.
class Progress
{
public:
    explicit Progress(double expectedSeconds) : m_expected(expectedSeconds), m_terminal(::isatty(2)) { m_clock.start(); }

    void show(const QString &scenario, int index, int count, double doneSeconds)
    {
        const double share = std::clamp(doneSeconds / m_expected, 0.0, 1.0);
        const double elapsed = double(m_clock.elapsed()) / 1000.0;
        const double left = share > 0.02 ? elapsed / share - elapsed : m_expected - elapsed;
        const QString line = u"report: %1 (%2 of %3), %4 % done, about %5 left"_s.arg(scenario).arg(index).arg(count)
                                 .arg(int(share * 100)).arg(dashboardstyle::formatDuration(qint64(std::max(left, 0.0) * 1000)));
        if (m_terminal) {
            std::fprintf(stderr, "\r%-78s", qPrintable(line));
        } else if (int(share * 10) > m_lastTenth) {
            m_lastTenth = int(share * 10);
            std::fprintf(stderr, "%s\n", qPrintable(line));
        }
        std::fflush(stderr);
    }
    void end()
    {
        if (m_terminal)
            std::fprintf(stderr, "\n");
    }

private:
    double m_expected;
    bool m_terminal;
    QElapsedTimer m_clock;
    int m_lastTenth = -1;
};

struct ReportOptions
{
    QString out = u"breakwater-report"_s;
    QUrl peer;
    quint16 peerMockPort = 18089;
};

// The peer must be pointed at the mock provider this run starts for it; one call says whether it is.
Result checkPeer(const ReportOptions &options, MockProvider *mock)
{
    const QByteArray path = options.peer.path().toUtf8() + "/chat/completions";
    mock->resetCounters();
    const LoopbackResponse answer = fetch(quint16(options.peer.port()), "POST", path, kOpenAiAuth,
                                          chatBody(u"is the peer pointed at the mock? %1"_s.arg(QDateTime::currentMSecsSinceEpoch())));
    if (answer.status != 200 || mock->callCount(u"/v1/chat/completions"_s) != 1)
        return Failure{u"the peer at %1 answered %2 and did not call the mock provider at %3: start it with its "
                       "OpenAI upstream there (or give --peer-mock-port the port it calls)"_s
                           .arg(options.peer.toString()).arg(answer.status).arg(mock->openaiBaseUrl().toString())};
    return {};
}

int report(const ReportOptions &options, const QString &command)
{
    fieldtest::Settings settings = fieldSettings();
    QList<fieldtest::Target> targets{kDirect, kBreakwater};
    std::unique_ptr<ServiceThread<MockProvider>> peerMock;
    if (!options.peer.isEmpty()) {
        peerMock = std::make_unique<ServiceThread<MockProvider>>(
            u"peer-mock"_s, [port = options.peerMockPort] { return new MockProvider(port); });
        if (!peerMock->service()->isListening()) {
            std::fprintf(stderr, "breakwater-bench: cannot listen on 127.0.0.1:%u for the peer's provider\n", options.peerMockPort);
            return 1;
        }
        if (const Result checked = checkPeer(options, peerMock->service()); !checked.ok()) {
            std::fprintf(stderr, "breakwater-bench: %s\n", qPrintable(checked.error()));
            return 1;
        }
        settings.peerMock = peerMock->service();
        targets.append({fieldtest::Target::Kind::Peer, options.peer});
    }
    benchreport::Report report;
    report.settings = settings;
    report.targets = targets;
    report.machine = benchreport::Machine::here();
    report.startedAt = QDateTime::currentDateTime();
    report.command = command;
    QElapsedTimer clock;
    clock.start();
    double expected = 0;
    for (const fieldtest::Scenario scenario : fieldtest::scenarios())
        expected += fieldtest::expectedSeconds(scenario, int(targets.size()), settings);
    Progress progress(expected);
    double before = 0;
    const QList<fieldtest::Scenario> &all = fieldtest::scenarios();
    for (qsizetype i = 0; i < all.size(); ++i) {
        const double span = fieldtest::expectedSeconds(all[i], int(targets.size()), settings);
        const QString scenarioName = fieldtest::name(all[i]);
        report.runs.insert(all[i], fieldtest::run(all[i], targets, settings, [&](double share) {
            progress.show(scenarioName, int(i + 1), int(all.size()), before + share * span);
        }));
        before += span;
    }
    progress.end();
    report.seconds = double(clock.elapsed()) / 1000.0;
    report.machine.loadAfter = benchreport::Machine::here().loadBefore;
    if (const Result written = benchreport::write(report, options.out); !written.ok()) {
        std::fprintf(stderr, "breakwater-bench: %s\n", qPrintable(written.error()));
        return 1;
    }
    std::printf("breakwater-bench: report in %s (report.md, report.html, charts and CSV files), %.0f s\n",
                qPrintable(QDir(options.out).absolutePath()), report.seconds);
    return 0;
}
} // namespace

int main(int argc, char *argv[])
{
    QStringList args;
    for (int i = 1; i < argc; ++i)
        args.append(QString::fromLocal8Bit(argv[i]));
    const QString scenario = args.value(0);
    ReportOptions reportOptions;
    bool valid = true;
    for (qsizetype i = 1; i < args.size(); i += 2) {
        const QString value = args.value(i + 1);
        bool ok = i + 1 < args.size();
        if (args[i] == u"--scale"_s) {
            g_scale = value.toDouble(&ok);
        } else if (args[i] == u"--concurrency"_s) {
            g_concurrency = value.toInt(&ok);
        } else if (args[i] == u"--timeout"_s) {
            g_timeoutSeconds = value.toDouble(&ok);
        } else if (args[i] == u"--shared-state"_s) {
            Expected<RedisTarget> target = parseRedisTarget(value);
            ok = ok && target.ok();
            if (ok)
                g_sharedState = std::move(target).value();
            else
                std::fprintf(stderr, "breakwater-bench: %s\n", qPrintable(target.error()));
        } else if (args[i] == u"--out"_s) {
            reportOptions.out = value;
        } else if (args[i] == u"--peer"_s) {
            reportOptions.peer = QUrl(value);
            ok = ok && reportOptions.peer.scheme() == u"http"_s && reportOptions.peer.port() > 0
                 && (reportOptions.peer.host() == u"127.0.0.1"_s || reportOptions.peer.host() == u"localhost"_s);
            if (!ok)
                std::fprintf(stderr, "breakwater-bench: --peer takes the peer's base URL on loopback, e.g. http://127.0.0.1:9000/v1\n");
        } else if (args[i] == u"--peer-mock-port"_s) {
            reportOptions.peerMockPort = quint16(value.toUInt(&ok));
            ok = ok && reportOptions.peerMockPort > 0;
        } else {
            ok = false;
        }
        valid = valid && ok;
    }
    const QMap<QString, std::function<int()>> scenarios{
        {u"herd"_s, herd}, {u"fleet-herd"_s, fleetHerd}, {u"hits"_s, hits}, {u"overhead"_s, overhead}, {u"throughput"_s, throughput},
        {u"key"_s, key}, {u"burst"_s, burst}, {u"outage"_s, outage}, {u"hang"_s, hang},
        {u"soak"_s, [] { return soak(std::chrono::milliseconds(qint64(1800'000 * g_scale))); }},
        {u"engine"_s, engineBench}, {u"proxy-only"_s, proxyOnly}, {u"mock-only"_s, mockOnly}};
    if (scenario == u"engine"_s || scenario == u"proxy-only"_s || scenario == u"mock-only"_s) {   // they read their own options
        QCoreApplication app(argc, argv);
        return scenarios[scenario]();
    }
    if ((!scenarios.contains(scenario) && scenario != u"report"_s) || !valid || g_scale <= 0 || g_concurrency <= 0
        || g_timeoutSeconds <= 0) {
        std::fprintf(stderr, "usage: breakwater-bench report [--out DIR] [--scale X] [--peer URL] [--peer-mock-port N]\n"
                             "       breakwater-bench herd|fleet-herd|hits|overhead|throughput|key|burst|outage|hang|soak|engine [--scale X] "
                             "[--concurrency N] [--timeout S] [--shared-state redis://HOST:PORT]\n");
        return 2;
    }
    if (scenario == u"report"_s) {
        // The charts are the dashboard's widgets, drawn offscreen: the report never shows a window.
        qputenv("QT_QPA_PLATFORM", "offscreen");
        QApplication app(argc, argv);
        // The progress line is the report's only output while it runs: the proxies' own notes
        // (breaker transitions, ...) are in the report (QT_LOGGING_RULES still shows them).
        QLoggingCategory::setFilterRules(u"breakwater.*.info=false"_s);
        return report(reportOptions, u"breakwater-bench "_s + args.join(u' '));
    }
    QCoreApplication app(argc, argv);
    return scenarios[scenario]();
}
