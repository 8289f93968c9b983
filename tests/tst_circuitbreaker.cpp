// The circuit breaker as a state machine: closed -> open -> half-open -> closed (or open again with a
// longer cool-down), moved by failures, successes, the clock and the health probe. Time is a
// FakeClock; every transition is checked through stateChanged. The clock's move is made by
// onTimePassed() alone, which admit() and the breaker's own cool-down timer call; a FakeClock wakes
// no timer, so the tests call it where the timer would have fired. Reading state() moves nothing.

#include "fakeclock.h"
#include "upstream/circuitbreaker.h"

#include <QSignalSpy>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace std::chrono_literals;

namespace {
using Verdict = CircuitBreaker::Admission::Verdict;

constexpr qint64 kCooldownMs = 60'000;

// Fails `count` admitted calls in a row.
void failTimes(CircuitBreaker &breaker, int count, const QString &reason = u"HTTP 503"_s)
{
    for (int i = 0; i < count; ++i) {
        QCOMPARE(breaker.admit().verdict, Verdict::Allow);
        breaker.recordFailure(reason, false);
    }
}

BreakerTransition transitionAt(const QSignalSpy &spy, qsizetype index)
{
    return spy.at(index).at(0).value<BreakerTransition>();
}
} // namespace

class TestCircuitBreaker final : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void consecutiveFailures_openTheBreaker_data();
    void consecutiveFailures_openTheBreaker();
    void success_resetsTheFailureCount();
    void openBreaker_refusesWithRetryAfterCountingDown_data();
    void openBreaker_refusesWithRetryAfterCountingDown();
    void cooldownPassing_movesToHalfOpen();
    void readingState_afterCooldown_changesNothing();
    void timePassing_movesOnlyAnOpenBreakerPastItsCooldown_data();
    void timePassing_movesOnlyAnOpenBreakerPastItsCooldown();
    void cooldownTimer_movesToHalfOpenWithoutTraffic();
    void halfOpen_admitsExactlyOneTrial();
    void trialSuccess_closes();
    void trialFailure_reopensWithDoubledCooldownCappedAtEight_data();
    void trialFailure_reopensWithDoubledCooldownCappedAtEight();
    void close_resetsTheCooldown();
    void abandonedTrial_freesTheTrialSlot();
    void lateResults_doNotDecideAHalfOpenBreaker();
    void lateFailuresWhileOpen_doNotExtendTheCooldown();
    void probeSuccess_movesOpenToHalfOpenAtOnce();
    void probeSuccess_whenNotOpen_changesNothing();
    void probeSuccess_afterAFailedTrial_waitsForTheGrownCooldown();
    void everyTransition_isSignalledWithFromToReasonAndTime();
};

void TestCircuitBreaker::initTestCase()
{
    qRegisterMetaType<BreakerTransition>();
}

void TestCircuitBreaker::consecutiveFailures_openTheBreaker_data()
{
    QTest::addColumn<int>("threshold");
    QTest::addColumn<QString>("reason");
    // The kinds of upstream failure the proxy reports (Flight::breakerVerdict).
    for (const int threshold : {1, 3, 5}) {
        for (const QString &reason : {u"HTTP 500"_s, u"HTTP 503"_s, u"timeout"_s, u"unreachable"_s,
                                      u"stream cut"_s, u"invalid answer"_s}) {
            QTest::addRow("%d x %s", threshold, qPrintable(reason)) << threshold << reason;
        }
    }
}

void TestCircuitBreaker::consecutiveFailures_openTheBreaker()
{
    QFETCH(int, threshold);
    QFETCH(QString, reason);
    FakeClock clock;
    CircuitBreaker breaker(u"openai"_s, clock, threshold, 60s);
    QSignalSpy spy(&breaker, &CircuitBreaker::stateChanged);
    failTimes(breaker, threshold - 1, reason);
    QCOMPARE(breaker.state(), BreakerState::Closed);
    QCOMPARE(breaker.consecutiveFailures(), threshold - 1);
    QCOMPARE(spy.count(), 0);
    failTimes(breaker, 1, reason);
    QCOMPARE(breaker.state(), BreakerState::Open);
    QCOMPARE(breaker.admit().verdict, Verdict::Refuse);
    QCOMPARE(spy.count(), 1);
    const BreakerTransition opened = transitionAt(spy, 0);
    QCOMPARE(opened.from, BreakerState::Closed);
    QCOMPARE(opened.to, BreakerState::Open);
    QVERIFY2(opened.reason.english().contains(reason), qPrintable(opened.reason.english()));
    QVERIFY2(opened.reason.english().contains(QString::number(threshold)), qPrintable(opened.reason.english()));
}

