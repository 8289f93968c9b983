// The breaker's health probe: it asks only while the breaker is open, an answer moves the breaker
// to half-open, and a redirect is an answer, never followed (the probe carries the credential); it
// keeps its last answer and its time for the dashboard.

#include "upstream/breakerprobe.h"

#include <QTest>

#include "cannedserver.h"
#include "fakeclock.h"
#include "upstream/circuitbreaker.h"
#include "upstream/upstreampool.h"

using namespace Qt::StringLiterals;
using namespace std::chrono_literals;

namespace {
constexpr int kWait = 10000;
}

class tst_BreakerProbe final : public QObject
{
    Q_OBJECT
private slots:
    void redirect_isNotFollowed();
};

void tst_BreakerProbe::redirect_isNotFollowed()
{
    // The provider's address answers 302 to another host (here another loopback port). Following
    // it would hand the user's key to that host.
    CannedServer elsewhere(CannedServer::answer(200, {}, R"({"object":"list","data":[]})"));
    QVERIFY(elsewhere.listenOn());
    CannedServer provider(CannedServer::answer(
        302, "Location: http://127.0.0.1:" + QByteArray::number(elsewhere.serverPort()) + "/v1/models\r\n"));
    QVERIFY(provider.listenOn());

    FakeClock clock;
    CircuitBreaker breaker(u"openai"_s, clock, 1, 60s);
    UpstreamPool pool(u"openai"_s, 1, 0);
    BreakerProbe probe(&breaker, &pool, QUrl(u"http://127.0.0.1:%1/v1/models"_s.arg(provider.serverPort())), 20ms, 2s);
    probe.rememberCredentials({{"Authorization", "Bearer sk-secret"}, {"Content-Type", "application/json"}});
    breaker.recordFailure(u"test"_s, false);
    QCOMPARE(breaker.state(), BreakerState::Open);

    // A 302 is not a server error: the provider is up, so the breaker goes half-open.
    QTRY_COMPARE_WITH_TIMEOUT(breaker.state(), BreakerState::HalfOpen, kWait);
    QCOMPARE(provider.requests(), 1);
    QCOMPARE(probe.probesSent(), 1);
    QCOMPARE(elsewhere.connections(), 0);
    // The dashboard's strip reads what the probe saw and when (the breaker's clock).
    QCOMPARE(probe.lastProbeResult(), u"302"_s);
    QVERIFY(probe.lastProbeAlive());
    QCOMPARE(probe.lastProbeAtMs(), clock.wallMs());
}

QTEST_GUILESS_MAIN(tst_BreakerProbe)
#include "tst_breakerprobe.moc"
