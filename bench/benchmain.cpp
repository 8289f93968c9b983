// breakwater-bench: the figures of issues 3 and 4, measured on this machine against a real proxy and
// the mock provider (in-process, loopback). Usage: breakwater-bench SCENARIO [--scale X]
//   herd        200 identical concurrent requests, provider latency 1.5 s
//   hits        cache-hit throughput and latency over 32 keep-alive connections
//   overhead    the latency the proxy adds at 1 keep-alive client, provider latency 0: p50/p99 of
//               5000 round trips (after 200 warm-up) straight to the mock, through the proxy as
//               misses (every body different), and through the proxy as cache hits
//   throughput  requests/s and p50/p99 at 50 keep-alive connections, provider latency 0: all
//               misses (every body different), then all hits (each 1 s warm-up, then 5 s)
//   key         the cost of keying a request (parse + canonical form + SHA-256)
//   burst       20 different prompts at once, provider latency 1.5 s (--concurrency N)
//   outage      one prompt every 2 s for 150 s, provider 503 from 15 s to 75 s, SDK-like retrying client
//   hang        the same, provider hanging from 15 s to 75 s, --timeout 5
//   soak        30 min of mixed traffic and provider faults; RSS, descriptors and flights every 10 s
//   engine      issue 23's upstream-engine targets, side by side with direct and the older engines
//               (enginebench.h: --engines, --portkey PATH, --storm-seconds S)
// --scale X multiplies every scenario duration and request count (0.1 for a quick look; figures are for 1).

#include "benchloads.h"
#include "enginebench.h"
#include "loopbackclient.h"
#include "proxyharness.h"
#include "sdklikeclient.h"
#include "soak.h"
#include "sharing/requestkey.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QElapsedTimer>
#include <QJsonDocument>
#include <QMap>
#include <QSemaphore>
#include <QThread>
#include <QTimer>

#include <algorithm>
#include <atomic>
#include <cstdio>

using namespace Qt::StringLiterals;
using namespace std::chrono_literals;

