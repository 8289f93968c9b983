// Abandoned flights (issue 12, "nobody can stop a call"): when the last caller of an upstream call
// has hung up and its answer cannot be reused, the call is cancelled at once; when it can be reused,
// it runs on for a grace time in which a retry rejoins it, and is cancelled after that. A cancelled
// call is recorded (errorKind "cancelled").
#include "proxyharness.h"

#include <QTest>

using namespace std::chrono_literals;
using namespace Qt::StringLiterals;

class AbandonTest final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void noStoreStream_callerHangsUp_upstreamCallCancelled();
    void dedupWindowZero_callerHangsUp_upstreamCallCancelled();
    void reusableCall_retryWithinGraceRejoins_noSecondUpstreamCall();
    void reusableCall_nobodyBackAfterGrace_cancelled();
    void oneOfTwoRidersHangsUp_callRunsOn();
};

namespace {
// A stream that would run for about 40 s: events 2 s apart.
void slowStreams(ProxyHarness &harness)
{
    harness.mock()->setMode(MockProvider::Mode::SlowStream);
    harness.mock()->setSlowGap(2s);
}

const CallRecord *recordWithError(const ProxyHarness &harness, const QByteArray &errorKind)
{
    for (const CallRecord &record : harness.records) {
        if (record.errorKind == errorKind)
            return &record;
    }
    return nullptr;
}
} // namespace

void AbandonTest::noStoreStream_callerHangsUp_upstreamCallCancelled()
{
    ProxyHarness harness;
    slowStreams(harness);
    LoopbackClient *call = harness.start("/v1/chat/completions", chatBody(u"no-store"_s, true),
                                         kOpenAiAuth + HeaderList{{"Cache-Control", "no-store"}});
    QTRY_VERIFY(!call->response().chunks.isEmpty());
    QCOMPARE(harness.mock()->inFlight(), 1);
    call->hangUp();
    // The mock sees its connection closed long before its 40 s stream would end.
    QTRY_COMPARE(harness.mock()->inFlight(), 0);
    QTRY_COMPARE(harness.records.size(), 1);
    QCOMPARE(harness.records.first().errorKind, QByteArray("cancelled"));
    QCOMPARE(harness.records.first().outcome, Outcome::Bypass);
}

void AbandonTest::dedupWindowZero_callerHangsUp_upstreamCallCancelled()
{
    ProxyHarness harness([](ProxyConfig &config) { config.dedupWindow = 0ms; });
    slowStreams(harness);
    LoopbackClient *call = harness.start("/v1/chat/completions", chatBody(u"window 0"_s, true));
    QTRY_VERIFY(!call->response().chunks.isEmpty());
    call->hangUp();
    QTRY_COMPARE(harness.mock()->inFlight(), 0);
    QTRY_VERIFY(recordWithError(harness, "cancelled"));
}

void AbandonTest::reusableCall_retryWithinGraceRejoins_noSecondUpstreamCall()
{
    ProxyHarness harness([](ProxyConfig &config) { config.abandonGrace = 30s; });
    harness.mock()->setChunkInterval(100ms);   // about 2 s of stream
    const QByteArray body = chatBody(u"retry me"_s, true);
    LoopbackClient *first = harness.start("/v1/chat/completions", body);
    QTRY_VERIFY(!first->response().chunks.isEmpty());
    first->hangUp();
    QTRY_COMPARE(harness.onProxyThread<int>([](ProxyServer *proxy) { return proxy->flightsAbandoned(); }), 1);
    LoopbackClient *retry = harness.start("/v1/chat/completions", body);
    QTRY_VERIFY_WITH_TIMEOUT(retry->isFinished(), 20000);
    QVERIFY(retry->response().body.contains("data: [DONE]"));
    QCOMPARE(retry->response().header("x-breakwater-dedup"), QByteArray("joined"));
    QCOMPARE(harness.mock()->callCount(), 1);
    QVERIFY(!recordWithError(harness, "cancelled"));
}

void AbandonTest::reusableCall_nobodyBackAfterGrace_cancelled()
{
    ProxyHarness harness([](ProxyConfig &config) { config.abandonGrace = 200ms; });
    slowStreams(harness);
    LoopbackClient *call = harness.start("/v1/chat/completions", chatBody(u"gone for good"_s, true));
    QTRY_VERIFY(!call->response().chunks.isEmpty());
    call->hangUp();
    QTRY_COMPARE(harness.mock()->inFlight(), 0);
    QTRY_VERIFY(recordWithError(harness, "cancelled"));
    // Nothing was cached from the cancelled call: the same request makes a new one.
    harness.mock()->setMode(MockProvider::Mode::Ok);
    const LoopbackResponse again = harness.post("/v1/chat/completions", chatBody(u"gone for good"_s, true));
    QCOMPARE(again.header("x-breakwater-dedup"), QByteArray("miss"));
    QCOMPARE(harness.mock()->callCount(), 2);
}

void AbandonTest::oneOfTwoRidersHangsUp_callRunsOn()
{
    ProxyHarness harness([](ProxyConfig &config) { config.abandonGrace = 0ms; });
    harness.mock()->setChunkInterval(50ms);
    const QByteArray body = chatBody(u"two riders"_s, true);
    LoopbackClient *leaver = harness.start("/v1/chat/completions", body);
    LoopbackClient *stayer = harness.start("/v1/chat/completions", body);
    QTRY_VERIFY(!leaver->response().chunks.isEmpty() && !stayer->response().chunks.isEmpty());
    leaver->hangUp();
    QTRY_VERIFY_WITH_TIMEOUT(stayer->isFinished(), 20000);
    QVERIFY(stayer->response().body.contains("data: [DONE]"));
    QCOMPARE(harness.mock()->callCount(), 1);
    QVERIFY(!recordWithError(harness, "cancelled"));
}

QTEST_GUILESS_MAIN(AbandonTest)
#include "tst_abandon.moc"
