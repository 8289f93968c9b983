// "In flight, now" through a real proxy: the snapshot's list of flights in progress (leader and
// joined riders, queue positions in a concurrency-1 pool, bytes and events of a slow stream, the
// breaker's trial, an injected fault) and the same list in /breakwater/stats. The mock's gate holds
// answers so the flights stay in flight; everything is counted, never timed.

#include "fakeclock.h"
#include "livesettings.h"
#include "proxyharness.h"
#include "sharing/inflight.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace std::chrono_literals;

namespace {
constexpr int kWait = 30000;   // ms: generous, for a loaded 2-core machine; never reached when it passes
const QByteArray kChat = "/v1/chat/completions";

QList<InFlight> flights(const ProxyHarness &harness)
{
    return harness.onProxyThread<QList<InFlight>>([](ProxyServer *p) { return p->snapshot().flights; });
}

QList<int> queuePositions(const QList<InFlight> &list)
{
    QList<int> positions;
    for (const InFlight &flight : list) {
        if (flight.state == InFlight::State::Queued)
            positions.append(flight.queuePosition);
    }
    return positions;
}
} // namespace

class TestInFlight final : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase() { qRegisterMetaType<CallRecord>(); }
    void identicalRequests_areOneFlightWithJoinedRiders();
    void concurrencyOne_queuedFlightsHavePositionsInSubmissionOrder();
    void slowStream_bytesAndEventsGrow();
    void halfOpenTrial_isMarkedAsTheTrial();
    void injectedFault_namesItsRule();
    void stats_listsTheFlightsAsJson();
    void hungUpRiders_areCounted_andAnAbandonedFlightSaysSo();
    void list_isCappedToTheOldest();
};

void TestInFlight::identicalRequests_areOneFlightWithJoinedRiders()
{
    ProxyHarness harness;
    harness.mock()->setHoldAnswers(true);
    QList<LoopbackClient *> calls;
    for (int i = 0; i < 5; ++i)
        calls.append(harness.start(kChat, chatBody(u"five of one"_s, false, u"gpt-4o"_s), kOpenAiAuth));
    QTRY_COMPARE_WITH_TIMEOUT(harness.ridersWaiting(), 5, kWait);
    QTRY_COMPARE_WITH_TIMEOUT(harness.mock()->heldCount(), 1, kWait);
    QTRY_COMPARE_WITH_TIMEOUT(flights(harness).value(0).state, InFlight::State::Waiting, kWait);

    const QList<InFlight> list = flights(harness);
    QCOMPARE(list.size(), 1);
    const InFlight &flight = list.first();
    QCOMPARE(flight.joined, 4);
    QCOMPARE(flight.hungUp, 0);
    QCOMPARE(flight.route, kChat);
    QCOMPARE(flight.upstream, "openai"_ba);
    QCOMPARE(flight.model, u"gpt-4o"_s);
    QCOMPARE(flight.stream, false);
    QCOMPARE(flight.bytes, 0);
    QCOMPARE(flight.trial, false);
    QVERIFY(flight.injected.isEmpty());
    QVERIFY(flight.ageMs >= 0);
    QVERIFY(flight.startedAtMs > 0);

    harness.mock()->releaseHeld();
    QTRY_VERIFY_WITH_TIMEOUT(allFinished(calls), kWait);
    QTRY_COMPARE_WITH_TIMEOUT(harness.records.size(), 5, kWait);
    // The leader is the rider who made the call: its request id is the miss's.
    const auto miss = std::find_if(harness.records.cbegin(), harness.records.cend(),
                                   [](const CallRecord &r) { return r.outcome == Outcome::Miss; });
    QVERIFY(miss != harness.records.cend());
    QCOMPARE(flight.requestId, miss->requestId);
    QTRY_VERIFY_WITH_TIMEOUT(flights(harness).isEmpty(), kWait);
}

void TestInFlight::concurrencyOne_queuedFlightsHavePositionsInSubmissionOrder()
{
    ProxyHarness harness([](ProxyConfig &c) { c.concurrency = 1; });
    harness.mock()->setHoldAnswers(true);
    QList<LoopbackClient *> calls;
    // One at a time, so the order of submission is known: each is on a flight before the next goes.
    for (int i = 0; i < 4; ++i) {
        calls.append(harness.start(kChat, chatBody(u"queued %1"_s.arg(i)), kOpenAiAuth));
        QTRY_COMPARE_WITH_TIMEOUT(flights(harness).size(), i + 1, kWait);
    }
    QTRY_COMPARE_WITH_TIMEOUT(harness.mock()->heldCount(), 1, kWait);
    QTRY_COMPARE_WITH_TIMEOUT(flights(harness).value(0).state, InFlight::State::Waiting, kWait);
    QList<InFlight> list = flights(harness);
    QCOMPARE(queuePositions(list), (QList<int>{1, 2, 3}));
    QCOMPARE(list.first().queuePosition, 0);
    for (int i = 0; i < 4; ++i)
        QVERIFY2(list[i].startedAtMs <= list.value(i + 1, list[i]).startedAtMs, "oldest first");

    // The first answer goes: the next in the queue starts and the others move up.
    harness.mock()->releaseHeld();
    QTRY_COMPARE_WITH_TIMEOUT(flights(harness).size(), 3, kWait);
    QTRY_COMPARE_WITH_TIMEOUT(flights(harness).value(0).state, InFlight::State::Waiting, kWait);
    QCOMPARE(queuePositions(flights(harness)), (QList<int>{1, 2}));

    harness.mock()->setHoldAnswers(false);
    QTRY_VERIFY_WITH_TIMEOUT(allFinished(calls), kWait);
    QTRY_VERIFY_WITH_TIMEOUT(flights(harness).isEmpty(), kWait);
}

