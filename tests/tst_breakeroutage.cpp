// A provider outage through a real proxy: the breaker opens after a few upstream failures (5xx or
// timeouts, never a 4xx), refuses at once in the route's own error shape without calling the
// provider, and recovers through the health probe without waiting out its cool-down. Real sockets
// on loopback; the breaker's clock is a FakeClock, so the cool-down can only pass when a test says so.

#include "fakeclock.h"
#include "proxyharness.h"
#include "sharing/flight.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace std::chrono_literals;

namespace {
constexpr int kWait = 30000;   // ms: generous, for a loaded 2-core machine; never reached when it passes
const QByteArray kChat = "/v1/chat/completions";
const QByteArray kMessages = "/v1/messages";

void smallBreaker(ProxyConfig &config)
{
    config.breakerFailures = 3;
    config.breakerCooldown = 60s;
    config.breakerProbeInterval = 100ms;
}

QJsonObject json(const QByteArray &body)
{
    return QJsonDocument::fromJson(body).object();
}

BreakerState openaiBreakerState(const ProxyHarness &harness)
{
    return harness.onProxyThread<BreakerState>([](ProxyServer *p) { return p->openai().breaker->state(); });
}

int openaiFailures(const ProxyHarness &harness)
{
    return harness.onProxyThread<int>([](ProxyServer *p) { return p->openai().breaker->consecutiveFailures(); });
}

// A refusal by an open breaker: 503, no retry by the SDK, a whole-second retry-after of at most 60,
// and the breaker's state in our header. Returns the retry-after seconds (0 when the check failed).
int checkRefusal(const LoopbackResponse &response, const QByteArray &state = "open")
{
    if (response.status != 503 || response.header("x-should-retry") != "false"
        || response.header("x-breakwater-breaker") != state) {
        qWarning() << "not a breaker refusal:" << response.status << response.headers << response.body;
        return 0;
    }
    bool whole = false;
    const int seconds = response.header("retry-after").toInt(&whole);
    if (!whole || seconds < 1 || seconds > 60) {
        qWarning() << "bad retry-after:" << response.header("retry-after");
        return 0;
    }
    return seconds;
}

QString transitionText(const BreakerTransition &t)
{
    return u"%1: %2 -> %3 (%4)"_s.arg(t.upstream, QString::fromLatin1(breakerStateName(t.from)),
                                      QString::fromLatin1(breakerStateName(t.to)), t.reason.english());
}
} // namespace

class TestBreakerOutage final : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void outage_opensAfterThreeFailures_refusesUntilProbeSeesRecovery();
    void anthropicOutage_refusesWithOverloadedError_openaiUnaffected();
    void openBreaker_stillServesCachedAnswers();
    void hang_timeoutsCountAsFailuresAndOpen();
    void hang_callsStuckPastHalfTheTimeout_countAtTheFirstTimeout();
    void slowHealthyModel_longWaitsWithoutATimeout_neverCount();
    void clientErrorsFromUpstream_neverOpen_data();
    void clientErrorsFromUpstream_neverOpen();
    void herdOnOneFailedCall_countsOnce_thenWholeHerdRefused();
    void halfOpen_onlyTheTrialAndItsRidersReachUpstream();
    void failedTrial_reopens();
    void streamedTrial_closesAtItsFirstByte_othersAdmittedWhileItStreams();
};

void TestBreakerOutage::initTestCase()
{
    qRegisterMetaType<BreakerTransition>();
    qRegisterMetaType<CallRecord>();
}