void TestCircuitBreaker::success_resetsTheFailureCount()
{
    FakeClock clock;
    CircuitBreaker breaker(u"openai"_s, clock, 3, 60s);
    failTimes(breaker, 2, u"timeout"_s);
    breaker.recordSuccess(false);
    QCOMPARE(breaker.consecutiveFailures(), 0);
    failTimes(breaker, 2, u"HTTP 502"_s);
    QCOMPARE(breaker.state(), BreakerState::Closed);   // 4 failures, but never 3 in a row
    failTimes(breaker, 1, u"unreachable"_s);            // different kinds count together
    QCOMPARE(breaker.state(), BreakerState::Open);
}

void TestCircuitBreaker::openBreaker_refusesWithRetryAfterCountingDown_data()
{
    QTest::addColumn<qint64>("cooldownMs");
    QTest::addColumn<qint64>("elapsedMs");
    QTest::addColumn<int>("retryAfter");
    QTest::newRow("60 s, just opened") << kCooldownMs << qint64(0) << 60;
    QTest::newRow("60 s, after 0.5 s") << kCooldownMs << qint64(500) << 60;   // rounded up
    QTest::newRow("60 s, after 1 s") << kCooldownMs << qint64(1000) << 59;
    QTest::newRow("60 s, after 30 s") << kCooldownMs << qint64(30'000) << 30;
    QTest::newRow("60 s, after 59 s") << kCooldownMs << qint64(59'000) << 1;
    QTest::newRow("60 s, 1 ms left") << kCooldownMs << qint64(59'999) << 1;
    QTest::newRow("300 s, capped at 60") << qint64(300'000) << qint64(1000) << 60;
    QTest::newRow("300 s, after 250 s") << qint64(300'000) << qint64(250'000) << 50;
    QTest::newRow("200 ms, never 0") << qint64(200) << qint64(0) << 1;
}

void TestCircuitBreaker::openBreaker_refusesWithRetryAfterCountingDown()
{
    QFETCH(qint64, cooldownMs);
    QFETCH(qint64, elapsedMs);
    QFETCH(int, retryAfter);
    FakeClock clock;
    CircuitBreaker breaker(u"openai"_s, clock, 2, std::chrono::milliseconds(cooldownMs));
    failTimes(breaker, 2);
    clock.advance(elapsedMs);
    const CircuitBreaker::Admission admission = breaker.admit();
    QCOMPARE(admission.verdict, Verdict::Refuse);
    QCOMPARE(admission.retryAfterSeconds, retryAfter);
    QCOMPARE(breaker.state(), BreakerState::Open);
}

void TestCircuitBreaker::cooldownPassing_movesToHalfOpen()
{
    FakeClock clock;
    CircuitBreaker breaker(u"openai"_s, clock, 1, 60s);
    QSignalSpy spy(&breaker, &CircuitBreaker::stateChanged);
    failTimes(breaker, 1);
    clock.advance(kCooldownMs - 1);
    breaker.onTimePassed();
    QCOMPARE(breaker.state(), BreakerState::Open);
    clock.advance(1);
    breaker.onTimePassed();
    QCOMPARE(breaker.state(), BreakerState::HalfOpen);
    QCOMPARE(spy.count(), 2);
    const BreakerTransition halfOpen = transitionAt(spy, 1);
    QCOMPARE(halfOpen.from, BreakerState::Open);
    QCOMPARE(halfOpen.to, BreakerState::HalfOpen);
    QVERIFY2(halfOpen.reason.english().contains(u"cool-down"_s), qPrintable(halfOpen.reason.english()));
}

void TestCircuitBreaker::readingState_afterCooldown_changesNothing()
{
    // The metrics page, the stats page and the dashboard's snapshot read the state; none may move it.
    FakeClock clock;
    CircuitBreaker breaker(u"openai"_s, clock, 1, 60s);
    failTimes(breaker, 1);
    QSignalSpy spy(&breaker, &CircuitBreaker::stateChanged);
    clock.advance(3 * kCooldownMs);
    const CircuitBreaker &reader = breaker;   // state() is a const read
    for (int i = 0; i < 5; ++i)
        QCOMPARE(reader.state(), BreakerState::Open);
    QCOMPARE(spy.count(), 0);
    QCOMPARE(breaker.transitions(), 1);
    QCOMPARE(breaker.consecutiveFailures(), 1);
    QCOMPARE(breaker.currentCooldownMs(), kCooldownMs);
    // The first caller after the cool-down moves it, and gets the trial the reads left untouched.
    QCOMPARE(breaker.admit().verdict, Verdict::Trial);
    QCOMPARE(breaker.state(), BreakerState::HalfOpen);
    QCOMPARE(spy.count(), 1);
}

void TestCircuitBreaker::timePassing_movesOnlyAnOpenBreakerPastItsCooldown_data()
{
    QTest::addColumn<BreakerState>("start");
    QTest::addColumn<qint64>("elapsedMs");
    QTest::addColumn<BreakerState>("expected");
    QTest::newRow("closed, long after") << BreakerState::Closed << 10 * kCooldownMs << BreakerState::Closed;
    QTest::newRow("open, just opened") << BreakerState::Open << qint64(0) << BreakerState::Open;
    QTest::newRow("open, 1 ms early") << BreakerState::Open << kCooldownMs - 1 << BreakerState::Open;
    QTest::newRow("open, cool-down over") << BreakerState::Open << kCooldownMs << BreakerState::HalfOpen;
    QTest::newRow("open, long after") << BreakerState::Open << 10 * kCooldownMs << BreakerState::HalfOpen;
    QTest::newRow("half-open, trial out") << BreakerState::HalfOpen << 10 * kCooldownMs << BreakerState::HalfOpen;
}

void TestCircuitBreaker::timePassing_movesOnlyAnOpenBreakerPastItsCooldown()
{
    QFETCH(BreakerState, start);
    QFETCH(qint64, elapsedMs);
    QFETCH(BreakerState, expected);
    FakeClock clock;
    CircuitBreaker breaker(u"openai"_s, clock, 1, 60s);
    if (start != BreakerState::Closed)
        failTimes(breaker, 1);
    if (start == BreakerState::HalfOpen) {
        clock.advance(kCooldownMs);
        QCOMPARE(breaker.admit().verdict, Verdict::Trial);
    }
    QCOMPARE(breaker.state(), start);
    QSignalSpy spy(&breaker, &CircuitBreaker::stateChanged);
    clock.advance(elapsedMs);
    breaker.onTimePassed();
    QCOMPARE(breaker.state(), expected);
    breaker.onTimePassed();   // a second call finds nothing more to do
    QCOMPARE(spy.count(), start == expected ? 0 : 1);
    if (start != expected) {
        const BreakerTransition moved = transitionAt(spy, 0);
        QCOMPARE(moved.from, start);
        QCOMPARE(moved.to, expected);
        QVERIFY2(moved.reason.english().contains(u"cool-down"_s), qPrintable(moved.reason.english()));
        QCOMPARE(moved.atMs, clock.wallMs());
    }
}

void TestCircuitBreaker::cooldownTimer_movesToHalfOpenWithoutTraffic()
{
    // In the app nobody calls onTimePassed() while the provider is quiet: the breaker's own timer
    // does, so the dashboard shows half-open when the cool-down ends. A short real cool-down lets
    // the timer fire; the FakeClock, moved at once, says it is over.
    FakeClock clock;
    CircuitBreaker breaker(u"openai"_s, clock, 1, 20ms);
    QSignalSpy spy(&breaker, &CircuitBreaker::stateChanged);
    failTimes(breaker, 1);
    QCOMPARE(breaker.state(), BreakerState::Open);
    clock.advance(20);
    QTRY_COMPARE(spy.count(), 2);
    QCOMPARE(breaker.state(), BreakerState::HalfOpen);
    QVERIFY2(transitionAt(spy, 1).reason.english().contains(u"cool-down"_s), qPrintable(transitionAt(spy, 1).reason.english()));
    QCOMPARE(breaker.admit().verdict, Verdict::Trial);
}

void TestCircuitBreaker::halfOpen_admitsExactlyOneTrial()
{
    FakeClock clock;
    CircuitBreaker breaker(u"openai"_s, clock, 1, 60s);
    failTimes(breaker, 1);
    clock.advance(kCooldownMs);
    QCOMPARE(breaker.admit().verdict, Verdict::Trial);
    for (int i = 0; i < 10; ++i) {
        const CircuitBreaker::Admission refused = breaker.admit();
        QCOMPARE(refused.verdict, Verdict::Refuse);
        QVERIFY(refused.retryAfterSeconds >= 1 && refused.retryAfterSeconds <= 60);
    }
    QCOMPARE(breaker.state(), BreakerState::HalfOpen);
}

void TestCircuitBreaker::trialSuccess_closes()
{
    FakeClock clock;
    CircuitBreaker breaker(u"openai"_s, clock, 2, 60s);
    failTimes(breaker, 2);
    clock.advance(kCooldownMs);
    QCOMPARE(breaker.admit().verdict, Verdict::Trial);
    breaker.recordSuccess(true);
    QCOMPARE(breaker.state(), BreakerState::Closed);
    QCOMPARE(breaker.consecutiveFailures(), 0);
    for (int i = 0; i < 5; ++i)
        QCOMPARE(breaker.admit().verdict, Verdict::Allow);
    // A fresh count: one failure after closing does not re-open a threshold-2 breaker.
    breaker.recordFailure(u"HTTP 503"_s, false);
    QCOMPARE(breaker.state(), BreakerState::Closed);
}

void TestCircuitBreaker::trialFailure_reopensWithDoubledCooldownCappedAtEight_data()
{
    QTest::addColumn<int>("trialFailures");
    QTest::addColumn<qint64>("cooldownMs");
    QTest::newRow("1 failed trial: 2x") << 1 << 2 * kCooldownMs;
    QTest::newRow("2 failed trials: 4x") << 2 << 4 * kCooldownMs;
    QTest::newRow("3 failed trials: 8x") << 3 << 8 * kCooldownMs;
    QTest::newRow("4 failed trials: still 8x") << 4 << 8 * kCooldownMs;
    QTest::newRow("6 failed trials: still 8x") << 6 << 8 * kCooldownMs;
}

void TestCircuitBreaker::trialFailure_reopensWithDoubledCooldownCappedAtEight()
{
    QFETCH(int, trialFailures);
    QFETCH(qint64, cooldownMs);
    FakeClock clock;
    CircuitBreaker breaker(u"openai"_s, clock, 1, 60s);
    QSignalSpy spy(&breaker, &CircuitBreaker::stateChanged);
    failTimes(breaker, 1);
    QCOMPARE(breaker.currentCooldownMs(), kCooldownMs);
    for (int i = 0; i < trialFailures; ++i) {
        clock.advance(breaker.currentCooldownMs());
        QCOMPARE(breaker.admit().verdict, Verdict::Trial);
        breaker.recordFailure(u"HTTP 503"_s, true);
        QCOMPARE(breaker.state(), BreakerState::Open);
    }
    QCOMPARE(breaker.currentCooldownMs(), cooldownMs);
    const BreakerTransition reopened = transitionAt(spy, spy.count() - 1);
    QCOMPARE(reopened.from, BreakerState::HalfOpen);
    QCOMPARE(reopened.to, BreakerState::Open);
    QVERIFY2(reopened.reason.english().contains(u"trial"_s), qPrintable(reopened.reason.english()));
    // The longer cool-down is the one that is waited for.
    clock.advance(cooldownMs - 1);
    QCOMPARE(breaker.state(), BreakerState::Open);
    QCOMPARE(breaker.admit().retryAfterSeconds, 1);
    clock.advance(1);
    breaker.onTimePassed();
    QCOMPARE(breaker.state(), BreakerState::HalfOpen);
}

void TestCircuitBreaker::close_resetsTheCooldown()
{
    FakeClock clock;
    CircuitBreaker breaker(u"openai"_s, clock, 1, 60s);
    failTimes(breaker, 1);
    for (int i = 0; i < 2; ++i) {
        clock.advance(breaker.currentCooldownMs());
        QCOMPARE(breaker.admit().verdict, Verdict::Trial);
        breaker.recordFailure(u"timeout"_s, true);
    }
    QCOMPARE(breaker.currentCooldownMs(), 4 * kCooldownMs);
    clock.advance(breaker.currentCooldownMs());
    QCOMPARE(breaker.admit().verdict, Verdict::Trial);
    breaker.recordSuccess(true);
    QCOMPARE(breaker.state(), BreakerState::Closed);
    QCOMPARE(breaker.currentCooldownMs(), kCooldownMs);
    failTimes(breaker, 1);
    QCOMPARE(breaker.state(), BreakerState::Open);
    clock.advance(kCooldownMs);
    breaker.onTimePassed();
    QCOMPARE(breaker.state(), BreakerState::HalfOpen);
}

void TestCircuitBreaker::abandonedTrial_freesTheTrialSlot()
{
    FakeClock clock;
    CircuitBreaker breaker(u"openai"_s, clock, 1, 60s);
    failTimes(breaker, 1);
    clock.advance(kCooldownMs);
    QCOMPARE(breaker.admit().verdict, Verdict::Trial);
    QCOMPARE(breaker.admit().verdict, Verdict::Refuse);
    breaker.abandonTrial();   // e.g. a 429: no verdict on the provider's health
    QCOMPARE(breaker.state(), BreakerState::HalfOpen);
    QCOMPARE(breaker.admit().verdict, Verdict::Trial);
}

void TestCircuitBreaker::lateResults_doNotDecideAHalfOpenBreaker()
{
    // Calls admitted while closed may finish after the breaker moved on; only the trial decides.
    FakeClock clock;
    CircuitBreaker breaker(u"openai"_s, clock, 1, 60s);
    QSignalSpy spy(&breaker, &CircuitBreaker::stateChanged);
    failTimes(breaker, 1);
    clock.advance(kCooldownMs);
    QCOMPARE(breaker.admit().verdict, Verdict::Trial);
    breaker.recordSuccess(false);
    QCOMPARE(breaker.state(), BreakerState::HalfOpen);
    breaker.recordFailure(u"HTTP 503"_s, false);
    QCOMPARE(breaker.state(), BreakerState::HalfOpen);
    QCOMPARE(breaker.admit().verdict, Verdict::Refuse);   // the trial is still out
    breaker.recordSuccess(true);
    QCOMPARE(breaker.state(), BreakerState::Closed);
    QCOMPARE(spy.count(), 3);   // open, half-open, closed
}

void TestCircuitBreaker::lateFailuresWhileOpen_doNotExtendTheCooldown()
{
    FakeClock clock;
    CircuitBreaker breaker(u"openai"_s, clock, 2, 60s);
    QSignalSpy spy(&breaker, &CircuitBreaker::stateChanged);
    QCOMPARE(breaker.admit().verdict, Verdict::Allow);
    QCOMPARE(breaker.admit().verdict, Verdict::Allow);
    QCOMPARE(breaker.admit().verdict, Verdict::Allow);
    breaker.recordFailure(u"HTTP 503"_s, false);
    breaker.recordFailure(u"HTTP 503"_s, false);
    QCOMPARE(breaker.state(), BreakerState::Open);
    clock.advance(10'000);
    breaker.recordFailure(u"HTTP 503"_s, false);   // the third call, admitted before opening
    QCOMPARE(spy.count(), 1);
    QCOMPARE(breaker.currentCooldownMs(), kCooldownMs);
    clock.advance(kCooldownMs - 10'000);
    breaker.onTimePassed();
    QCOMPARE(breaker.state(), BreakerState::HalfOpen);
}

void TestCircuitBreaker::probeSuccess_movesOpenToHalfOpenAtOnce()
{
    FakeClock clock;
    CircuitBreaker breaker(u"openai"_s, clock, 1, 60s);
    QSignalSpy spy(&breaker, &CircuitBreaker::stateChanged);
    failTimes(breaker, 1);
    clock.advance(100);   // far from the 60 s cool-down
    breaker.probeSucceeded();
    QCOMPARE(breaker.state(), BreakerState::HalfOpen);
    QCOMPARE(spy.count(), 2);
    QVERIFY2(transitionAt(spy, 1).reason.english().contains(u"probe"_s), qPrintable(transitionAt(spy, 1).reason.english()));
    QCOMPARE(breaker.admit().verdict, Verdict::Trial);
    breaker.recordSuccess(true);
    QCOMPARE(breaker.state(), BreakerState::Closed);
}

void TestCircuitBreaker::probeSuccess_whenNotOpen_changesNothing()
{
    FakeClock clock;
    CircuitBreaker breaker(u"openai"_s, clock, 1, 60s);
    QSignalSpy spy(&breaker, &CircuitBreaker::stateChanged);
    breaker.probeSucceeded();
    QCOMPARE(breaker.state(), BreakerState::Closed);
    failTimes(breaker, 1);
    clock.advance(kCooldownMs);
    QCOMPARE(breaker.admit().verdict, Verdict::Trial);
    breaker.probeSucceeded();   // half-open already, with its trial out
    QCOMPARE(breaker.state(), BreakerState::HalfOpen);
    QCOMPARE(breaker.admit().verdict, Verdict::Refuse);
    QCOMPARE(spy.count(), 2);
}

void TestCircuitBreaker::probeSuccess_afterAFailedTrial_waitsForTheGrownCooldown()
{
    // Issue 12: a probe (GET /v1/models) that works while model calls fail must not re-half-open
    // the breaker every second, or the doubled cool-down never takes effect.
    FakeClock clock;
    CircuitBreaker breaker(u"openai"_s, clock, 1, 60s);
    failTimes(breaker, 1);
    breaker.probeSucceeded();
    QCOMPARE(breaker.admit().verdict, Verdict::Trial);
    breaker.recordFailure(u"HTTP 503"_s, true);               // the trial fails: cool-down 120 s
    QCOMPARE(breaker.currentCooldownMs(), 2 * kCooldownMs);
    for (int second = 0; second < 119; ++second) {
        clock.advance(1000);
        breaker.probeSucceeded();
        breaker.onTimePassed();
        QCOMPARE(breaker.state(), BreakerState::Open);
    }
    clock.advance(1000);
    QCOMPARE(breaker.admit().verdict, Verdict::Trial);          // the grown cool-down is over
    breaker.recordSuccess(true);
    QCOMPARE(breaker.state(), BreakerState::Closed);
    failTimes(breaker, 1);                                      // a new outage: the probe works again
    breaker.probeSucceeded();
    QCOMPARE(breaker.state(), BreakerState::HalfOpen);
}

void TestCircuitBreaker::everyTransition_isSignalledWithFromToReasonAndTime()
{
    FakeClock clock;
    CircuitBreaker breaker(u"anthropic"_s, clock, 2, 60s);
    QSignalSpy spy(&breaker, &CircuitBreaker::stateChanged);
    QList<qint64> expectedTimes;

    failTimes(breaker, 2, u"timeout"_s);                       // closed -> open
    expectedTimes << clock.wallMs();
    clock.advance(kCooldownMs);
    QCOMPARE(breaker.admit().verdict, Verdict::Trial);         // open -> half-open (cool-down)
    expectedTimes << clock.wallMs();
    clock.advance(1500);
    breaker.recordFailure(u"HTTP 503"_s, true);                // half-open -> open
    expectedTimes << clock.wallMs();
    clock.advance(2000);
    breaker.probeSucceeded();                                  // ignored: a trial has failed
    QCOMPARE(breaker.state(), BreakerState::Open);
    clock.advance(2 * kCooldownMs);
    breaker.onTimePassed();                                    // open -> half-open (doubled cool-down)
    expectedTimes << clock.wallMs();
    QCOMPARE(breaker.admit().verdict, Verdict::Trial);
    clock.advance(700);
    breaker.recordSuccess(true);                               // half-open -> closed
    expectedTimes << clock.wallMs();

    struct Expected { BreakerState from; BreakerState to; QString reasonPart; };
    const QList<Expected> expected{
        {BreakerState::Closed, BreakerState::Open, u"2 consecutive failures (last: timeout)"_s},
        {BreakerState::Open, BreakerState::HalfOpen, u"cool-down"_s},
        {BreakerState::HalfOpen, BreakerState::Open, u"trial request failed (HTTP 503)"_s},
        {BreakerState::Open, BreakerState::HalfOpen, u"cool-down"_s},
        {BreakerState::HalfOpen, BreakerState::Closed, u"trial request succeeded"_s},
    };
    QCOMPARE(spy.count(), expected.size());
    QCOMPARE(breaker.transitions(), int(expected.size()));
    for (qsizetype i = 0; i < expected.size(); ++i) {
        const BreakerTransition t = transitionAt(spy, i);
        QCOMPARE(t.upstream, u"anthropic"_s);
        QCOMPARE(t.from, expected[i].from);
        QCOMPARE(t.to, expected[i].to);
        QVERIFY2(t.reason.english().contains(expected[i].reasonPart), qPrintable(t.reason.english()));
        QCOMPARE(t.atMs, expectedTimes[i]);
    }
}

QTEST_GUILESS_MAIN(TestCircuitBreaker)
#include "tst_circuitbreaker.moc"
