// breakwater-bench soak: mixed traffic through a real proxy for a long time, printing what must stay
// flat: the process's resident memory, its open descriptors, and the proxy's flights, riders and
// cache. The traffic mixes every kind of call (misses, joins, cache hits, streams, Responses calls,
// pass-throughs, callers who hang up mid-stream) with the provider's faults in a one-minute cycle
// (503s, resets, cut streams, error events inside 200 streams, garbage, hangs past the timeout), so
// breakers open and close, flights are cancelled and the cache turns over.

#include "soak.h"

#include "loopbackclient.h"
#include "processstats.h"
#include "proxyharness.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QRandomGenerator>
#include <QTimer>

#include <cstdio>

using namespace Qt::StringLiterals;
using namespace std::chrono_literals;

namespace {

// One minute of the provider's life: mostly healthy, then each fault for a few seconds.
QList<MockProvider::Phase> faultCycle()
{
    using M = MockProvider::Mode;
    return {{36s, M::Ok}, {3s, M::Error503}, {3s, M::Ok}, {2s, M::Reset}, {3s, M::Ok}, {2s, M::CutStream},
            {2s, M::ErrorEventInStream}, {2s, M::Ok}, {2s, M::Garbage}, {2s, M::Ok}, {3s, M::Hang}, {1ms, M::Ok}};
}

} // namespace

int soak(std::chrono::milliseconds duration)
{
    ProxyHarness harness([](ProxyConfig &c) {
        c.upstreamTimeout = 1s;          // hangs end quickly
        c.dedupWindow = 2s;              // the cache turns over all the time
        c.breakerCooldown = 3s;
        c.breakerProbeInterval = 500ms;
        c.abandonGrace = 500ms;
    });
    harness.mock()->setLatency(20ms);
    harness.mock()->setChunkInterval(5ms);
    harness.mock()->setSchedule(faultCycle());

    constexpr int kMaxOutstanding = 32;
    int outstanding = 0;
    qint64 started = 0, sequence = 0;
    QMap<QByteArray, qint64> statuses;
    QRandomGenerator random(42);

    const auto launch = [&] {
        const int kind = int(random.bounded(100));
        const qint64 n = sequence++;
        QByteArray path = "/v1/chat/completions";
        QByteArray method = "POST";
        QByteArray body;
        HeaderList headers = kOpenAiAuth;
        bool hangUp = false;
        if (kind < 25) {            // a miss: every body different
            body = chatBody(u"soak miss %1"_s.arg(n));
        } else if (kind < 45) {     // joins and hits: ten prompts over and over
            body = chatBody(u"soak shared %1"_s.arg(n % 10), n % 3 == 0);
        } else if (kind < 60) {     // a stream of its own
            body = chatBody(u"soak stream %1"_s.arg(n), true);
        } else if (kind < 70) {     // a caller who hangs up mid-stream (no-store: cancelled at once)
            body = chatBody(u"soak leaver %1"_s.arg(n), true);
            headers += HeaderList{{"Cache-Control", "no-store"}};
            hangUp = true;
        } else if (kind < 80) {     // the Responses API
            path = "/v1/responses";
            body = R"({"model":"gpt-5.1","stream":)" + QByteArray(n % 2 ? "true" : "false")
                   + R"(,"input":"soak responses )" + QByteArray::number(n % 20) + "\"}";
        } else if (kind < 88) {     // Anthropic
            path = "/v1/messages";
            body = messagesBody(u"soak messages %1"_s.arg(n % 15), n % 2 == 0);
            headers = kAnthropicAuth;
        } else if (kind < 94) {     // a pass-through
            method = "GET";
            path = "/v1/models";
        } else {                    // an upload through the pass-through
            path = "/v1/files";
            body = QByteArray(64 * 1024, char('a' + n % 26));
            headers = {{"Authorization", "Bearer sk-test-1"}, {"Content-Type", "application/octet-stream"}};
        }
        auto *client = new LoopbackClient(harness.port(), method, path, headers, body);
        client->setTimeout(10s);
        ++outstanding;
        ++started;
        QObject::connect(client, &LoopbackClient::finished, client, [&, client] {
            --outstanding;
            ++statuses[QByteArray::number(client->response().status)];
            client->deleteLater();
        });
        client->start();
        if (hangUp)
            QTimer::singleShot(std::chrono::milliseconds(30 + random.bounded(200)), client, [client] { client->hangUp(); });
    };

    QElapsedTimer clock;
    clock.start();
    QTimer traffic;   // about 200 calls a second, never more than kMaxOutstanding at once
    QObject::connect(&traffic, &QTimer::timeout, [&] {
        for (int i = 0; i < 2 && outstanding < kMaxOutstanding; ++i)
            launch();
    });
    traffic.start(10);
    QTimer cycle;     // the provider's fault cycle again every minute
    QObject::connect(&cycle, &QTimer::timeout, [&] { harness.mock()->setSchedule(faultCycle()); });
    cycle.start(60s);

    std::printf("soak: %.0f s of mixed traffic and faults; every 10 s:\n", double(duration.count()) / 1000);
    std::printf("%8s %10s %6s %8s %7s %7s %8s %9s %s\n", "time_s", "rss_kib", "fds", "calls", "flights", "riders",
                "cache", "cache_kib", "statuses");
    const auto report = [&] {
        const auto figures = harness.onProxyThread<QList<qint64>>([](ProxyServer *p) {
            return QList<qint64>{p->flightsInProgress(), p->ridersInFlight(), p->cache().count(), p->cache().bytes()};
        });
        QByteArray mix;
        for (auto it = statuses.cbegin(); it != statuses.cend(); ++it)
            mix += it.key() + ':' + QByteArray::number(it.value()) + ' ';
        std::printf("%8.0f %10lld %6lld %8lld %7lld %7lld %8lld %9lld %s\n", double(clock.elapsed()) / 1000,
                    processstats::residentKiB(), qint64(processstats::openDescriptors()), started, figures[0], figures[1], figures[2],
                    figures[3] / 1024, mix.constData());
        std::fflush(stdout);
        harness.records.clear();   // the harness keeps every record; a soak must not
        harness.transitions.clear();
    };
    QTimer reporter;
    QObject::connect(&reporter, &QTimer::timeout, report);
    reporter.start(10s);
    report();

    QTimer::singleShot(duration, [&] {
        traffic.stop();
        QTimer::singleShot(15s, &QCoreApplication::quit);   // let the last calls end
    });
    QCoreApplication::exec();
    report();
    return 0;
}