void TestInFlight::slowStream_bytesAndEventsGrow()
{
    ProxyHarness harness;
    harness.mock()->setMode(MockProvider::Mode::SlowStream);
    harness.mock()->setSlowGap(150ms);
    LoopbackClient *call = harness.start(kChat, chatBody(u"a slow stream of many words to say"_s, true), kOpenAiAuth);
    QTRY_VERIFY_WITH_TIMEOUT(flights(harness).value(0).events >= 1, kWait);
    const InFlight early = flights(harness).value(0);
    QCOMPARE(early.state, InFlight::State::Streaming);
    QCOMPARE(early.stream, true);
    QVERIFY(early.bytes > 0);
    QTRY_VERIFY_WITH_TIMEOUT(flights(harness).value(0).events > early.events, kWait);
    const InFlight later = flights(harness).value(0);
    QVERIFY(later.bytes > early.bytes);
    QCOMPARE(later.requestId, early.requestId);
    QTRY_VERIFY_WITH_TIMEOUT(call->isFinished(), kWait);
    QTRY_VERIFY_WITH_TIMEOUT(flights(harness).isEmpty(), kWait);
}

void TestInFlight::halfOpenTrial_isMarkedAsTheTrial()
{
    FakeClock clock;   // the cool-down never passes by itself
    ProxyHarness harness({}, &clock);
    const auto act = [&harness](BreakerAction action) {
        return harness.onProxyThread<std::optional<bool>>([action](ProxyServer *p) { return p->actOnBreaker("openai", action); });
    };
    QCOMPARE(act(BreakerAction::Open), std::optional<bool>(true));
    QCOMPARE(act(BreakerAction::Probe), std::optional<bool>(true));
    QTRY_COMPARE_WITH_TIMEOUT(harness.transitions.size(), 2, kWait);
    QCOMPARE(harness.transitions.last().to, BreakerState::HalfOpen);

    harness.mock()->setHoldAnswers(true);
    LoopbackClient *trial = harness.start(kChat, chatBody(u"the trial"_s), kOpenAiAuth);
    QTRY_COMPARE_WITH_TIMEOUT(harness.mock()->heldCount(), 1, kWait);
    QTRY_COMPARE_WITH_TIMEOUT(flights(harness).size(), 1, kWait);
    QCOMPARE(flights(harness).first().trial, true);
    harness.mock()->setHoldAnswers(false);
    QTRY_VERIFY_WITH_TIMEOUT(trial->isFinished(), kWait);
    QCOMPARE(trial->response().status, 200);

    // Closed again, the next call is no trial.
    harness.mock()->setHoldAnswers(true);
    LoopbackClient *plain = harness.start(kChat, chatBody(u"after the trial"_s), kOpenAiAuth);
    QTRY_COMPARE_WITH_TIMEOUT(harness.mock()->heldCount(), 1, kWait);
    QTRY_COMPARE_WITH_TIMEOUT(flights(harness).size(), 1, kWait);
    QCOMPARE(flights(harness).first().trial, false);
    harness.mock()->setHoldAnswers(false);
    QTRY_VERIFY_WITH_TIMEOUT(plain->isFinished(), kWait);
}

void TestInFlight::injectedFault_namesItsRule()
{
    ProxyHarness harness([](ProxyConfig &c) {
        c.faults.append(FaultRule::parse(u"hang:upstream=openai"_s).value());
        c.upstreamTimeout = 60s;
    });
    LoopbackClient *call = harness.start(kChat, chatBody(u"hung on purpose"_s), kOpenAiAuth);
    QTRY_COMPARE_WITH_TIMEOUT(flights(harness).value(0).state, InFlight::State::Waiting, kWait);
    const InFlight flight = flights(harness).first();
    QVERIFY2(flight.injected.contains(u"hang"_s), qPrintable(flight.injected));
    call->hangUp();
    QTRY_VERIFY_WITH_TIMEOUT(flights(harness).isEmpty(), kWait);
}

