// A Breakwater watched from elsewhere: GET /breakwater/events (attach/eventfeed.h) answers only the
// owner, streams a snapshot then every call and breaker change of real calls through the proxy, in
// order, and lets a watcher hang up mid-stream; `breakwater --attach`'s feed (attach/remotefeed.h)
// fills a DashboardModel from it, says when the remote is gone and attaches again when it is back
// on the same port. Real sockets through ProxyHarness; counts, never timings.

#include "accounting/callrecordjson.h"
#include "accounting/metrics.h"
#include "attach/eventjson.h"
#include "attach/remotecontrol.h"
#include "attach/remotefeed.h"
#include "attachedapp.h"
#include "attachstatus.h"
#include "dashboardmodel.h"
#include "faults/faultinjector.h"
#include "http/eventstream.h"
#include "proxyharness.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonValue>
#include <QSignalSpy>
#include <QTest>

using namespace Qt::StringLiterals;

namespace {

// One watcher of /breakwater/events: the events it read so far, parsed as a browser would.
class Watcher final : public QObject
{
public:
    Watcher(quint16 port, const HeaderList &headers)
        : client(port, "GET", "/breakwater/events", headers)
    {
        client.setTimeout(std::chrono::minutes(2));
        connect(&client, &LoopbackClient::chunkReceived, this, [this](const QByteArray &payload) {
            parser.feed(payload, [this](const ServerSentEvent &event) { events.append(event); });
        });
        client.start();
    }
    QList<QByteArray> types() const
    {
        QList<QByteArray> list;
        for (const ServerSentEvent &event : events)
            list << event.type;
        return list;
    }
    QJsonObject data(int i) const { return QJsonDocument::fromJson(events.at(i).data).object(); }

    LoopbackClient client;
    EventStreamParser parser;
    QList<ServerSentEvent> events;
};

int watchersOf(const ProxyHarness &harness)
{
    return harness.onProxyThread<int>([](ProxyServer *proxy) { return proxy->eventWatchers(); });
}

CallRecord everyFieldSet()
{
    CallRecord r;
    r.requestId = "req-1";
    r.route = "/v1/chat/completions";
    r.upstream = "openai";
    r.fallbackFrom = "anthropic";
    r.fallbackTo = "cloud";   // never with fallbackFrom on one real record; here only to set every field
    r.model = u"gpt-4o-mini"_s;
    r.stream = true;
    r.keyFingerprint = "abcdef012345";
    r.credentialFingerprint = "0123456789ab";
    r.clientAddress = u"127.0.0.1"_s;
    r.outcome = Outcome::Joined;
    r.status = 200;
    r.errorKind = "stream_cut";
    r.breakerState = "half-open";
    r.member = u"alice"_s;
    r.injected = u"#1 503:count=2"_s;
    r.receivedAtMs = 1'700'000'000'001;
    r.upstreamStartAtMs = 1'700'000'000'002;
    r.firstByteAtMs = 1'700'000'000'003;
    r.endAtMs = 1'700'000'000'004;
    r.queueWaitMs = 5;
    r.inputTokens = 6;
    r.outputTokens = 7;
    r.cachedTokens = 8;
    r.costUsd = 0.25;
    r.costSavedUsd = 0.5;
    r.requestBody = R"({"a":1})";
    r.responseBody = R"({"b":2})";
    r.method = "POST";
    r.target = "/v1/chat/completions?x=1";
    r.requestHeaders = "Content-Type: application/json\n";
    r.responseHeaders = "x-breakwater-dedup: joined\n";
    r.keyInputs = "route: /v1/chat/completions\n";
    r.retryAttempt = 2;
    r.errorBody = R"({"error":{}})";
    r.firstTokenAtMs = 1'700'000'000'005;
    r.maxEventGapMs = 9;
    r.eventCount = 10;
    r.streamVerdict = "cut";
    return r;
}

} // namespace

class TestAttach final : public QObject
{
    Q_OBJECT
private slots:
    void callRecordJson_roundTripsEveryField();
    void snapshotFromStats_readsWhatTheStatsWrite();
    void events_needTheOwnersToken();
    void events_openWithASnapshotOfTheLatestCalls();
    void events_carryRealCallsAndBreakerChanges_inOrder();
    void watcherThatHangsUp_isReleased_andOthersGoOn();
    void feed_fillsTheModel_saysDisconnected_andReattaches();
    void feed_attachesOverHttps_trustingTheCaFile();
    void remoteControl_actsOnTheRemote();
    void remoteSentences_crossTheWireWithTheirSource();
};