namespace {

double g_scale = 1.0;
int g_concurrency = defaults::kConcurrency;
double g_timeoutSeconds = 5.0;

std::chrono::milliseconds scaled(double seconds)
{
    return std::chrono::milliseconds(qint64(seconds * 1000 * g_scale));
}

void waitUntil(const std::function<bool()> &done, std::chrono::milliseconds limit)
{
    QElapsedTimer timer;
    timer.start();
    while (!done() && timer.elapsed() < limit.count())
        QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
}

int herd()
{
    ProxyHarness harness;
    // Steady state, as a proxy that has been running: the pool thread and its network manager exist
    // and hold a connection to the provider (the first call on a new thread pays tens of ms for them).
    if (harness.post("/v1/chat/completions", chatBody(u"warm-up"_s)).status != 200)
        return 1;
    harness.mock()->resetCounters();
    harness.mock()->setLatency(1500ms);
    QElapsedTimer clock;
    clock.start();
    const qint64 sentAtMs = QDateTime::currentMSecsSinceEpoch();
    QList<LoopbackClient *> calls;
    QList<qint64> doneAt(200, 0);
    for (int i = 0; i < 200; ++i) {
        LoopbackClient *call = harness.start("/v1/chat/completions", chatBody(u"the same prompt"_s));
        QObject::connect(call, &LoopbackClient::finished, call, [&doneAt, &clock, i] { doneAt[i] = clock.elapsed(); });
        calls.append(call);
    }
    waitUntil([&] { return allFinished(calls); }, 30s);
    int miss = 0, joined = 0, ok = 0;
    for (LoopbackClient *call : calls) {
        ok += call->response().status == 200;
        miss += call->response().header("x-breakwater-dedup") == "miss";
        joined += call->response().header("x-breakwater-dedup") == "joined";
    }
    const qint64 slowest = *std::max_element(doneAt.begin(), doneAt.end());
    const qint64 fastest = *std::min_element(doneAt.begin(), doneAt.end());
    std::printf("herd: 200 identical requests, provider latency 1500 ms\n");
    std::printf("  first / last answer %lld / %lld ms after the herd was sent\n", fastest, slowest);
    std::printf("  upstream calls     %d\n  answers 200        %d\n  miss / joined      %d / %d\n",
                harness.mock()->callCount(), ok, miss, joined);
    std::printf("  slowest response   %lld ms (upstream latency + %lld ms)\n", slowest, slowest - 1500);
    waitUntil([&] { return harness.records.size() >= 201; }, 5s);
    for (const CallRecord &r : harness.records) {
        if (r.outcome == Outcome::Miss && r.receivedAtMs >= sentAtMs) {
            std::printf("  the shared call    arrived +%lld ms, upstream start +%lld, first byte +%lld, answered +%lld\n",
                        r.receivedAtMs - sentAtMs, r.upstreamStartAtMs - sentAtMs, r.firstByteAtMs - sentAtMs,
                        r.endAtMs - sentAtMs);
        }
    }
    const auto last = std::max_element(harness.records.begin(), harness.records.end(),
        [](const CallRecord &a, const CallRecord &b) { return a.receivedAtMs < b.receivedAtMs; });
    std::printf("  last request in    +%lld ms\n", last->receivedAtMs - sentAtMs);
    return 0;
}

int hits()
{
    ProxyHarness harness;
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
    ProxyHarness harness;
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

int burst()
{
    ProxyHarness harness([](ProxyConfig &c) { c.concurrency = g_concurrency; });
    harness.mock()->setLatency(1500ms);
    QElapsedTimer clock;
    clock.start();
    QList<LoopbackClient *> calls;
    QList<qint64> doneAt(20, 0);
    for (int i = 0; i < 20; ++i) {
        LoopbackClient *call = harness.start("/v1/chat/completions", chatBody(u"different prompt %1"_s.arg(i)));
        QObject::connect(call, &LoopbackClient::finished, call, [&doneAt, &clock, i] { doneAt[i] = clock.elapsed(); });
        calls.append(call);
    }
    waitUntil([&] { return allFinished(calls); }, 60s);
    std::sort(doneAt.begin(), doneAt.end());
    std::printf("burst: 20 different prompts, provider latency 1500 ms, --concurrency %d\n  finished at (ms):", g_concurrency);
    for (qint64 at : doneAt)
        std::printf(" %lld", at);
    std::printf("\n  all done in        %lld ms, upstream calls %d, most at once %d\n", doneAt.last(),
                harness.mock()->callCount(), harness.mock()->maxInFlight());
    return 0;
}

struct Replay
{
    QList<SdkLikeClient *> clients;
    QList<qint64> startedAt;
    QList<qint64> finishedAt;
};

// One new prompt every 2 s for 150 s, each through an SDK-like retrying client.
Replay replay(quint16 port, const QByteArray &path, std::chrono::milliseconds attemptTimeout, QObject *owner,
              const std::function<void(qint64)> &onTick)
{
    Replay run;
    QElapsedTimer clock;
    clock.start();
    const qint64 total = scaled(150).count();
    const qint64 every = scaled(2).count();
    qint64 next = 0;
    while (clock.elapsed() < total) {
        if (clock.elapsed() >= next) {
            const int i = int(run.clients.size());
            auto *client = new SdkLikeClient(port, path, kOpenAiAuth, chatBody(u"prompt number %1"_s.arg(i)),
                                             attemptTimeout, owner);
            run.startedAt.append(clock.elapsed());
            run.finishedAt.append(0);
            QObject::connect(client, &SdkLikeClient::finished, owner, [&run, &clock, i] {
                run.finishedAt[i] = clock.elapsed();
            });
            run.clients.append(client);
            client->start();
            next += every;
        }
        onTick(clock.elapsed());
        QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
    }
    waitUntil([&] { return std::all_of(run.clients.begin(), run.clients.end(),
                                       [](SdkLikeClient *c) { return c->isFinished(); }); }, scaled(30));
    return run;
}

int outage()
{
    const QList<MockProvider::Phase> schedule{{scaled(15), MockProvider::Mode::Ok},
                                              {scaled(60), MockProvider::Mode::Error503},
                                              {scaled(1), MockProvider::Mode::Ok}};
    const double outageStart = scaled(15).count(), outageEnd = scaled(75).count();
    auto deadCalls = [&](MockProvider *mock, const std::function<Replay(std::function<void(qint64)>)> &run) {
        int atStart = -1, atEnd = -1;
        Replay replayed = run([&](qint64 now) {
            if (atStart < 0 && now >= outageStart)
                atStart = mock->callCount(u"/v1/chat/completions"_s);
            if (atEnd < 0 && now >= outageEnd)
                atEnd = mock->callCount(u"/v1/chat/completions"_s);
        });
        return std::make_pair(atEnd - atStart, replayed);
    };

    std::printf("outage: one prompt every %.1f s for %.0f s, provider 503 from %.0f s to %.0f s\n",
                2 * g_scale, 150 * g_scale, 15 * g_scale, 75 * g_scale);
    QObject owner;
    {
        ProxyHarness direct;   // only its mock is used: the SDK-like client talks to the provider directly
        direct.mock()->setSchedule(schedule);
        const auto [calls, run] = deadCalls(direct.mock(), [&](auto tick) {
            return replay(direct.mock()->port(), "/v1/chat/completions", 600s, &owner, tick);
        });
        std::printf("  direct:  %d calls reached the dead provider\n", calls);
    }
    ProxyHarness harness([](ProxyConfig &c) {
        c.breakerCooldown = scaled(60);
        c.breakerProbeInterval = std::max<std::chrono::milliseconds>(100ms, scaled(1));
    });
    harness.mock()->setSchedule(schedule);
    const auto [calls, run] = deadCalls(harness.mock(), [&](auto tick) {
        return replay(harness.port(), "/v1/chat/completions", 600s, &owner, tick);
    });
    QList<qint64> refusedWaits;
    qint64 firstBack = -1;
    for (qsizetype i = 0; i < run.clients.size(); ++i) {
        const LoopbackResponse &response = run.clients[i]->response();
        if (response.header("x-breakwater-dedup").isEmpty() && response.status == 503)
            refusedWaits.append(run.clients[i]->waitedMs());
        else if (response.header("x-breakwater-breaker") != "closed" && response.status == 503)
            refusedWaits.append(run.clients[i]->waitedMs());
        if (response.status == 200 && run.finishedAt[i] > outageEnd && firstBack < 0)
            firstBack = run.finishedAt[i] - qint64(outageEnd);
    }
    std::printf("  proxy:   %d calls reached the dead provider (+ health probes: GET /v1/models)\n", calls);
    std::printf("           callers refused by the open breaker: %lld, wait p50 %.0f ms, p95 %.0f ms\n",
                qint64(refusedWaits.size()), percentile(refusedWaits, 0.5), percentile(refusedWaits, 0.95));
    std::printf("           first answer after the provider recovered: +%lld ms\n", firstBack);
    std::printf("           breaker transitions:");
    for (const BreakerTransition &t : harness.transitions)
        std::printf(" [%s->%s: %s]", breakerStateName(t.from).constData(), breakerStateName(t.to).constData(),
                    qPrintable(t.reason));
    std::printf("\n");
    return 0;
}

int hang()
{
    const QList<MockProvider::Phase> schedule{{scaled(15), MockProvider::Mode::Ok},
                                              {scaled(60), MockProvider::Mode::Hang},
                                              {scaled(1), MockProvider::Mode::Ok}};
    const auto timeout = std::chrono::milliseconds(qint64(g_timeoutSeconds * 1000));
    ProxyHarness harness([timeout](ProxyConfig &c) {
        c.upstreamTimeout = timeout;
        c.breakerCooldown = scaled(60);
        c.breakerProbeInterval = std::max<std::chrono::milliseconds>(100ms, scaled(1));
    });
    harness.mock()->setSchedule(schedule);
    const qint64 hangStart = scaled(15).count(), hangEnd = scaled(75).count();
    QElapsedTimer clock;
    clock.start();
    qint64 openedAt = -1;
    QObject owner;
    QObject::connect(harness.proxy(), &ProxyServer::breakerChanged, &owner, [&](const BreakerTransition &t) {
        if (t.to == BreakerState::Open && openedAt < 0)
            openedAt = clock.elapsed();
    }, Qt::QueuedConnection);
    const Replay run = replay(harness.port(), "/v1/chat/completions", 600s, &owner, [](qint64) {});
    QList<qint64> waits, waitsWhileOpen;
    for (qsizetype i = 0; i < run.clients.size(); ++i) {
        waits.append(run.clients[i]->waitedMs());
        if (run.clients[i]->response().header("x-breakwater-breaker") == "open")
            waitsWhileOpen.append(run.clients[i]->waitedMs());
    }
    std::printf("hang: one prompt every %.1f s for %.0f s, provider hangs from %.0f s to %.0f s, --timeout %.1f\n",
                2 * g_scale, 150 * g_scale, hangStart / 1000.0, hangEnd / 1000.0, g_timeoutSeconds);
    std::printf("  breaker opened     %.1f s after the hang began\n", (openedAt - hangStart) / 1000.0);
    std::printf("  slowest wait       %.0f ms\n", percentile(waits, 1.0));
    std::printf("  median wait while open %.1f ms (%lld callers)\n", percentile(waitsWhileOpen, 0.5),
                qint64(waitsWhileOpen.size()));
    std::printf("  calls that reached the hung provider: %d in all\n", harness.mock()->callCount(u"/v1/chat/completions"_s));
    return 0;
}

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QStringList args = QCoreApplication::arguments().mid(1);
    const QString scenario = args.value(0);
    for (qsizetype i = 1; i + 1 < args.size(); i += 2) {
        if (args[i] == u"--scale"_s)
            g_scale = args[i + 1].toDouble();
        else if (args[i] == u"--concurrency"_s)
            g_concurrency = args[i + 1].toInt();
        else if (args[i] == u"--timeout"_s)
            g_timeoutSeconds = args[i + 1].toDouble();
    }
    const QMap<QString, std::function<int()>> scenarios{
        {u"herd"_s, herd}, {u"hits"_s, hits}, {u"overhead"_s, overhead}, {u"throughput"_s, throughput},
        {u"key"_s, key}, {u"burst"_s, burst}, {u"outage"_s, outage}, {u"hang"_s, hang},
        {u"soak"_s, [] { return soak(std::chrono::milliseconds(qint64(1800'000 * g_scale))); }},
        {u"engine"_s, engineBench}, {u"proxy-only"_s, proxyOnly}};
    if (scenario == u"engine"_s || scenario == u"proxy-only"_s)   // they read their own options
        return scenarios[scenario]();
    if (!scenarios.contains(scenario) || g_scale <= 0) {
        std::fprintf(stderr, "usage: breakwater-bench herd|hits|overhead|throughput|key|burst|outage|hang|soak|engine [--scale X] "
                             "[--concurrency N] [--timeout S]\n");
        return 2;
    }
    return scenarios[scenario]();
}
