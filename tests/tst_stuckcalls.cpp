// Issue 20, item 6: the stuck-call rule counts only calls that are really stuck. After a timeout, a
// streamed call with no first byte for half the timeout, or a non-streamed call past twice what the
// model needed lately, counts as a failure; healthy slow non-streamed calls never open the breaker.
// The calls' ages come from the injected clock; the timeout itself is real (2 s).

#include "fakeclock.h"
#include "proxyharness.h"

#include <QTest>

using namespace Qt::StringLiterals;
using namespace std::chrono_literals;

namespace {

constexpr qint64 kTimeoutMs = 2000;

// Starts `count` calls the mock holds unanswered (no byte), under a long timeout so that only the
// one hung call below times out; then the timeout becomes 2 s for what follows.
QList<LoopbackClient *> startHeldCalls(ProxyHarness &harness, int count, bool stream)
{
    harness.mock()->setHoldAnswers(true);
    QList<LoopbackClient *> calls;
    for (int i = 0; i < count; ++i)
        calls.append(harness.start("/v1/chat/completions", chatBody(u"held %1"_s.arg(i), stream)));
    return calls;
}

void hangOneCall(ProxyHarness &harness)
{
    QCOMPARE(harness.control("PATCH", "/breakwater/settings", R"({"timeout":2})").status, 200);
    const LoopbackResponse armed = harness.control("POST", "/breakwater/faults", R"({"rule":"hang:count=1"})");
    QVERIFY2(armed.status == 200 || armed.status == 201, armed.body.constData());
    const LoopbackResponse hung = harness.post("/v1/chat/completions", chatBody(u"hangs"_s));
    QCOMPARE(hung.status, 504);
}

int opened(const ProxyHarness &harness)
{
    return int(std::count_if(harness.transitions.cbegin(), harness.transitions.cend(),
                             [](const BreakerTransition &t) { return t.to == BreakerState::Open; }));
}

} // namespace

class TestStuckCalls final : public QObject
{
    Q_OBJECT
private slots:
    void healthySlowNonStreamedCalls_neverOpenTheBreaker();
    void nonStreamedCallsPastWhatTheModelNeeds_areStuck();
    void streamsWithNoFirstByte_areStuck();
};

void TestStuckCalls::healthySlowNonStreamedCalls_neverOpenTheBreaker()
{
    // Issue 20, seen 6: one hung call times out while four healthy non-streamed calls that take
    // almost the whole timeout are in flight. The model is slow: its last answer took 1.9 s.
    FakeClock clock;
    ProxyHarness harness([](ProxyConfig &c) { c.upstreamTimeout = 60s; }, &clock);
    harness.mock()->setHoldAnswers(true);
    LoopbackClient *earlier = harness.start("/v1/chat/completions", chatBody(u"an earlier slow one"_s));
    QTRY_COMPARE(harness.mock()->heldCount(), 1);
    clock.advance(kTimeoutMs - 100);
    harness.mock()->releaseHeld();
    QTRY_VERIFY(earlier->isFinished());
    QCOMPARE(earlier->response().status, 200);

    const QList<LoopbackClient *> healthy = startHeldCalls(harness, 4, false);
    QTRY_COMPARE(harness.mock()->heldCount(), 4);
    clock.advance(kTimeoutMs - 100);   // 1.9 s into a 2 s timeout
    hangOneCall(harness);

    harness.mock()->setHoldAnswers(false);
    QTRY_VERIFY(allFinished(healthy));
    for (const LoopbackClient *call : healthy)
        QCOMPARE(call->response().status, 200);
    QCOMPARE(opened(harness), 0);
    QCOMPARE(harness.post("/v1/chat/completions", chatBody(u"the next one"_s)).status, 200);
}

void TestStuckCalls::nonStreamedCallsPastWhatTheModelNeeds_areStuck()
{
    // The field test's hang in small: a fast model (its answers take no time on the clock) hangs;
    // four calls have waited 1.9 s without a byte when the first one times out.
    FakeClock clock;
    ProxyHarness harness([](ProxyConfig &c) { c.upstreamTimeout = 60s; }, &clock);
    QCOMPARE(harness.post("/v1/chat/completions", chatBody(u"fast and well"_s)).status, 200);
    const QList<LoopbackClient *> stuck = startHeldCalls(harness, 4, false);
    QTRY_COMPARE(harness.mock()->heldCount(), 4);
    clock.advance(kTimeoutMs - 100);
    hangOneCall(harness);
    QTRY_COMPARE(opened(harness), 1);   // 1 timeout + 4 stuck = --breaker-failures 5
    harness.mock()->setHoldAnswers(false);
    QTRY_VERIFY(allFinished(stuck));
}

void TestStuckCalls::streamsWithNoFirstByte_areStuck()
{
    // A stream's headers come at once from a provider that is well: none for half the timeout is
    // stuck, even before any healthy call was seen.
    FakeClock clock;
    ProxyHarness harness([](ProxyConfig &c) { c.upstreamTimeout = 60s; }, &clock);
    const QList<LoopbackClient *> stuck = startHeldCalls(harness, 4, true);
    QTRY_COMPARE(harness.mock()->heldCount(), 4);
    clock.advance(kTimeoutMs / 2 + 100);
    hangOneCall(harness);
    QTRY_COMPARE(opened(harness), 1);
    harness.mock()->setHoldAnswers(false);
    QTRY_VERIFY(allFinished(stuck));
}

QTEST_GUILESS_MAIN(TestStuckCalls)
#include "tst_stuckcalls.moc"