void TestAttach::callRecordJson_roundTripsEveryField()
{
    const CallRecord record = everyFieldSet();
    const QJsonObject json = callRecordToJson(record);
    const CallRecord back = callRecordFromJson(json);
    QCOMPARE(callRecordToJson(back), json);
    // And each field differs from its default, so a field left out of the codec would show above.
    const QJsonObject defaults = callRecordToJson(CallRecord());
    for (auto it = json.begin(); it != json.end(); ++it)
        QVERIFY2(defaults.value(it.key()) != it.value(), qPrintable(it.key()));
    QCOMPARE(back.outcome, Outcome::Joined);
    QCOMPARE(back.member, u"alice"_s);
    QCOMPARE(back.totalMs(), 3);
    // A field the other end does not know keeps its default.
    QCOMPARE(callRecordFromJson({{u"requestId"_s, u"x"_s}}).retryAttempt, -1);
}

void TestAttach::snapshotFromStats_readsWhatTheStatsWrite()
{
    ProxySnapshot snapshot;
    snapshot.atMs = 1234;
    snapshot.steadyMs = 50'000;
    UpstreamSnapshot openai;
    openai.name = "openai";
    openai.breakerState = BreakerState::Open;
    openai.running = 3;
    openai.queued = 2;
    openai.concurrency = 64;
    openai.consecutiveFailures = 5;
    openai.failureThreshold = 5;
    openai.cooldownLeftMs = 41'000;
    openai.lastFailure = Message("upstream answered %1").arg(503);
    openai.lastFailureAtMs = 1200;
    openai.lastProbeAtMs = 1230;
    openai.lastProbeResult = u"timeout"_s;
    openai.protocol = "HTTP/1.1";
    openai.url = u"https://api.openai.com/v1"_s;
    snapshot.upstreams = {openai};
    snapshot.flightsInProgress = 3;
    snapshot.cacheEntries = 7;
    snapshot.cacheBytes = 7000;
    snapshot.spentTodayUsd = 1.5;
    snapshot.spendCapUsd = 5;
    snapshot.settings.concurrency = 8;
    snapshot.admissionPaused = true;
    FaultRule rule = FaultRule::parse(u"503:for=60s"_s).value();
    rule.id = 4;
    rule.fired = 2;
    rule.expiresAtMs = 50'000 + 41'000;
    snapshot.faults = {rule};
    snapshot.faultsInjected.insert({"openai", "503"}, 2);
    InFlight flight;
    flight.requestId = "req-9";
    flight.state = InFlight::State::Streaming;
    flight.joined = 4;
    snapshot.flights = {flight};

    const ProxySnapshot back = snapshotFromStats(Metrics().statsJson(snapshot));
    QCOMPARE(back.atMs, 1234);
    QCOMPARE(back.upstreams.size(), 1);
    const UpstreamSnapshot &u = back.upstreams.first();
    QCOMPARE(u.name, "openai");
    QCOMPARE(u.breakerState, BreakerState::Open);
    QCOMPARE(u.running, 3);
    QCOMPARE(u.queued, 2);
    QCOMPARE(u.concurrency, 64);
    QCOMPARE(u.consecutiveFailures, 5);
    QCOMPARE(u.cooldownLeftMs, 41'000);
    QCOMPARE(u.lastFailure.english(), u"upstream answered 503"_s);
    QVERIFY(u.lastFailure == openai.lastFailure);   // its source and argument, for the window's language
    QCOMPARE(u.lastProbeResult, u"timeout"_s);
    QCOMPARE(u.protocol, "HTTP/1.1");
    QCOMPARE(u.url, u"https://api.openai.com/v1"_s);
    QCOMPARE(back.cacheEntries, 7);
    QCOMPARE(back.spendCapUsd, 5.0);
    QCOMPARE(back.settings, snapshot.settings);
    QVERIFY(back.admissionPaused);
    QCOMPARE(back.faults.size(), 1);
    QCOMPARE(back.faults.first().id, 4);
    QCOMPARE(back.faults.first().fired, 2);
    QCOMPARE(back.faults.first().expiresAtMs - back.steadyMs, 41'000);
    QCOMPARE(back.faultsInjected.value({"openai", "503"}), 2u);
    QCOMPARE(back.flights.size(), 1);
    QCOMPARE(back.flights.first().state, InFlight::State::Streaming);
    QCOMPARE(back.flights.first().joined, 4);
}

void TestAttach::events_needTheOwnersToken()
{
    ProxyHarness harness;
    const LoopbackResponse none = fetch(harness.port(), "GET", "/breakwater/events");
    QCOMPARE(none.status, 401);
    QCOMPARE(none.header("x-should-retry"), "false");
    QCOMPARE(QJsonDocument::fromJson(none.body).object()[u"error"_s][u"code"_s].toString(), u"control_token_required"_s);
    const LoopbackResponse wrong = fetch(harness.port(), "GET", "/breakwater/events",
                                         {{"Authorization", "Bearer not-the-token-0123456789abcdef"}});
    QCOMPARE(wrong.status, 401);
    QCOMPARE(QJsonDocument::fromJson(wrong.body).object()[u"error"_s][u"code"_s].toString(), u"control_token_invalid"_s);
    // A member's token (the API's key) opens nothing either.
    const LoopbackResponse member = fetch(harness.port(), "GET", "/breakwater/events", kOpenAiAuth);
    QCOMPARE(member.status, 401);
    QCOMPARE(watchersOf(harness), 0);
}

void TestAttach::events_openWithASnapshotOfTheLatestCalls()
{
    ProxyHarness harness;
    QCOMPARE(harness.post("/v1/chat/completions", chatBody(u"before"_s)).status, 200);
    // The call log's latest rows, as app/main.cpp gives them.
    const QList<CallRecord> logged = {everyFieldSet(), harness.records.value(0)};
    QCOMPARE(logged.last().route, "/v1/chat/completions");
    harness.onProxyThread<bool>([logged](ProxyServer *proxy) {
        proxy->setCallHistory([logged](int limit) { return logged.mid(0, limit); });
        return true;
    });
    Watcher watcher(harness.port(), harness.controlAuth());
    QTRY_VERIFY(!watcher.events.isEmpty());
    QCOMPARE(watcher.client.response().status, 200);
    QCOMPARE(watcher.client.response().header("content-type"), "text/event-stream");
    QCOMPARE(watcher.events.first().type, "snapshot");
    const QJsonObject opening = watcher.data(0);
    const QJsonArray calls = opening[u"calls"_s].toArray();
    QCOMPARE(calls.size(), 2);
    QCOMPARE(calls[0][u"requestId"_s].toString(), u"req-1"_s);
    QCOMPARE(calls[1][u"requestId"_s].toString(), QString::fromLatin1(logged.last().requestId));
    QCOMPARE(opening[u"stats"_s][u"upstreams"_s].toArray().size(), 2);
    QCOMPARE(opening[u"stats"_s][u"requestsTotal"_s].toInt(), 1);
}

void TestAttach::events_carryRealCallsAndBreakerChanges_inOrder()
{
    ProxyHarness harness;
    Watcher watcher(harness.port(), harness.controlAuth());
    QTRY_COMPARE(watchersOf(harness), 1);
    constexpr int kCalls = 3;
    for (int i = 0; i < kCalls; ++i)
        QCOMPARE(harness.post("/v1/chat/completions", chatBody(u"call %1"_s.arg(i), i == 1)).status, 200);
    QCOMPARE(harness.control("POST", "/breakwater/breaker/openai/open").status, 200);
    QTRY_COMPARE(harness.records.size(), kCalls);
    QTRY_VERIFY(watcher.types().contains("breaker"));

    // Ignoring the periodic snapshots: started, completed for each call in turn, then the breaker.
    QList<QByteArray> sequence;
    QList<QString> ids;
    for (int i = 0; i < watcher.events.size(); ++i) {
        const QByteArray type = watcher.events.at(i).type;
        if (type == "snapshot")
            continue;
        sequence << type;
        ids << (type == "breaker" ? watcher.data(i)[u"to"_s].toString() : watcher.data(i)[u"requestId"_s].toString());
    }
    QCOMPARE(watcher.types().first(), "snapshot");
    const QList<QByteArray> expected{"started", "completed", "started", "completed", "started", "completed", "breaker"};
    QCOMPARE(sequence, expected);
    for (int i = 0; i < kCalls; ++i) {
        const QString id = QString::fromLatin1(harness.records.at(i).requestId);
        QCOMPARE(ids.at(2 * i), id);
        QCOMPARE(ids.at(2 * i + 1), id);
    }
    QCOMPARE(ids.last(), u"open"_s);
    // The completed record is the proxy's, field by field.
    const int firstCompleted = int(watcher.types().indexOf("completed"));
    QCOMPARE(watcher.data(firstCompleted), callRecordToJson(harness.records.first()));
}

void TestAttach::watcherThatHangsUp_isReleased_andOthersGoOn()
{
    ProxyHarness harness;
    Watcher leaving(harness.port(), harness.controlAuth());
    Watcher staying(harness.port(), harness.controlAuth());
    QTRY_COMPARE(watchersOf(harness), 2);
    // Mid-stream: a streamed call is being relayed while it hangs up.
    LoopbackClient *call = harness.start("/v1/chat/completions", chatBody(u"streamed"_s, true));
    QTRY_VERIFY(leaving.types().contains("started"));
    leaving.client.hangUp();
    // Released when it hung up, not at some later write.
    QTRY_COMPARE(watchersOf(harness), 1);
    QTRY_VERIFY(call->isFinished());
    QCOMPARE(call->response().status, 200);
    QCOMPARE(harness.post("/v1/chat/completions", chatBody(u"after"_s)).status, 200);
    QTRY_COMPARE(staying.types().count("completed"), 2);
    QCOMPARE(fetch(harness.port(), "GET", "/healthz").status, 200);
    // The one left goes too when it hangs up; nothing is written to the sockets that went.
    staying.client.hangUp();
    QTRY_COMPARE(watchersOf(harness), 0);
    QCOMPARE(harness.post("/v1/chat/completions", chatBody(u"nobody watching"_s)).status, 200);
}

void TestAttach::feed_fillsTheModel_saysDisconnected_andReattaches()
{
    auto harness = std::make_unique<ProxyHarness>();
    const quint16 port = harness->port();
    DashboardModel model;
    RemoteFeed feed(QUrl(u"http://127.0.0.1:%1"_s.arg(port)), kTestControlToken);
    connectFeedToModel(&feed, &model);
    AttachStatus status(&feed);
    QSignalSpy connected(&feed, &RemoteFeed::connected);
    QSignalSpy disconnected(&feed, &RemoteFeed::disconnected);
    feed.start();
    QTRY_COMPARE(connected.size(), 1);
    QVERIFY(status.text().isEmpty());
    for (int i = 0; i < 2; ++i)
        QCOMPARE(harness->post("/v1/chat/completions", chatBody(u"first run %1"_s.arg(i))).status, 200);
    QTRY_COMPARE(model.totals().requests, 2);
    QTRY_VERIFY(!model.upstreams().isEmpty());   // a snapshot came
    QCOMPARE(model.recentByArrival(10).size(), 2);
    QCOMPARE(harness->control("POST", "/breakwater/breaker/openai/open").status, 200);
    QTRY_COMPARE(model.breakerState(u"openai"_s), BreakerState::Open);

    harness.reset();   // the remote stops
    QTRY_VERIFY(disconnected.size() >= 1);
    QVERIFY(!feed.isConnected());
    QVERIFY(status.isAway());
    QVERIFY2(status.text().contains(u"disconnected"_s), qPrintable(status.text()));
    QVERIFY2(status.text().contains(u"reconnecting"_s), qPrintable(status.text()));

    // Back on the same port: attached again, and its new calls arrive.
    harness = std::make_unique<ProxyHarness>([port](ProxyConfig &config) { config.listenPort = port; });
    QTRY_COMPARE_WITH_TIMEOUT(connected.size(), 2, 30'000);
    QVERIFY(feed.isConnected());
    QVERIFY(status.text().isEmpty());
    QCOMPARE(feed.nextRetry(), RemoteFeed::kFirstRetry);
    // The restarted remote's breaker is closed, though no transition said so.
    QTRY_COMPARE(model.breakerState(u"openai"_s), BreakerState::Closed);
    QCOMPARE(harness->post("/v1/chat/completions", chatBody(u"second run"_s)).status, 200);
    QTRY_COMPARE(model.totals().requests, 3);
    QCOMPARE(feed.connections(), 2);
}

void TestAttach::feed_attachesOverHttps_trustingTheCaFile()
{
    const QString data = QStringLiteral(BREAKWATER_TEST_DATA) + u"/tls/"_s;
    ProxyHarness harness([&data](ProxyConfig &config) {
        config.tlsCertFile = data + u"server.pem"_s;
        config.tlsKeyFile = data + u"server.key"_s;
    });
    QVERIFY(harness.proxy()->baseUrl().startsWith(u"https://"_s));
    const QUrl remote(u"https://localhost:%1"_s.arg(harness.port()));   // the test certificate's name

    // The test CA is no system authority: without --ca-file the certificate is refused, and said.
    RemoteFeed untrusting(remote, kTestControlToken);
    QSignalSpy refused(&untrusting, &RemoteFeed::disconnected);
    untrusting.start();
    QTRY_VERIFY(refused.size() >= 1);
    QCOMPARE(untrusting.connections(), 0);

    RemoteFeed feed(remote, kTestControlToken);
    QVERIFY(!feed.addCaFile(data + u"server.key"_s).ok());   // no certificate in it
    QVERIFY(feed.addCaFile(data + u"ca.pem"_s).ok());
    DashboardModel model;
    connectFeedToModel(&feed, &model);
    QSignalSpy connected(&feed, &RemoteFeed::connected);
    feed.start();
    QTRY_COMPARE(connected.size(), 1);
    QCOMPARE(harness.control("GET", "/healthz").status, 0);   // plain HTTP gets no answer there
    RemoteControl control(remote, kTestControlToken, feed.sslConfiguration());
    QSignalSpy answered(&control, &RemoteControl::answered);
    control.actOnBreaker(u"anthropic"_s, BreakerAction::Open);
    QTRY_COMPARE(answered.size(), 1);
    QCOMPARE(answered.first().first().toInt(), 200);
    QTRY_COMPARE(model.breakerState(u"anthropic"_s), BreakerState::Open);   // its transition came back on the stream
}

void TestAttach::remoteControl_actsOnTheRemote()
{
    ProxyHarness harness;
    RemoteControl control(QUrl(u"http://127.0.0.1:%1"_s.arg(harness.port())), kTestControlToken, {});
    QSignalSpy answered(&control, &RemoteControl::answered);
    QSignalSpy failed(&control, &RemoteControl::failed);
    control.actOnBreaker(u"openai"_s, BreakerAction::Open);
    control.setAdmissionPaused(true);
    control.armFault(FaultRule::parse(u"503:count=2"_s).value());
    QTRY_COMPARE(answered.size(), 3);
    QCOMPARE(failed.size(), 0);
    QCOMPARE(harness.onProxyThread<int>([](ProxyServer *p) { return int(p->openai().breaker->state()); }),
             int(BreakerState::Open));
    QVERIFY(harness.onProxyThread<bool>([](ProxyServer *p) { return p->isAdmissionPaused(); }));
    QCOMPARE(harness.onProxyThread<int>([](ProxyServer *p) { return int(p->faults()->rules().size()); }), 1);
    control.clearFaults();
    QTRY_COMPARE(answered.size(), 4);
    QCOMPARE(harness.onProxyThread<int>([](ProxyServer *p) { return int(p->faults()->rules().size()); }), 0);
    // Another token: refused, and said.
    RemoteControl stranger(QUrl(u"http://127.0.0.1:%1"_s.arg(harness.port())), "wrong-token-0123456789abcdefghij", {});
    QSignalSpy refused(&stranger, &RemoteControl::failed);
    stranger.setAdmissionPaused(false);
    QTRY_COMPARE(refused.size(), 1);
    QVERIFY(harness.onProxyThread<bool>([](ProxyServer *p) { return p->isAdmissionPaused(); }));
}

// A window attached to a remote says the remote's sentences in its own language: what the remote
// refuses and why its breakers moved arrive as Messages (source and arguments), not as English
// text. Seen failing: the refusal arrived as its English text only (a plain message).
void TestAttach::remoteSentences_crossTheWireWithTheirSource()
{
    ProxyHarness harness;
    RemoteControl control(QUrl(u"http://127.0.0.1:%1"_s.arg(harness.port())), kTestControlToken, {});
    const QJsonObject bogus{{u"bogus"_s, 1}};
    std::optional<Message> why;
    int status = 0;
    control.changeSettings(bogus, [&](int answered, const Message &said) { status = answered; why = said; });
    QTRY_VERIFY(why.has_value());
    QCOMPARE(status, 400);
    const Message refused = LiveSettings::withChanges(LiveSettings(), bogus).message();
    QVERIFY(!refused.isEmpty());
    QVERIFY2(why->english().startsWith(refused.english()), qPrintable(why->english()));
    QVERIFY2(why->toJson().isObject(), qPrintable(why->english()));   // a sentence, not a plain text
    QCOMPARE(why->toJson().toObject().value(u"args"_s).toArray().first(), refused.toJson());

    // A breaker transition's reason, through the event feed's JSON.
    const BreakerTransition moved{u"openai"_s, 42, BreakerState::Closed, BreakerState::Open,
                                  Message("%1 failures in a row").arg(5)};
    const BreakerTransition back = transitionFromJson(transitionToJson(moved));
    QVERIFY(back.reason == moved.reason);
    QCOMPARE(back.reason.english(), u"5 failures in a row"_s);
    // What an older Breakwater sends, the English text alone, still reads.
    QJsonObject older = transitionToJson(moved);
    older.remove(u"reasonMessage"_s);
    QCOMPARE(transitionFromJson(older).reason.english(), u"5 failures in a row"_s);
}

QTEST_MAIN(TestAttach)

#include "tst_attach.moc"