void TestInFlight::stats_listsTheFlightsAsJson()
{
    ProxyHarness harness([](ProxyConfig &c) { c.concurrency = 1; });
    harness.mock()->setHoldAnswers(true);
    QList<LoopbackClient *> calls;
    calls.append(harness.start(kChat, chatBody(u"stats one"_s), kOpenAiAuth));
    QTRY_COMPARE_WITH_TIMEOUT(harness.mock()->heldCount(), 1, kWait);
    calls.append(harness.start(kChat, chatBody(u"stats one"_s), kOpenAiAuth));
    calls.append(harness.start(kChat, chatBody(u"stats two"_s), kOpenAiAuth));
    QTRY_COMPARE_WITH_TIMEOUT(harness.ridersWaiting(), 3, kWait);

    const LoopbackResponse stats = harness.control("GET", "/breakwater/stats");
    QCOMPARE(stats.status, 200);
    const QJsonObject root = QJsonDocument::fromJson(stats.body).object();
    const QJsonArray list = root.value(u"flights"_s).toArray();
    QCOMPARE(list.size(), 2);
    QCOMPARE(root.value(u"flightsOmitted"_s).toInt(-1), 0);
    const QJsonObject first = list.at(0).toObject();
    QCOMPARE(first.value(u"route"_s).toString(), QString::fromLatin1(kChat));
    QCOMPARE(first.value(u"upstream"_s).toString(), u"openai"_s);
    QCOMPARE(first.value(u"model"_s).toString(), u"gpt-4o-mini"_s);
    QCOMPARE(first.value(u"joined"_s).toInt(), 1);
    QCOMPARE(first.value(u"state"_s).toString(), u"waiting"_s);
    QCOMPARE(first.value(u"trial"_s).toBool(true), false);
    QVERIFY(!first.value(u"requestId"_s).toString().isEmpty());
    QVERIFY(first.value(u"ageMs"_s).toInteger(-1) >= 0);
    QVERIFY(!first.contains(u"queuePosition"_s));
    const QJsonObject second = list.at(1).toObject();
    QCOMPARE(second.value(u"state"_s).toString(), u"queued"_s);
    QCOMPARE(second.value(u"queuePosition"_s).toInt(), 1);
    QCOMPARE(second.value(u"joined"_s).toInt(), 0);

    harness.mock()->setHoldAnswers(false);
    QTRY_VERIFY_WITH_TIMEOUT(allFinished(calls), kWait);
    QTRY_VERIFY_WITH_TIMEOUT(QJsonDocument::fromJson(harness.control("GET", "/breakwater/stats").body)
                                 .object().value(u"flights"_s).toArray().isEmpty(), kWait);
}

void TestInFlight::hungUpRiders_areCounted_andAnAbandonedFlightSaysSo()
{
    ProxyHarness harness;   // the cache is on, so an abandoned flight runs on for the grace time
    harness.mock()->setHoldAnswers(true);
    LoopbackClient *leader = harness.start(kChat, chatBody(u"left behind"_s), kOpenAiAuth);
    QTRY_COMPARE_WITH_TIMEOUT(harness.mock()->heldCount(), 1, kWait);
    LoopbackClient *rider = harness.start(kChat, chatBody(u"left behind"_s), kOpenAiAuth);
    QTRY_COMPARE_WITH_TIMEOUT(harness.ridersWaiting(), 2, kWait);
    rider->hangUp();
    QTRY_COMPARE_WITH_TIMEOUT(flights(harness).value(0).hungUp, 1, kWait);
    QCOMPARE(flights(harness).first().joined, 1);
    QCOMPARE(flights(harness).first().state, InFlight::State::Waiting);
    leader->hangUp();
    QTRY_COMPARE_WITH_TIMEOUT(flights(harness).value(0).state, InFlight::State::Abandoned, kWait);
    QCOMPARE(flights(harness).first().hungUp, 2);
    harness.mock()->setHoldAnswers(false);
    QTRY_VERIFY_WITH_TIMEOUT(flights(harness).isEmpty(), kWait);
}

void TestInFlight::list_isCappedToTheOldest()
{
    ProxyHarness harness([](ProxyConfig &c) { c.concurrency = 1; c.maxQueued = 500; });
    harness.mock()->setHoldAnswers(true);
    QList<LoopbackClient *> calls;
    const int count = InFlight::kMaxListed + 5;
    for (int i = 0; i < count; ++i)
        calls.append(harness.start(kChat, chatBody(u"many %1"_s.arg(i)), kOpenAiAuth));
    QTRY_COMPARE_WITH_TIMEOUT(harness.ridersWaiting(), count, kWait);
    const ProxySnapshot snapshot = harness.onProxyThread<ProxySnapshot>([](ProxyServer *p) { return p->snapshot(); });
    QCOMPARE(snapshot.flights.size(), InFlight::kMaxListed);
    QCOMPARE(snapshot.flightsOmitted, 5);
    for (qsizetype i = 1; i < snapshot.flights.size(); ++i)
        QVERIFY(snapshot.flights[i - 1].startedAtMs <= snapshot.flights[i].startedAtMs);
    harness.mock()->setHoldAnswers(false);
    QTRY_VERIFY_WITH_TIMEOUT(allFinished(calls), kWait);
}

QTEST_GUILESS_MAIN(TestInFlight)
#include "tst_inflight.moc"