void TestBreakerOutage::outage_opensAfterThreeFailures_refusesUntilProbeSeesRecovery()
{
    FakeClock clock;   // never moved past the cool-down: only the probe can end the outage early
    ProxyHarness harness(smallBreaker, &clock);
    harness.mock()->setMode(MockProvider::Mode::Error503);

    for (int i = 0; i < 3; ++i) {
        const LoopbackResponse failed = harness.post(kChat, chatBody(u"outage %1"_s.arg(i)));
        QCOMPARE(failed.status, 503);   // the provider's own 503, passed through
        QCOMPARE(failed.header("x-breakwater-breaker"), "closed"_ba);
        QCOMPARE(failed.header("x-breakwater-dedup"), "miss"_ba);
    }
    QCOMPARE(harness.mock()->callCount(u"/v1/chat/completions"_s), 3);
    QTRY_COMPARE_WITH_TIMEOUT(harness.transitions.size(), 1, kWait);
    QCOMPARE(openaiBreakerState(harness), BreakerState::Open);

    // Refused inside the proxy: new prompts, a repeat of a failed one, and a streaming request.
    const QList<QByteArray> refusedBodies{chatBody(u"while open 1"_s), chatBody(u"outage 0"_s),
                                          chatBody(u"while open 2"_s, true)};
    for (const QByteArray &body : refusedBodies) {
        const LoopbackResponse refused = harness.post(kChat, body);
        QCOMPARE(checkRefusal(refused), 60);   // the fake clock stands still: the whole cool-down
        const QJsonObject error = json(refused.body).value(u"error"_s).toObject();
        QCOMPARE(error.value(u"code"_s).toString(), u"breaker_open"_s);
        QVERIFY(!error.value(u"message"_s).toString().isEmpty());
        QVERIFY(error.contains(u"type"_s) && error.contains(u"param"_s));
    }
    clock.advance(25'000);
    QCOMPARE(checkRefusal(harness.post(kChat, chatBody(u"while open 3"_s))), 35);   // counting down
    QCOMPARE(harness.mock()->callCount(u"/v1/chat/completions"_s), 3);   // the provider was spared

    // The probe keeps asking (and the failing provider keeps the breaker open).
    QTRY_VERIFY_WITH_TIMEOUT(harness.mock()->callCount(u"/v1/models"_s) >= 2, kWait);
    QCOMPARE(openaiBreakerState(harness), BreakerState::Open);
    QCOMPARE(harness.transitions.size(), 1);

    // The provider is back: the probe sees it long before the 60 s cool-down.
    harness.mock()->setMode(MockProvider::Mode::Ok);
    QTRY_COMPARE_WITH_TIMEOUT(harness.transitions.size(), 2, kWait);
    const LoopbackResponse trial = harness.post(kChat, chatBody(u"trial"_s));
    QCOMPARE(trial.status, 200);
    QCOMPARE(trial.header("x-breakwater-breaker"), "half-open"_ba);
    QTRY_COMPARE_WITH_TIMEOUT(harness.transitions.size(), 3, kWait);
    QCOMPARE(openaiBreakerState(harness), BreakerState::Closed);
    for (int i = 0; i < 3; ++i) {
        const LoopbackResponse flowing = harness.post(kChat, chatBody(u"after %1"_s.arg(i)));
        QCOMPARE(flowing.status, 200);
        QCOMPARE(flowing.header("x-breakwater-breaker"), "closed"_ba);
    }
    QCOMPARE(harness.mock()->callCount(u"/v1/chat/completions"_s), 3 + 1 + 3);

    struct Expected { BreakerState from; BreakerState to; QString reasonPart; };
    const QList<Expected> expected{
        {BreakerState::Closed, BreakerState::Open, u"3 consecutive failures (last: HTTP 503)"_s},
        {BreakerState::Open, BreakerState::HalfOpen, u"probe"_s},
        {BreakerState::HalfOpen, BreakerState::Closed, u"trial request succeeded"_s},
    };
    QCOMPARE(harness.transitions.size(), expected.size());
    for (qsizetype i = 0; i < expected.size(); ++i) {
        const BreakerTransition &t = harness.transitions[i];
        QVERIFY2(t.upstream == u"openai"_s && t.from == expected[i].from && t.to == expected[i].to
                     && t.reason.english().contains(expected[i].reasonPart),
                 qPrintable(transitionText(t)));
        if (i > 0)
            QVERIFY(t.atMs >= harness.transitions[i - 1].atMs);
    }
    QTRY_COMPARE(harness.countOutcome(Outcome::BreakerRefused), 4);
}

void TestBreakerOutage::anthropicOutage_refusesWithOverloadedError_openaiUnaffected()
{
    ProxyHarness harness(smallBreaker);
    harness.mock()->setMode(MockProvider::Mode::Error503);
    for (int i = 0; i < 3; ++i)
        QCOMPARE(harness.post(kMessages, messagesBody(u"claude down %1"_s.arg(i)), kAnthropicAuth).status, 503);
    QCOMPARE(harness.mock()->callCount(u"/v1/messages"_s), 3);

    const LoopbackResponse refused = harness.post(kMessages, messagesBody(u"claude refused"_s), kAnthropicAuth);
    QVERIFY(checkRefusal(refused) > 0);
    const QJsonObject root = json(refused.body);
    QCOMPARE(root.value(u"type"_s).toString(), u"error"_s);
    QCOMPARE(root.value(u"error"_s).toObject().value(u"type"_s).toString(), u"overloaded_error"_s);
    QVERIFY(!root.value(u"error"_s).toObject().value(u"message"_s).toString().isEmpty());
    QCOMPARE(harness.mock()->callCount(u"/v1/messages"_s), 3);

    // Each upstream has its own breaker: OpenAI traffic still reaches the provider.
    harness.mock()->setMode(MockProvider::Mode::Ok);
    const LoopbackResponse openai = harness.post(kChat, chatBody(u"still fine"_s));
    QCOMPARE(openai.status, 200);
    QCOMPARE(openai.header("x-breakwater-breaker"), "closed"_ba);

    // Its own probe (GET /v1/models on the Anthropic base) sees the provider back.
    QTRY_COMPARE_WITH_TIMEOUT(harness.transitions.size(), 2, kWait);
    const LoopbackResponse trial = harness.post(kMessages, messagesBody(u"claude trial"_s), kAnthropicAuth);
    QCOMPARE(trial.status, 200);
    QCOMPARE(trial.header("x-breakwater-breaker"), "half-open"_ba);
    QTRY_COMPARE_WITH_TIMEOUT(harness.transitions.size(), 3, kWait);
    const QList<BreakerState> to{BreakerState::Open, BreakerState::HalfOpen, BreakerState::Closed};
    for (qsizetype i = 0; i < to.size(); ++i) {
        QCOMPARE(harness.transitions[i].upstream, u"anthropic"_s);
        QCOMPARE(harness.transitions[i].to, to[i]);
    }
    QVERIFY(harness.transitions[1].reason.english().contains(u"probe"_s));
}

void TestBreakerOutage::openBreaker_stillServesCachedAnswers()
{
    // The breaker guards the provider, not the cache: an answer that costs no upstream call is given.
    ProxyHarness harness(smallBreaker);
    const QByteArray kept = chatBody(u"answered before the outage"_s);
    const LoopbackResponse before = harness.post(kChat, kept);
    QCOMPARE(before.status, 200);
    harness.mock()->setMode(MockProvider::Mode::Error503);
    for (int i = 0; i < 3; ++i)
        QCOMPARE(harness.post(kChat, chatBody(u"fail %1"_s.arg(i))).status, 503);
    QCOMPARE(openaiBreakerState(harness), BreakerState::Open);
    const LoopbackResponse hit = harness.post(kChat, kept);
    QCOMPARE(hit.status, 200);
    QCOMPARE(hit.header("x-breakwater-dedup"), "hit"_ba);
    QCOMPARE(hit.header("x-breakwater-breaker"), "open"_ba);
    QCOMPARE(hit.body, before.body);
    QVERIFY(checkRefusal(harness.post(kChat, chatBody(u"new while open"_s))) > 0);
    QCOMPARE(harness.mock()->callCount(u"/v1/chat/completions"_s), 1 + 3);
}

void TestBreakerOutage::hang_timeoutsCountAsFailuresAndOpen()
{
    ProxyHarness harness([](ProxyConfig &c) {
        smallBreaker(c);
        c.upstreamTimeout = 200ms;
    });
    harness.mock()->setMode(MockProvider::Mode::Hang);
    for (int i = 0; i < 3; ++i) {
        const LoopbackResponse timedOut = harness.post(kChat, chatBody(u"hung %1"_s.arg(i)));
        QCOMPARE(timedOut.status, 504);
        QCOMPARE(timedOut.header("x-should-retry"), "false"_ba);
    }
    const LoopbackResponse refused = harness.post(kChat, chatBody(u"after the hang"_s));
    QVERIFY(checkRefusal(refused) > 0);
    QCOMPARE(json(refused.body).value(u"error"_s).toObject().value(u"code"_s).toString(), u"breaker_open"_s);
    QCOMPARE(harness.mock()->callCount(u"/v1/chat/completions"_s), 3);
    QTRY_COMPARE_WITH_TIMEOUT(harness.transitions.size(), 1, kWait);
    QVERIFY2(harness.transitions.first().reason.english().contains(u"timeout"_s),
             qPrintable(transitionText(harness.transitions.first())));
}

// The stuck-call rule: once one call timed out, the others that waited half the timeout without a
// byte count at once, so the breaker opens at the first timeout here instead of the third.
void TestBreakerOutage::hang_callsStuckPastHalfTheTimeout_countAtTheFirstTimeout()
{
    FakeClock clock;   // the calls' waits are measured on it; the timeout itself is real time
    ProxyHarness harness([](ProxyConfig &c) {
        smallBreaker(c);
        c.upstreamTimeout = 1500ms;
    }, &clock);
    // A fast model (its answer takes no time on the clock) that then hangs: what it needs is known.
    QCOMPARE(harness.post(kChat, chatBody(u"fast and well"_s)).status, 200);
    harness.mock()->setMode(MockProvider::Mode::Hang);
    for (int i = 0; i < 3; ++i)
        harness.start(kChat, chatBody(u"stuck %1"_s.arg(i)));
    QTRY_COMPARE_WITH_TIMEOUT(harness.mock()->inFlight(), 3, kWait);
    clock.advance(1000);   // each has now waited 1 s without a byte: over half the timeout
    QTRY_COMPARE_WITH_TIMEOUT(harness.transitions.size(), 1, kWait);
    // Opened by the first timeout and the two calls it proved stuck, not by the third timeout.
    QVERIFY2(harness.transitions.first().reason.english().contains(u"stuck"_s),
             qPrintable(transitionText(harness.transitions.first())));
    QTRY_COMPARE_WITH_TIMEOUT(harness.records.size(), 4, kWait);
    for (const CallRecord &record : harness.records.mid(1))
        QCOMPARE(record.status, 504);   // each still answered as its own timeout
    QCOMPARE(harness.mock()->callCount(u"/v1/chat/completions"_s), 4);
}

// Without a timeout nothing counts, however long calls wait: a slow model is not a hung one.
void TestBreakerOutage::slowHealthyModel_longWaitsWithoutATimeout_neverCount()
{
    FakeClock clock;
    ProxyHarness harness([](ProxyConfig &c) {
        smallBreaker(c);
        c.upstreamTimeout = 5s;
    }, &clock);
    harness.mock()->setLatency(300ms);
    QList<LoopbackClient *> calls;
    for (int i = 0; i < 4; ++i)
        calls.append(harness.start(kChat, chatBody(u"slow %1"_s.arg(i))));
    QTRY_COMPARE_WITH_TIMEOUT(harness.mock()->inFlight(), 4, kWait);
    clock.advance(60000);   // a minute "without a byte", by the clock the rule reads
    QTRY_COMPARE_WITH_TIMEOUT(harness.records.size(), 4, kWait);
    for (LoopbackClient *call : std::as_const(calls))
        QCOMPARE(call->response().status, 200);
    QCOMPARE(openaiFailures(harness), 0);
    QVERIFY(harness.transitions.isEmpty());
}

void TestBreakerOutage::clientErrorsFromUpstream_neverOpen_data()
{
    QTest::addColumn<bool>("wrongPath");
    QTest::addColumn<int>("status");
    QTest::newRow("429 rate limited") << false << 429;
    QTest::newRow("404 from the provider") << true << 404;
}

void TestBreakerOutage::clientErrorsFromUpstream_neverOpen()
{
    QFETCH(bool, wrongPath);
    QFETCH(int, status);
    ProxyHarness harness([wrongPath](ProxyConfig &c) {
        smallBreaker(c);
        if (wrongPath) {
            QUrl url = c.openaiUpstream;
            url.setPath(u"/no-such-prefix/v1"_s);   // the mock answers 404 to every path under it
            c.openaiUpstream = url;
        }
    });
    if (!wrongPath)
        harness.mock()->setMode(MockProvider::Mode::RateLimited429);
    for (int i = 0; i < 6; ++i) {
        const LoopbackResponse response = harness.post(kChat, chatBody(u"client error %1"_s.arg(i)));
        QCOMPARE(response.status, status);
        QCOMPARE(response.header("x-breakwater-breaker"), "closed"_ba);
    }
    QCOMPARE(harness.mock()->callCount(), 6);   // every one reached the provider
    QCOMPARE(openaiBreakerState(harness), BreakerState::Closed);
    QCOMPARE(openaiFailures(harness), 0);
    QVERIFY(harness.transitions.isEmpty());
}

void TestBreakerOutage::herdOnOneFailedCall_countsOnce_thenWholeHerdRefused()
{
    ProxyHarness harness(smallBreaker);
    harness.mock()->setMode(MockProvider::Mode::Error503);
    harness.mock()->setHoldAnswers(true);
    constexpr int kHerd = 20;
    for (int round = 1; round <= 3; ++round) {
        QList<LoopbackClient *> herd;
        for (int i = 0; i < kHerd; ++i)
            herd.append(harness.start(kChat, chatBody(u"herd round %1"_s.arg(round))));
        QTRY_COMPARE_WITH_TIMEOUT(harness.ridersWaiting(), kHerd, kWait);
        QTRY_COMPARE_WITH_TIMEOUT(harness.mock()->heldCount(), 1, kWait);
        harness.mock()->releaseHeld();
        QTRY_VERIFY_WITH_TIMEOUT(allFinished(herd), kWait);
        for (const LoopbackClient *call : herd)
            QCOMPARE(call->response().status, 503);   // all share the one failed call's answer
        QCOMPARE(harness.mock()->callCount(u"/v1/chat/completions"_s), round);
        // The breaker heard one failure per upstream call, not one per rider.
        if (round < 3) {
            QCOMPARE(openaiFailures(harness), round);
            QCOMPARE(openaiBreakerState(harness), BreakerState::Closed);
        }
    }
    QCOMPARE(openaiBreakerState(harness), BreakerState::Open);

    // The next herd is refused whole, at once: no flight, no upstream call.
    QList<LoopbackClient *> refusedHerd;
    for (int i = 0; i < kHerd; ++i)
        refusedHerd.append(harness.start(kChat, chatBody(u"herd while open"_s)));
    QTRY_VERIFY_WITH_TIMEOUT(allFinished(refusedHerd), kWait);
    for (const LoopbackClient *call : refusedHerd)
        QVERIFY(checkRefusal(call->response()) > 0);
    QCOMPARE(harness.mock()->callCount(u"/v1/chat/completions"_s), 3);   // (the gate may hold a probe)
    QCOMPARE(harness.onProxyThread<int>([](ProxyServer *p) { return p->flightsInProgress(); }), 0);
}

void TestBreakerOutage::halfOpen_onlyTheTrialAndItsRidersReachUpstream()
{
    FakeClock clock;
    ProxyHarness harness(smallBreaker, &clock);
    harness.mock()->setMode(MockProvider::Mode::Error503);
    for (int i = 0; i < 3; ++i)
        QCOMPARE(harness.post(kChat, chatBody(u"fail %1"_s.arg(i))).status, 503);
    QCOMPARE(openaiBreakerState(harness), BreakerState::Open);
    harness.mock()->setMode(MockProvider::Mode::Ok);
    QTRY_COMPARE_WITH_TIMEOUT(openaiBreakerState(harness), BreakerState::HalfOpen, kWait);   // via the probe
    harness.mock()->setHoldAnswers(true);   // only now: the gate would hold the probe too

    LoopbackClient *trial = harness.start(kChat, chatBody(u"the trial"_s));
    QTRY_COMPARE_WITH_TIMEOUT(harness.mock()->heldCount(), 1, kWait);
    LoopbackClient *rider = harness.start(kChat, chatBody(u"the trial"_s));   // identical: rides the trial
    QTRY_COMPARE_WITH_TIMEOUT(harness.ridersWaiting(), 2, kWait);
    const LoopbackResponse other = harness.post(kChat, chatBody(u"another prompt"_s));
    QCOMPARE(checkRefusal(other, "half-open"), 1);   // the trial decides within one timeout
    QCOMPARE(harness.mock()->heldCount(), 1);

    harness.mock()->releaseHeld();
    QTRY_VERIFY_WITH_TIMEOUT(trial->isFinished() && rider->isFinished(), kWait);
    QCOMPARE(trial->response().status, 200);
    QCOMPARE(trial->response().header("x-breakwater-dedup"), "miss"_ba);
    QCOMPARE(rider->response().status, 200);
    QCOMPARE(rider->response().header("x-breakwater-dedup"), "joined"_ba);
    QCOMPARE(openaiBreakerState(harness), BreakerState::Closed);
    QCOMPARE(harness.mock()->callCount(u"/v1/chat/completions"_s), 3 + 1);
}

void TestBreakerOutage::failedTrial_reopens()
{
    FakeClock clock;
    ProxyHarness harness(smallBreaker, &clock);
    harness.mock()->setMode(MockProvider::Mode::Error503);
    for (int i = 0; i < 3; ++i)
        QCOMPARE(harness.post(kChat, chatBody(u"fail %1"_s.arg(i))).status, 503);
    clock.advance(60'000);   // the cool-down passes (the probe, seeing 503s, never moved it)
    const LoopbackResponse trial = harness.post(kChat, chatBody(u"failing trial"_s));
    QCOMPARE(trial.status, 503);
    QCOMPARE(trial.header("x-breakwater-breaker"), "half-open"_ba);
    QCOMPARE(openaiBreakerState(harness), BreakerState::Open);
    // Re-opened with twice the cool-down: 120 s, shown as at most 60.
    QCOMPARE(harness.onProxyThread<qint64>([](ProxyServer *p) { return p->openai().breaker->currentCooldownMs(); }),
             qint64(120'000));
    QCOMPARE(checkRefusal(harness.post(kChat, chatBody(u"refused"_s))), 60);
    QCOMPARE(harness.mock()->callCount(u"/v1/chat/completions"_s), 4);
    QTRY_COMPARE_WITH_TIMEOUT(harness.transitions.size(), 3, kWait);
    QVERIFY2(harness.transitions[2].reason.english().contains(u"trial request failed"_s),
             qPrintable(transitionText(harness.transitions[2])));
}

// Issue 12: a half-open trial that is a long stream held every other request at 503 for as long as
// it streamed. A 2xx stream that has begun is proof enough that the provider is back.
void TestBreakerOutage::streamedTrial_closesAtItsFirstByte_othersAdmittedWhileItStreams()
{
    FakeClock clock;   // the cool-down passes only when the test says so
    ProxyHarness harness([](ProxyConfig &c) {
        smallBreaker(c);
        c.breakerProbeInterval = 3600s;   // no probe: the trial is the only way back
    }, &clock);
    harness.mock()->setMode(MockProvider::Mode::Error503);
    for (int i = 0; i < 3; ++i)
        QCOMPARE(harness.post(kChat, chatBody(u"down %1"_s.arg(i))).status, 503);
    QTRY_COMPARE_WITH_TIMEOUT(openaiBreakerState(harness), BreakerState::Open, kWait);
    harness.mock()->setMode(MockProvider::Mode::SlowStream);
    harness.mock()->setSlowGap(30s);   // the trial's stream begins, then takes its time
    clock.advance(61'000);
    LoopbackClient *trial = harness.start(kChat, chatBody(u"the trial"_s, true));
    QTRY_VERIFY_WITH_TIMEOUT(!trial->response().chunks.isEmpty(), kWait);
    QTRY_COMPARE_WITH_TIMEOUT(openaiBreakerState(harness), BreakerState::Closed, kWait);
    QVERIFY(!trial->isFinished());   // still streaming
    const LoopbackResponse other = harness.post(kChat, chatBody(u"another prompt"_s));
    QCOMPARE(other.status, 200);
    QCOMPARE(other.header("x-breakwater-breaker"), "closed"_ba);
}

QTEST_GUILESS_MAIN(TestBreakerOutage)
#include "tst_breakeroutage.moc"
