// Several real `breakwater --headless` processes sharing one redis-server (FleetTest): shared
// answers, one breaker for the fleet, and what happens when Redis dies, stalls or comes back.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTest>

#include "fakeclock.h"
#include "fleettest.h"
#include "loopbackclient.h"
#include "proxyharness.h"
#include "upstream/circuitbreaker.h"

using namespace Qt::StringLiterals;

namespace {

constexpr int kConverge = 5'000;   // ms: a bounded wait for eventual state, never reached when it passes

HeaderList openAiAuth(const QByteArray &key)
{
    return {{"Authorization", "Bearer " + key}, {"Content-Type", "application/json"}};
}

LoopbackResponse chat(quint16 port, const QString &prompt, const QByteArray &key = "sk-fleet-1")
{
    return fetch(port, "POST", "/v1/chat/completions", openAiAuth(key), chatBody(prompt), std::chrono::seconds(10));
}

// What an instance's /metrics says of one breaker: "open", "closed" or "half-open".
QByteArray breakerState(quint16 port, const QByteArray &upstream = "openai")
{
    const LoopbackResponse metrics = fetch(port, "GET", "/metrics");
    for (const QByteArray &line : metrics.body.split('\n')) {
        if (line.startsWith("breakwater_breaker_state{") && line.contains(QByteArray("upstream=\"" + upstream + '"'))
            && line.endsWith(" 1")) {
            const qsizetype from = line.indexOf("state=\"") + 7;
            return line.mid(from, line.indexOf('"', from) - from);
        }
    }
    return {};
}

int keysInRedis(const FleetTest &fleet, const QByteArray &pattern)
{
    const QByteArray reply = fleet.redisCommand({"EVAL", "return #redis.call('KEYS', ARGV[1])", "0", pattern});
    return reply.startsWith(':') ? reply.mid(1).toInt() : -1;
}

int answersInRedis(const FleetTest &fleet)
{
    return keysInRedis(fleet, "bw:v1:*:ans");
}

// Requests seated on a flight over the whole fleet now, from each instance's In flight list: the
// one that made the flight and those that joined it there.
int seatedRiders(const FleetTest &fleet)
{
    int seated = 0;
    for (int i = 0; i < fleet.instances(); ++i) {
        const LoopbackResponse stats = fetch(fleet.port(i), "GET", "/breakwater/stats",
                                             {{"Authorization", "Bearer " + fleet.controlToken(i)}});
        for (const QJsonValue flight : QJsonDocument::fromJson(stats.body).object().value(u"flights"_s).toArray())
            seated += flight.toObject().value(u"joined"_s).toInt() + 1;
    }
    return seated;
}

LoopbackClient *startChat(quint16 port, const QByteArray &body, QObject *parent, const QByteArray &key = "sk-fleet-1")
{
    auto *call = new LoopbackClient(port, "POST", "/v1/chat/completions", openAiAuth(key), body, parent);
    call->setTimeout(std::chrono::seconds(30));
    call->start();
    return call;
}

void holdAnswers(FleetTest &fleet, bool hold)
{
    fleet.onMock<int>([hold](MockProvider *mock) { mock->setHoldAnswers(hold); return 0; });
}

// One leader's call held by the mock on instance 0, and a joiner of it on each of instances 1 and 2.
// Empty if the fleet never got there.
QList<LoopbackClient *> seatLeaderAndTwoJoiners(FleetTest &fleet, const QByteArray &body, QObject *parent)
{
    holdAnswers(fleet, true);
    QList<LoopbackClient *> calls{startChat(fleet.port(0), body, parent)};
    if (!QTest::qWaitFor([&] { return fleet.mock()->heldCount() == 1; }, 20'000))
        return {};
    calls << startChat(fleet.port(1), body, parent) << startChat(fleet.port(2), body, parent);
    if (!QTest::qWaitFor([&] { return seatedRiders(fleet) == 3; }, 20'000))
        return {};
    return calls;
}

QString sharedState(const FleetTest &fleet, int instance)
{
    return fleet.health(instance).value(u"shared_state"_s).toString();
}

bool allShared(const FleetTest &fleet)
{
    for (int i = 0; i < fleet.instances(); ++i) {
        if (sharedState(fleet, i) != u"shared"_s)
            return false;
    }
    return true;
}

// Redis, then `instances` instances with `extra` options, all of them shared (bounded waits).
bool startSharedFleet(FleetTest &fleet, int instances, const QStringList &extra = {})
{
    if (!fleet.startRedis())
        return false;
    for (int i = 0; i < instances; ++i) {
        if (fleet.startInstance(extra) < 0)
            return false;
    }
    return QTest::qWaitFor([&] { return allShared(fleet); }, kConverge);
}

// The "fleet" object of an instance's /breakwater/stats.
QJsonObject fleetView(const FleetTest &fleet, int instance)
{
    const LoopbackResponse stats = fetch(fleet.port(instance), "GET", "/breakwater/stats",
                                         {{"Authorization", "Bearer " + fleet.controlToken(instance)}});
    return QJsonDocument::fromJson(stats.body).object().value(u"fleet"_s).toObject();
}

// What instance `from` lists of the fleet: "port:calls" for each live instance, sorted, so a
// wrong count and a missing or extra instance both show in one comparison.
QStringList listedCalls(const FleetTest &fleet, int from)
{
    QStringList listed;
    for (const QJsonValue value : fleetView(fleet, from).value(u"instances"_s).toArray()) {
        const QJsonObject instance = value.toObject();
        listed << u"%1:%2"_s.arg(instance.value(u"label"_s).toString().section(u':', -1))
                      .arg(instance.value(u"calls"_s).toInteger());
    }
    listed.sort();
    return listed;
}

} // namespace

class TestFleet final : public QObject
{
    Q_OBJECT
private slots:
    void malformedUrl_exitsTwo_withoutThePassword();
    void finishedAnswer_isAHitOnEveryOtherInstance();
    void twoCredentials_twoUpstreamCalls();
    void herdOverThreeInstances_oneUpstreamCall();
    void streamOverThreeInstances_sameBytesForMidStreamJoiners();
    void twoCredentialsInFlight_oneCallEach();
    void leaderKilledMidStream_joinersGetAnErrorEvent_noLeaseLeft();
    void leaderKilledBeforeAnswer_oneJoinerTakesOver();
    void joinerLateToATakeover_passesItsStoredAnswer();
    void leadersCallerHangsUp_joinerElsewhereStillAnswered();
    void fleetFaultRule_armedOnEveryInstance_disarmedFromAny();
    void failuresOnDifferentInstances_openTheBreakerOnAll();
    void holdOpen_neverShortensALiveDeadline();
    void redisKilledPausedRestarted_callsAnswered_degradedAppearsAndClears();
    void unreachableAtStart_startsDegraded_thenJoins();
    void spendCap_isOneBudgetForTheFleet();
    void wrongPassword_degraded_withoutThePassword();
    void refusedWrites_degraded_untilRedisTakesThemAgain();
    void fleetView_listsEveryLiveInstanceAndItsCalls_untilOneDies();
};

void TestFleet::malformedUrl_exitsTwo_withoutThePassword()
{
    for (const QString &url : {u"redis://:hunter2secret@127.0.0.1"_s, u"http://:hunter2secret@127.0.0.1:6379"_s,
                               u"redis://:hunter2secret@127.0.0.1:6379/x"_s}) {
        QProcess process;
        process.start(QStringLiteral(BREAKWATER_APP), {u"--headless"_s, u"--shared-state"_s, url});
        QVERIFY(process.waitForFinished(30'000));
        QCOMPARE(process.exitCode(), 2);
        const QByteArray err = process.readAllStandardError();
        QVERIFY2(err.contains("--shared-state"), err.constData());
        QVERIFY2(!err.contains("hunter2secret"), err.constData());
    }
}

void TestFleet::finishedAnswer_isAHitOnEveryOtherInstance()
{
    FleetTest fleet(QStringLiteral(BREAKWATER_APP));
    QVERIFY(startSharedFleet(fleet, 3));

    const LoopbackResponse first = chat(fleet.port(0), u"shared across the fleet"_s);
    QCOMPARE(first.status, 200);
    QCOMPARE(first.header("x-breakwater-dedup"), QByteArray("miss"));
    QTRY_COMPARE_WITH_TIMEOUT(answersInRedis(fleet), 1, kConverge);
    QCOMPARE(fleet.mock()->callCount(), 1);

    // 30 identical concurrent requests spread over the three instances: all hits, no upstream call.
    QList<LoopbackClient *> calls;
    for (int i = 0; i < 30; ++i) {
        auto *call = new LoopbackClient(fleet.port(i % 3), "POST", "/v1/chat/completions", openAiAuth("sk-fleet-1"),
                                        chatBody(u"shared across the fleet"_s), this);
        call->setTimeout(std::chrono::seconds(10));
        calls.append(call);
    }
    for (LoopbackClient *call : calls)
        call->start();
    QTRY_VERIFY_WITH_TIMEOUT(allFinished(calls), 20'000);
    int hits = 0;
    for (LoopbackClient *call : calls) {
        QCOMPARE(call->response().status, 200);
        QCOMPARE(call->response().body, first.body);
        hits += call->response().header("x-breakwater-dedup") == "hit";
    }
    qDeleteAll(calls);
    QCOMPARE(hits, 30);
    QCOMPARE(fleet.mock()->callCount(), 1);
}

void TestFleet::twoCredentials_twoUpstreamCalls()
{
    FleetTest fleet(QStringLiteral(BREAKWATER_APP));
    QVERIFY(startSharedFleet(fleet, 3));

    QCOMPARE(chat(fleet.port(0), u"same body"_s, "sk-alice").header("x-breakwater-dedup"), QByteArray("miss"));
    QTRY_COMPARE_WITH_TIMEOUT(answersInRedis(fleet), 1, kConverge);
    // Another credential on another instance: never the first one's answer.
    QCOMPARE(chat(fleet.port(1), u"same body"_s, "sk-bob").header("x-breakwater-dedup"), QByteArray("miss"));
    QCOMPARE(fleet.mock()->callCount(), 2);
    QTRY_COMPARE_WITH_TIMEOUT(answersInRedis(fleet), 2, kConverge);
    // Each credential's answer is a hit for the same credential elsewhere.
    QCOMPARE(chat(fleet.port(2), u"same body"_s, "sk-bob").header("x-breakwater-dedup"), QByteArray("hit"));
    QCOMPARE(chat(fleet.port(2), u"same body"_s, "sk-alice").header("x-breakwater-dedup"), QByteArray("hit"));
    QCOMPARE(fleet.mock()->callCount(), 2);
}

void TestFleet::herdOverThreeInstances_oneUpstreamCall()
{
    FleetTest fleet(QStringLiteral(BREAKWATER_APP));
    QVERIFY(startSharedFleet(fleet, 3));
    holdAnswers(fleet, true);
    QList<LoopbackClient *> calls;
    for (int i = 0; i < 200; ++i)
        calls.append(startChat(fleet.port(i % 3), chatBody(u"one herd for the fleet"_s), this));
    // All 200 seated on a flight before the upstream answers: one call for the fleet, not one each.
    QTRY_COMPARE_WITH_TIMEOUT(seatedRiders(fleet), 200, 20'000);
    QTRY_COMPARE_WITH_TIMEOUT(fleet.mock()->heldCount(), 1, 20'000);   // the call reaches the mock after take-off
    holdAnswers(fleet, false);
    QTRY_VERIFY_WITH_TIMEOUT(allFinished(calls), 20'000);
    QMap<QByteArray, int> served;
    for (const LoopbackClient *call : std::as_const(calls)) {
        QCOMPARE(call->response().status, 200);
        QCOMPARE(call->response().body, calls.first()->response().body);
        ++served[call->response().header("x-breakwater-dedup")];
    }
    qDeleteAll(calls);
    QCOMPARE(served.value("miss"), 1);
    QCOMPARE(served.value("joined"), 199);
    QCOMPARE(fleet.mock()->callCount("/v1/chat/completions"), 1);
    QTRY_COMPARE_WITH_TIMEOUT(keysInRedis(fleet, "bw:v1:*:flight"), 0, kConverge);
}

void TestFleet::streamOverThreeInstances_sameBytesForMidStreamJoiners()
{
    FleetTest fleet(QStringLiteral(BREAKWATER_APP));
    QVERIFY(startSharedFleet(fleet, 3));
    fleet.onMock<int>([](MockProvider *mock) { mock->setChunkInterval(std::chrono::milliseconds(150)); return 0; });
    holdAnswers(fleet, true);
    const QByteArray body = chatBody(u"a stream that the whole fleet reads from its first event"_s, true);
    QList<LoopbackClient *> calls;
    for (int i = 0; i < 12; ++i)
        calls.append(startChat(fleet.port(i % 3), body, this));
    QTRY_COMPARE_WITH_TIMEOUT(seatedRiders(fleet), 12, 20'000);
    QTRY_COMPARE_WITH_TIMEOUT(fleet.mock()->heldCount(), 1, 20'000);   // the call reaches the mock after take-off
    int firstChunks = 0;
    connect(calls.first(), &LoopbackClient::chunkReceived, this, [&firstChunks] { ++firstChunks; });
    holdAnswers(fleet, false);
    // Mid-stream: the first client has events already when the others arrive on every instance.
    QTRY_VERIFY_WITH_TIMEOUT(firstChunks >= 2, 20'000);
    for (int i = 0; i < 18; ++i)
        calls.append(startChat(fleet.port(i % 3), body, this));
    QVERIFY2(!calls.first()->isFinished(), "the stream ended before the late joiners came");
    QTRY_VERIFY_WITH_TIMEOUT(allFinished(calls), 30'000);
    const QByteArray &first = calls.first()->response().body;
    QVERIFY2(first.contains("data: [DONE]"), first.constData());
    for (const LoopbackClient *call : std::as_const(calls)) {
        QCOMPARE(call->response().status, 200);
        QCOMPARE(call->response().body, first);
    }
    qDeleteAll(calls);
    QCOMPARE(fleet.mock()->callCount("/v1/chat/completions"), 1);
}

void TestFleet::twoCredentialsInFlight_oneCallEach()
{
    FleetTest fleet(QStringLiteral(BREAKWATER_APP));
    QVERIFY(startSharedFleet(fleet, 3));
    holdAnswers(fleet, true);
    const QByteArray body = chatBody(u"same body, two credentials"_s);
    LoopbackClient *alice = startChat(fleet.port(0), body, this, "sk-alice");
    LoopbackClient *bob = startChat(fleet.port(1), body, this, "sk-bob");
    LoopbackClient *aliceAgain = startChat(fleet.port(2), body, this, "sk-alice");
    LoopbackClient *bobAgain = startChat(fleet.port(2), body, this, "sk-bob");
    QTRY_COMPARE_WITH_TIMEOUT(seatedRiders(fleet), 4, 20'000);
    // Seated is counted when the flights take off; their calls reach the mock a moment later.
    QTRY_COMPARE_WITH_TIMEOUT(fleet.mock()->heldCount(), 2, 20'000);
    holdAnswers(fleet, false);
    const QList<LoopbackClient *> calls{alice, bob, aliceAgain, bobAgain};
    QTRY_VERIFY_WITH_TIMEOUT(allFinished(calls), 20'000);
    for (const LoopbackClient *call : calls)
        QCOMPARE(call->response().status, 200);
    // Each credential joined its own call, never the other's (the answers differ in their ids).
    QCOMPARE(aliceAgain->response().body, alice->response().body);
    QCOMPARE(bobAgain->response().body, bob->response().body);
    QVERIFY(alice->response().body != bob->response().body);
    qDeleteAll(calls);
    QCOMPARE(fleet.mock()->callCount("/v1/chat/completions"), 2);
}

void TestFleet::leaderKilledMidStream_joinersGetAnErrorEvent_noLeaseLeft()
{
    FleetTest fleet(QStringLiteral(BREAKWATER_APP));
    QVERIFY(startSharedFleet(fleet, 3));
    fleet.onMock<int>([](MockProvider *mock) { mock->setChunkInterval(std::chrono::milliseconds(300)); return 0; });
    holdAnswers(fleet, true);
    const QByteArray body = chatBody(u"a long stream whose leader dies in the middle of it, sadly"_s, true);
    LoopbackClient *leader = startChat(fleet.port(0), body, this);
    QTRY_COMPARE_WITH_TIMEOUT(fleet.mock()->heldCount(), 1, 20'000);   // instance 0 leads
    QList<LoopbackClient *> joiners;
    for (int i = 0; i < 4; ++i)
        joiners.append(startChat(fleet.port(1 + i % 2), body, this));
    QTRY_COMPARE_WITH_TIMEOUT(seatedRiders(fleet), 5, 20'000);
    int joinerChunks = 0;
    connect(joiners.first(), &LoopbackClient::chunkReceived, this, [&joinerChunks] { ++joinerChunks; });
    holdAnswers(fleet, false);
    QTRY_VERIFY_WITH_TIMEOUT(joinerChunks >= 2, 20'000);
    fleet.killInstance(0);
    // Every joiner ends (bounded), with the whole stream or an error event: never a clean short one.
    QTRY_VERIFY_WITH_TIMEOUT(allFinished(joiners), 20'000);
    for (const LoopbackClient *call : std::as_const(joiners)) {
        const QByteArray &got = call->response().body;
        QCOMPARE(call->response().status, 200);
        QVERIFY2(got.contains("data: [DONE]") || got.contains("\"stream_cut\""), got.constData());
        if (!got.contains("data: [DONE]"))
            QVERIFY2(got.endsWith("\n\n"), got.constData());
    }
    const int cut = int(std::count_if(joiners.cbegin(), joiners.cend(), [](const LoopbackClient *call) {
        return call->response().body.contains("\"stream_cut\"");
    }));
    QCOMPARE(cut, 4);   // the leader died with the stream half sent: nobody has the rest
    qDeleteAll(joiners);
    delete leader;
    QCOMPARE(fleet.mock()->callCount("/v1/chat/completions"), 1);
    QTRY_COMPARE_WITH_TIMEOUT(keysInRedis(fleet, "bw:v1:*:flight"), 0, kConverge);
    QTRY_COMPARE_WITH_TIMEOUT(keysInRedis(fleet, "bw:v1:*:ev:*"), 0, 3 * kConverge);
}

void TestFleet::leaderKilledBeforeAnswer_oneJoinerTakesOver()
{
    FleetTest fleet(QStringLiteral(BREAKWATER_APP));
    QVERIFY(startSharedFleet(fleet, 3));
    const QList<LoopbackClient *> seated
        = seatLeaderAndTwoJoiners(fleet, chatBody(u"the leader dies before the provider answers"_s), this);
    QCOMPARE(seated.size(), 3);
    LoopbackClient *leader = seated[0];
    const QList<LoopbackClient *> joiners = seated.mid(1);
    QCOMPARE(fleet.mock()->callCount("/v1/chat/completions"), 1);   // both joiners follow the leader
    fleet.killInstance(0);
    // Once the lease ran out, one of them calls the upstream again and the other follows it.
    QTRY_COMPARE_WITH_TIMEOUT(fleet.mock()->callCount("/v1/chat/completions"), 2, 20'000);
    holdAnswers(fleet, false);
    QTRY_VERIFY_WITH_TIMEOUT(allFinished(joiners), 20'000);
    for (const LoopbackClient *call : joiners)
        QCOMPARE(call->response().status, 200);
    QCOMPARE(joiners[0]->response().body, joiners[1]->response().body);
    qDeleteAll(joiners);
    delete leader;
    QCOMPARE(fleet.mock()->callCount("/v1/chat/completions"), 2);
    QTRY_COMPARE_WITH_TIMEOUT(keysInRedis(fleet, "bw:v1:*:flight"), 0, kConverge);
    // The takeover is a paid call like any: charged on the instance that made it, and to the fleet's day.
    const auto spentToday = [&](int instance) {
        const LoopbackResponse stats = fetch(fleet.port(instance), "GET", "/breakwater/stats",
                                             {{"Authorization", "Bearer " + fleet.controlToken(instance)}});
        return QJsonDocument::fromJson(stats.body).object().value(u"spend"_s).toObject().value(u"todayUsd"_s).toDouble();
    };
    QTRY_VERIFY_WITH_TIMEOUT((spentToday(1) > 0) != (spentToday(2) > 0), kConverge);
    QTRY_COMPARE_WITH_TIMEOUT(keysInRedis(fleet, "bw:v1:{spend:*}:spent"), 1, kConverge);
}

void TestFleet::joinerLateToATakeover_passesItsStoredAnswer()
{
    // The race found under load: one joiner takes over and its answer is stored before the other
    // joiner looks again. That one must pass the stored answer, not pay for a third call.
    FleetTest fleet(QStringLiteral(BREAKWATER_APP));
    QVERIFY(startSharedFleet(fleet, 3));
    const QList<LoopbackClient *> seated
        = seatLeaderAndTwoJoiners(fleet, chatBody(u"a joiner that falls behind the takeover"_s), this);
    QCOMPARE(seated.size(), 3);
    LoopbackClient *leader = seated[0];
    LoopbackClient *taker = seated[1];
    LoopbackClient *late = seated[2];
    fleet.pauseInstance(2);
    fleet.killInstance(0);
    // Instance 1 alone sees the lease run out: it takes over, and its answer is stored.
    QTRY_COMPARE_WITH_TIMEOUT(fleet.mock()->callCount("/v1/chat/completions"), 2, 20'000);
    holdAnswers(fleet, false);
    QTRY_VERIFY_WITH_TIMEOUT(taker->isFinished(), 20'000);
    QTRY_COMPARE_WITH_TIMEOUT(answersInRedis(fleet), 1, kConverge);
    QTRY_COMPARE_WITH_TIMEOUT(keysInRedis(fleet, "bw:v1:*:flight"), 0, kConverge);
    fleet.resumeInstance(2);
    QTRY_VERIFY_WITH_TIMEOUT(late->isFinished(), 20'000);
    QCOMPARE(taker->response().status, 200);
    QCOMPARE(late->response().status, 200);
    QCOMPARE(late->response().body, taker->response().body);
    QCOMPARE(fleet.mock()->callCount("/v1/chat/completions"), 2);
    delete late;
    delete taker;
    delete leader;
}

void TestFleet::leadersCallerHangsUp_joinerElsewhereStillAnswered()
{
    FleetTest fleet(QStringLiteral(BREAKWATER_APP));
    QVERIFY(startSharedFleet(fleet, 2));
    holdAnswers(fleet, true);
    const QByteArray body = chatBody(u"the leader's caller leaves"_s);
    LoopbackClient *leader = startChat(fleet.port(0), body, this);
    QTRY_COMPARE_WITH_TIMEOUT(fleet.mock()->heldCount(), 1, 20'000);
    LoopbackClient *joiner = startChat(fleet.port(1), body, this);
    QTRY_COMPARE_WITH_TIMEOUT(seatedRiders(fleet), 2, 20'000);
    // Instance 0 cancels its call once nobody there waits (after its abandon grace); the joiner on
    // instance 1 is still waiting, so it calls again rather than take the cancellation for an answer.
    leader->hangUp();
    QTRY_COMPARE_WITH_TIMEOUT(fleet.mock()->callCount("/v1/chat/completions"), 2, 20'000);
    holdAnswers(fleet, false);
    QTRY_VERIFY_WITH_TIMEOUT(joiner->isFinished(), 20'000);
    QCOMPARE(joiner->response().status, 200);
    delete joiner;
    delete leader;
}

void TestFleet::fleetFaultRule_armedOnEveryInstance_disarmedFromAny()
{
    FleetTest fleet(QStringLiteral(BREAKWATER_APP));
    QVERIFY(startSharedFleet(fleet, 3));
    const auto armedOn = [&] {
        int armed = 0;
        for (int i = 0; i < 3; ++i)
            armed += fleet.health(i).value(u"faults_armed"_s).toInt();
        return armed;
    };
    // `breakwater fault add --fleet` against instance 0, as a person would type it.
    QProcess command;
    command.start(QStringLiteral(BREAKWATER_APP),
                  {u"fault"_s, u"add"_s, u"--fleet"_s, u"503"_s, u"--listen"_s, u"127.0.0.1:%1"_s.arg(fleet.port(0)),
                   u"--control-token"_s, fleet.controlTokenFile(0)});
    QVERIFY(command.waitForFinished(30'000));
    const QByteArray said = command.readAllStandardOutput() + command.readAllStandardError();
    QVERIFY2(command.exitCode() == 0, said.constData());
    QVERIFY2(said.contains("on the whole fleet"), said.constData());
    // Every instance plays it: each answers the fault, and the provider hears nothing.
    QTRY_COMPARE_WITH_TIMEOUT(armedOn(), 3, kConverge);
    for (int i = 0; i < 3; ++i) {
        const LoopbackResponse answer = chat(fleet.port(i), u"during the drill %1"_s.arg(i));
        QCOMPARE(answer.status, 503);
        QVERIFY(!answer.header("x-breakwater-fault").isEmpty());
    }
    QCOMPARE(fleet.mock()->callCount("/v1/chat/completions"), 0);

    // Disarmed by hand on another instance: off on all of them.
    const HeaderList owner{{"Authorization", "Bearer " + fleet.controlToken(2)}};
    const QJsonArray rules = QJsonDocument::fromJson(fetch(fleet.port(2), "GET", "/breakwater/faults", owner).body)
                                 .object().value(u"faults"_s).toArray();
    QCOMPARE(rules.size(), 1);
    QCOMPARE(rules.first().toObject().value(u"fleet"_s).toBool(), true);
    const QByteArray id = QByteArray::number(rules.first().toObject().value(u"id"_s).toInt());
    QCOMPARE(fetch(fleet.port(2), "DELETE", "/breakwater/faults/" + id, owner).status, 200);
    QTRY_COMPARE_WITH_TIMEOUT(armedOn(), 0, kConverge);
    for (int i = 0; i < 3; ++i)
        QCOMPARE(chat(fleet.port(i), u"after the drill %1"_s.arg(i)).status, 200);
}

void TestFleet::failuresOnDifferentInstances_openTheBreakerOnAll()
{
    FleetTest fleet(QStringLiteral(BREAKWATER_APP));
    // Three failures open it; each instance alone sees one, so only the fleet's count can open it.
    QVERIFY(startSharedFleet(fleet, 3, {u"--breaker-failures"_s, u"3"_s, u"--breaker-cooldown"_s, u"60"_s}));
    fleet.onMock<int>([](MockProvider *mock) { mock->setMode(MockProvider::Mode::Error503); return 0; });

    QCOMPARE(chat(fleet.port(0), u"fails 0"_s).status, 503);
    QCOMPARE(chat(fleet.port(1), u"fails 1"_s).status, 503);
    QCOMPARE(breakerState(fleet.port(0)), QByteArray("closed"));
    QCOMPARE(breakerState(fleet.port(2)), QByteArray("closed"));
    QCOMPARE(chat(fleet.port(2), u"fails 2"_s).status, 503);
    const int upstreamCalls = fleet.mock()->callCount("/v1/chat/completions");
    QCOMPARE(upstreamCalls, 3);

    // Open on all three, from the third failure on, without any further traffic.
    const auto openOn = [&] {
        int open = 0;
        for (int i = 0; i < 3; ++i)
            open += breakerState(fleet.port(i)) == "open";
        return open;
    };
    QTRY_COMPARE_WITH_TIMEOUT(openOn(), 3, kConverge);
    // And every instance refuses at once: no upstream call.
    for (int i = 0; i < 3; ++i) {
        const LoopbackResponse refused = chat(fleet.port(i), u"after %1"_s.arg(i));
        QCOMPARE(refused.status, 503);
        QCOMPARE(refused.header("x-breakwater-breaker"), QByteArray("open"));
        QCOMPARE(refused.header("x-should-retry"), QByteArray("false"));
    }
    QCOMPARE(fleet.mock()->callCount("/v1/chat/completions"), upstreamCalls);

    // Closed by hand on one instance: closed on all (the fleet's state is read back).
    fleet.onMock<int>([](MockProvider *mock) { mock->setMode(MockProvider::Mode::Ok); return 0; });
    const LoopbackResponse closed = fetch(fleet.port(1), "POST", "/breakwater/breaker/openai/close",
                                          {{"Authorization", "Bearer " + fleet.controlToken(1)}});
    QCOMPARE(closed.status, 200);
    QTRY_COMPARE_WITH_TIMEOUT(openOn(), 0, kConverge);
}

void TestFleet::holdOpen_neverShortensALiveDeadline()
{
    FakeClock clock;
    CircuitBreaker breaker(u"openai"_s, clock, 5, std::chrono::seconds(60));
    breaker.holdOpenFor(std::chrono::seconds(30), u"open on the fleet"_s);
    QCOMPARE(breaker.state(), BreakerState::Open);
    QCOMPARE(breaker.cooldownLeftMs(), 30'000);
    breaker.holdOpenFor(std::chrono::seconds(5), u"open on the fleet"_s);   // an older, shorter opening
    QCOMPARE(breaker.cooldownLeftMs(), 30'000);
    breaker.holdOpenFor(std::chrono::seconds(45), u"open on the fleet"_s);   // a later re-open
    QCOMPARE(breaker.cooldownLeftMs(), 45'000);
    QCOMPARE(breaker.transitions(), 1);
    clock.advance(45000);
    breaker.onTimePassed();
    QCOMPARE(breaker.state(), BreakerState::HalfOpen);
}

void TestFleet::redisKilledPausedRestarted_callsAnswered_degradedAppearsAndClears()
{
    FleetTest fleet(QStringLiteral(BREAKWATER_APP));
    QVERIFY(startSharedFleet(fleet, 3));
    const auto degradedOn = [&] {
        int degraded = 0;
        for (int i = 0; i < 3; ++i)
            degraded += sharedState(fleet, i) == u"degraded"_s;
        return degraded;
    };
    int prompt = 0;
    const auto answeredEverywhere = [&] {
        for (int i = 0; i < 3; ++i) {
            const LoopbackResponse answer = chat(fleet.port(i), u"during %1"_s.arg(prompt++));
            if (answer.status != 200)
                return false;
        }
        return true;
    };

    // Paused: the first command past its deadline degrades it; calls go on.
    fleet.pauseRedis();
    QVERIFY(answeredEverywhere());
    QTRY_COMPARE_WITH_TIMEOUT(degradedOn(), 3, kConverge);
    const QJsonObject health = fleet.health(0);
    QVERIFY2(!health.value(u"shared_state_reason"_s).toString().isEmpty(), qPrintable(health.value(u"shared_state_reason"_s).toString()));
    QVERIFY(answeredEverywhere());
    const LoopbackResponse metrics = fetch(fleet.port(0), "GET", "/metrics");
    QVERIFY(metrics.body.contains("breakwater_shared_state_degraded 1"));
    fleet.resumeRedis();
    QTRY_COMPARE_WITH_TIMEOUT(degradedOn(), 0, kConverge);

    // Killed: degraded, answered locally; started again on the same port: shared again.
    fleet.killRedis();
    QVERIFY(answeredEverywhere());
    QTRY_COMPARE_WITH_TIMEOUT(degradedOn(), 3, kConverge);
    QVERIFY(answeredEverywhere());
    QVERIFY(fleet.startRedis());
    QTRY_COMPARE_WITH_TIMEOUT(degradedOn(), 0, kConverge);
    QVERIFY(answeredEverywhere());
    QVERIFY(fetch(fleet.port(0), "GET", "/metrics").body.contains("breakwater_shared_state_degraded 0"));
    // The restarted Redis (no persistence) is filled again by the new answers.
    QTRY_VERIFY_WITH_TIMEOUT(answersInRedis(fleet) >= 1, kConverge);
}

void TestFleet::unreachableAtStart_startsDegraded_thenJoins()
{
    FleetTest fleet(QStringLiteral(BREAKWATER_APP));
    // No Redis yet: the instance serves, degraded, with a reason.
    const int instance = fleet.startInstance();
    QVERIFY(instance >= 0);
    QTRY_COMPARE_WITH_TIMEOUT(sharedState(fleet, instance), u"degraded"_s, kConverge);
    QVERIFY(fleet.health(instance).value(u"shared_state_reason"_s).toString().contains(u"connect"_s));
    QCOMPARE(chat(fleet.port(instance), u"alone"_s).status, 200);
    QVERIFY(fleet.startRedis());
    QTRY_COMPARE_WITH_TIMEOUT(sharedState(fleet, instance), u"shared"_s, kConverge);
}

void TestFleet::spendCap_isOneBudgetForTheFleet()
{
    FleetTest fleet(QStringLiteral(BREAKWATER_APP));
    // gpt-4o-mini's output is $0.60 per million tokens: each call reserves a little over $0.06 for
    // its 100,000 max_tokens, so three fit under $0.20, and one instance alone would admit three.
    QVERIFY(startSharedFleet(fleet, 3, {u"--max-spend"_s, u"0.2"_s}));
    fleet.onMock<int>([](MockProvider *mock) { mock->setHoldAnswers(true); return 0; });
    QList<LoopbackClient *> calls;
    for (int i = 0; i < 9; ++i) {
        const QByteArray body = R"({"model":"gpt-4o-mini","max_tokens":100000,"messages":[{"role":"user","content":"budget )"
                              + QByteArray::number(i) + R"("}]})";
        auto *call = new LoopbackClient(fleet.port(i % 3), "POST", "/v1/chat/completions", openAiAuth("sk-fleet-1"), body, this);
        call->setTimeout(std::chrono::seconds(20));
        calls.append(call);
        call->start();
    }
    const auto refused = [&] {
        return int(std::count_if(calls.cbegin(), calls.cend(), [](const LoopbackClient *call) {
            return call->isFinished() && call->response().status == 429;
        }));
    };
    // Every call is in flight (held by the mock) or refused: the fleet admitted three in all.
    QTRY_COMPARE_WITH_TIMEOUT(refused() + fleet.mock()->heldCount(), 9, 20'000);
    QCOMPARE(fleet.mock()->heldCount(), 3);
    QCOMPARE(refused(), 6);
    for (const LoopbackClient *call : std::as_const(calls)) {
        if (call->isFinished())
            QCOMPARE(call->response().header("x-should-retry"), QByteArray("false"));
    }
    fleet.onMock<int>([](MockProvider *mock) { mock->releaseHeld(); return 0; });
    QTRY_VERIFY_WITH_TIMEOUT(allFinished(calls), 20'000);
    const int answered = int(std::count_if(calls.cbegin(), calls.cend(),
                                           [](const LoopbackClient *call) { return call->response().status == 200; }));
    qDeleteAll(calls);
    QCOMPARE(answered, 3);
    QCOMPARE(fleet.mock()->callCount("/v1/chat/completions"), 3);
}

void TestFleet::wrongPassword_degraded_withoutThePassword()
{
    FleetTest fleet(QStringLiteral(BREAKWATER_APP));
    QVERIFY(fleet.startRedis({u"--requirepass"_s, u"right-pass-1"_s}));
    fleet.setRedisUrl(u"redis://:wrong-pass-2@127.0.0.1:%1"_s.arg(fleet.redisPort()));
    const int wrong = fleet.startInstance();
    fleet.setRedisUrl(u"redis://default:right-pass-1@127.0.0.1:%1/1"_s.arg(fleet.redisPort()));
    const int right = fleet.startInstance();
    QVERIFY(wrong >= 0 && right >= 0);
    QTRY_COMPARE_WITH_TIMEOUT(sharedState(fleet, right), u"shared"_s, kConverge);
    QTRY_VERIFY_WITH_TIMEOUT(fleet.health(wrong).value(u"shared_state_reason"_s).toString().contains(u"credentials"_s), kConverge);
    const QJsonObject health = fleet.health(wrong);
    QCOMPARE(health.value(u"shared_state"_s).toString(), u"degraded"_s);
    QVERIFY(!QJsonDocument(health).toJson().contains("wrong-pass-2"));
    QCOMPARE(chat(fleet.port(wrong), u"served anyway"_s).status, 200);
    // The right one wrote its heartbeat in database 1.
    QCOMPARE(fleet.redisCommand({"EVAL", "redis.call('SELECT', 1) return #redis.call('KEYS', 'bw:v1:instance:*')", "0"},
                                "right-pass-1"), QByteArray(":1"));
}

void TestFleet::refusedWrites_degraded_untilRedisTakesThemAgain()
{
    FleetTest fleet(QStringLiteral(BREAKWATER_APP));
    QVERIFY(startSharedFleet(fleet, 1));
    // maxmemory reached (noeviction): every write is refused with OOM.
    QCOMPARE(fleet.redisCommand({"CONFIG", "SET", "maxmemory", "1"}), QByteArray("+OK"));
    QTRY_COMPARE_WITH_TIMEOUT(sharedState(fleet, 0), u"degraded"_s, kConverge);
    QVERIFY(fleet.health(0).value(u"shared_state_reason"_s).toString().contains(u"OOM"_s));
    QCOMPARE(chat(fleet.port(0), u"while full"_s).status, 200);
    QCOMPARE(fleet.redisCommand({"CONFIG", "SET", "maxmemory", "0"}), QByteArray("+OK"));
    QTRY_COMPARE_WITH_TIMEOUT(sharedState(fleet, 0), u"shared"_s, kConverge);
    // A read-only replica refuses writes too (READONLY).
    QCOMPARE(fleet.redisCommand({"REPLICAOF", "127.0.0.1", "1"}), QByteArray("+OK"));
    QTRY_COMPARE_WITH_TIMEOUT(sharedState(fleet, 0), u"degraded"_s, kConverge);
    QVERIFY(fleet.health(0).value(u"shared_state_reason"_s).toString().contains(u"READONLY"_s));
    QCOMPARE(fleet.redisCommand({"REPLICAOF", "NO", "ONE"}), QByteArray("+OK"));
    QTRY_COMPARE_WITH_TIMEOUT(sharedState(fleet, 0), u"shared"_s, kConverge);
}

void TestFleet::fleetView_listsEveryLiveInstanceAndItsCalls_untilOneDies()
{
    FleetTest fleet(QStringLiteral(BREAKWATER_APP));
    QVERIFY(startSharedFleet(fleet, 3));
    // Different prompts: three calls on the first instance, two on the second, one on the third;
    // then the first one's answer asked on the third, a hit from the fleet's answers.
    for (int i = 0; i < 6; ++i) {
        const int instance = i < 3 ? 0 : i < 5 ? 1 : 2;
        QCOMPARE(chat(fleet.port(instance), u"fleet view %1"_s.arg(i)).header("x-breakwater-dedup"), QByteArray("miss"));
    }
    QTRY_COMPARE_WITH_TIMEOUT(answersInRedis(fleet), 6, kConverge);
    QCOMPARE(chat(fleet.port(2), u"fleet view 0"_s).header("x-breakwater-dedup"), QByteArray("hit"));
    // A call a fault rule answers instead of the provider is a request, not an upstream call.
    const HeaderList owner{{"Authorization", "Bearer " + fleet.controlToken(2)}, {"Content-Type", "application/json"}};
    QCOMPARE(fetch(fleet.port(2), "POST", "/breakwater/faults", owner, R"({"rule": "503:count=1"})").status, 201);
    QCOMPARE(chat(fleet.port(2), u"fleet view, answered by a fault"_s).status, 503);
    QCOMPARE(fleet.mock()->callCount("/v1/chat/completions"), 6);

    const auto portCalls = [&fleet](int instance, int calls) { return u"%1:%2"_s.arg(fleet.port(instance)).arg(calls); };
    QStringList expected{portCalls(0, 3), portCalls(1, 2), portCalls(2, 1)};
    expected.sort();
    // Every instance sees the whole fleet, each with its own calls (heartbeats are a second apart).
    for (int i = 0; i < 3; ++i)
        QTRY_COMPARE_WITH_TIMEOUT(listedCalls(fleet, i), expected, kConverge);
    const QJsonObject view = fleetView(fleet, 1);
    QCOMPARE(view.value(u"state"_s).toString(), u"shared"_s);
    const QJsonObject totals = view.value(u"totals"_s).toObject();
    QCOMPARE(totals.value(u"instances"_s).toInt(), 3);
    QCOMPARE(totals.value(u"calls"_s).toInt(), 6);
    QCOMPARE(totals.value(u"misses"_s).toInt(), 7);   // the fault's answer was a miss too
    QCOMPARE(totals.value(u"hits"_s).toInt(), 1);
    QCOMPARE(totals.value(u"requests"_s).toInt(), 8);
    const QJsonArray instances = view.value(u"instances"_s).toArray();
    QVERIFY(instances.first().toObject().value(u"self"_s).toBool());   // this one first
    QVERIFY(instances.first().toObject().value(u"label"_s).toString().endsWith(u':' + QString::number(fleet.port(1))));
    for (const QJsonValue instance : instances) {
        QVERIFY(instance.toObject().value(u"alive"_s).toBool());
        QVERIFY(!instance.toObject().value(u"id"_s).toString().isEmpty());
    }
    QVERIFY(fetch(fleet.port(1), "GET", "/metrics").body.contains("\nbreakwater_fleet_instances 3\n"));

    // Killed: gone from the others' lists once its key's TTL has run out, and from Redis too.
    fleet.killInstance(2);
    expected = QStringList{portCalls(0, 3), portCalls(1, 2)};
    expected.sort();
    QTRY_COMPARE_WITH_TIMEOUT(listedCalls(fleet, 0), expected, 3 * kConverge);
    QTRY_COMPARE_WITH_TIMEOUT(listedCalls(fleet, 1), expected, kConverge);
    QCOMPARE(fleetView(fleet, 0).value(u"totals"_s).toObject().value(u"calls"_s).toInt(), 5);
    QTRY_COMPARE_WITH_TIMEOUT(keysInRedis(fleet, "bw:v1:instance:*"), 2, kConverge);
    QTRY_COMPARE_WITH_TIMEOUT(fleet.redisCommand({"SCARD", "bw:v1:instances"}), QByteArray(":2"), kConverge);

    // Redis gone: the view says degraded at once and lists this instance alone.
    fleet.killRedis();
    QTRY_COMPARE_WITH_TIMEOUT(fleetView(fleet, 0).value(u"state"_s).toString(), u"degraded"_s, kConverge);
    QCOMPARE(listedCalls(fleet, 0), QStringList{portCalls(0, 3)});
}

QTEST_GUILESS_MAIN(TestFleet)
#include "tst_fleet.moc"
