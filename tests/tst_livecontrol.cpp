// Live control of a running proxy, no restart: the settings that change live (timeout,
// concurrency, breaker threshold and cool-down, answer window, cache size, spend cap) and what a
// change does to the calls in flight, the breaker buttons, pausing admission, and the control API
// that drives them (/breakwater/settings, /breakwater/breaker/..., /breakwater/admission/...).
// Real sockets on loopback through ProxyHarness; states and calls are counted, never timed.

#include "accounting/callending.h"
#include "fakeclock.h"
#include "livesettings.h"
#include "proxyharness.h"
#include "sharing/answercache.h"
#include "upstream/breakerprobe.h"
#include "upstream/upstreampool.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace std::chrono_literals;

namespace {
constexpr int kWait = 30000;   // ms: generous, for a loaded 2-core machine; never reached when it passes
const QByteArray kChat = "/v1/chat/completions";
const QByteArray kSettings = "/breakwater/settings";
const HeaderList kJson{{"Content-Type", "application/json"}};

QJsonObject json(const QByteArray &body)
{
    return QJsonDocument::fromJson(body).object();
}

QString errorCode(const LoopbackResponse &response)
{
    return json(response.body).value(u"error"_s).toObject().value(u"code"_s).toString();
}

LiveSettings live(const ProxyHarness &harness)
{
    return harness.onProxyThread<LiveSettings>([](ProxyServer *p) { return p->liveSettings(); });
}

void applyLive(const ProxyHarness &harness, const std::function<void(LiveSettings &)> &change)
{
    harness.onProxyThread<bool>([change](ProxyServer *p) {
        LiveSettings settings = p->liveSettings();
        change(settings);
        p->applyLiveSettings(settings);
        return true;
    });
}

BreakerState openaiState(const ProxyHarness &harness)
{
    return harness.onProxyThread<BreakerState>([](ProxyServer *p) { return p->openai().breaker->state(); });
}

LoopbackResponse control(const ProxyHarness &harness, const QByteArray &method, const QByteArray &path,
                         const QByteArray &body = {}, const HeaderList &headers = kJson)
{
    return harness.control(method, path, body, headers);
}
} // namespace

class TestLiveControl final : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void withChanges_checksLikeTheCommandLine_data();
    void withChanges_checksLikeTheCommandLine();
    void timeout_liveChange_endsTheNextCallSooner_callInFlightKeepsItsOwn();
    void breakerThreshold_loweredFromFiveToTwo_twoFailuresOpen();
    void breakerThreshold_loweredBelowTheFailuresCounted_opensAtTheNextFailure();
    void breakerCooldown_shortenedWhileOpen_halfOpensAtOnce();
    void concurrency_raised_startsQueuedCallsAtOnce();
    void cacheSize_shrunk_evictsTheLeastRecentlyUsedAtOnce();
    void dedupWindow_zero_dropsKeptAnswers();
    void spendCap_setLive_refusesTheNextCall_liftedAdmitsIt();
    void breakerButtons_moveTheStateWithAReason();
    void openedByHand_isNotProbedUntilAskedTo();
    void pause_refusesNewCalls503_callsInFlightGoOn_healthzSaysSo();
    void controlApi_getPatchAndBadValues();
    void controlApi_refusesChangesFromAnyOrigin_evenAnAllowedOne();
    void controlApi_breakerAndAdmissionRoutes_showInStats();
};

void TestLiveControl::initTestCase()
{
    qRegisterMetaType<BreakerTransition>();
    qRegisterMetaType<CallRecord>();
}

void TestLiveControl::withChanges_checksLikeTheCommandLine_data()
{
    QTest::addColumn<QByteArray>("changes");
    QTest::addColumn<QString>("error");   // empty: accepted
    QTest::newRow("timeout") << R"({"timeout": 2.5})"_ba << QString();
    QTest::newRow("timeout as a string") << R"({"timeout": "2"})"_ba << QString();
    QTest::newRow("every field") << R"({"timeout": 1, "concurrency": 3, "breaker-failures": 2, "breaker-cooldown": 4,
                                        "dedup-window": 0, "cache-size": 0.5, "max-spend": 2})"_ba << QString();
    QTest::newRow("no cap") << R"({"max-spend": 0})"_ba << QString();
    QTest::newRow("no cap, null") << R"({"max-spend": null})"_ba << QString();
    QTest::newRow("timeout 0") << R"({"timeout": 0})"_ba << u"setting 'timeout'"_s;
    QTest::newRow("concurrency 0") << R"({"concurrency": 0})"_ba << u"setting 'concurrency'"_s;
    QTest::newRow("concurrency 1.5") << R"({"concurrency": 1.5})"_ba << u"setting 'concurrency'"_s;
    QTest::newRow("concurrency too many") << R"({"concurrency": 5000})"_ba << u"setting 'concurrency'"_s;
    QTest::newRow("breaker-failures 0") << R"({"breaker-failures": 0})"_ba << u"setting 'breaker-failures'"_s;
    QTest::newRow("cache-size negative") << R"({"cache-size": -1})"_ba << u"setting 'cache-size'"_s;
    QTest::newRow("max-spend negative") << R"({"max-spend": -1})"_ba << u"setting 'max-spend'"_s;
    QTest::newRow("a bool") << R"({"timeout": true})"_ba << u"setting 'timeout'"_s;
    QTest::newRow("unknown") << R"({"listen": "127.0.0.1:9"})"_ba << u"unknown setting 'listen'"_s;
}

void TestLiveControl::withChanges_checksLikeTheCommandLine()
{
    QFETCH(QByteArray, changes);
    QFETCH(QString, error);
    const LiveSettings base;
    const Expected<LiveSettings> changed = LiveSettings::withChanges(base, json(changes));
    QCOMPARE(changed.ok(), error.isEmpty());
    if (!error.isEmpty()) {
        QVERIFY2(changed.error().contains(error), qPrintable(changed.error()));
        return;
    }
    // What came in goes out again under the same names and units.
    const QJsonObject out = changed.value().toJson();
    const QJsonObject in = json(changes);
    for (auto it = in.begin(); it != in.end(); ++it) {
        const double want = it.value().isNull() ? 0 : it.value().isString() ? it.value().toString().toDouble()
                                                                              : it.value().toDouble();
        QCOMPARE(out.value(it.key()).toDouble(), want);
    }
}

// The mock hangs. A call started under the 60 s timeout keeps it; the next call, after the timeout
// is set to 0.2 s live, ends 504 while the first is still waiting.
void TestLiveControl::timeout_liveChange_endsTheNextCallSooner_callInFlightKeepsItsOwn()
{
    ProxyHarness harness;   // --timeout 60 (the default)
    harness.mock()->setMode(MockProvider::Mode::Hang);
    LoopbackClient *before = harness.start(kChat, chatBody(u"hangs under the old timeout"_s));
    QTRY_COMPARE_WITH_TIMEOUT(harness.mock()->inFlight(), 1, kWait);

    const LoopbackResponse changed = control(harness, "PATCH", kSettings, R"({"timeout": 0.2})");
    QCOMPARE(changed.status, 200);
    QCOMPARE(json(changed.body).value(u"timeout"_s).toDouble(), 0.2);

    const LoopbackResponse after = harness.post(kChat, chatBody(u"hangs under the new timeout"_s));
    QCOMPARE(after.status, 504);
    QCOMPARE(after.header("x-should-retry"), "false"_ba);
    QVERIFY2(json(after.body).value(u"error"_s).toObject().value(u"message"_s).toString().contains(u"0.2"_s),
             after.body.constData());
    QVERIFY(!before->isFinished());   // still under its own 60 s
    QTRY_COMPARE_WITH_TIMEOUT(harness.mock()->inFlight(), 1, kWait);   // the mock sees the second hang up
    QVERIFY(!before->isFinished());
    QTRY_COMPARE_WITH_TIMEOUT(harness.records.size(), 1, kWait);
    QCOMPARE(endingOf(harness.records.first()), Ending::Timeout);
}

void TestLiveControl::breakerThreshold_loweredFromFiveToTwo_twoFailuresOpen()
{
    ProxyHarness harness;   // --breaker-failures 5 (the default)
    harness.mock()->setMode(MockProvider::Mode::Error503);
    QCOMPARE(harness.post(kChat, chatBody(u"first failure"_s)).status, 503);
    QCOMPARE(control(harness, "PATCH", kSettings, R"({"breaker-failures": 2})").status, 200);
    QCOMPARE(openaiState(harness), BreakerState::Closed);   // one failure: below the new threshold
    QCOMPARE(harness.post(kChat, chatBody(u"second failure"_s)).status, 503);
    QTRY_COMPARE_WITH_TIMEOUT(harness.transitions.size(), 1, kWait);
    QCOMPARE(openaiState(harness), BreakerState::Open);
    QVERIFY2(harness.transitions.first().reason.english().startsWith(u"2 consecutive failures"_s),
             qPrintable(harness.transitions.first().reason.english()));
    QCOMPARE(errorCode(harness.post(kChat, chatBody(u"refused"_s))), u"breaker_open"_s);
    QCOMPARE(harness.mock()->callCount(u"/v1/chat/completions"_s), 2);
}

// The change itself opens nothing: it is no news about the provider. The next failure does.
void TestLiveControl::breakerThreshold_loweredBelowTheFailuresCounted_opensAtTheNextFailure()
{
    ProxyHarness harness;
    harness.mock()->setMode(MockProvider::Mode::Error503);
    for (int i = 0; i < 3; ++i)
        QCOMPARE(harness.post(kChat, chatBody(u"failure %1"_s.arg(i))).status, 503);
    applyLive(harness, [](LiveSettings &s) { s.breakerFailures = 2; });
    QCOMPARE(openaiState(harness), BreakerState::Closed);
    QCOMPARE(harness.post(kChat, chatBody(u"fourth failure"_s)).status, 503);
    QTRY_COMPARE_WITH_TIMEOUT(harness.transitions.size(), 1, kWait);
    QVERIFY2(harness.transitions.first().reason.english().startsWith(u"4 consecutive failures"_s),
             qPrintable(harness.transitions.first().reason.english()));
}

void TestLiveControl::breakerCooldown_shortenedWhileOpen_halfOpensAtOnce()
{
    FakeClock clock;
    ProxyHarness harness({}, &clock);   // --breaker-cooldown 60
    QCOMPARE(harness.onProxyThread<std::optional<bool>>([](ProxyServer *p) {
        return p->actOnBreaker("openai", BreakerAction::Open); }), std::optional<bool>(true));
    clock.advance(10'000);
    QCOMPARE(openaiState(harness), BreakerState::Open);   // 50 s of the old cool-down left
    applyLive(harness, [](LiveSettings &s) { s.breakerCooldown = 5s; });
    QCOMPARE(openaiState(harness), BreakerState::HalfOpen);   // opened 10 s ago: the new 5 s have passed
    QCOMPARE(harness.post(kChat, chatBody(u"the trial"_s)).status, 200);
    QCOMPARE(openaiState(harness), BreakerState::Closed);
}

void TestLiveControl::concurrency_raised_startsQueuedCallsAtOnce()
{
    ProxyHarness harness([](ProxyConfig &c) { c.concurrency = 1; });
    harness.mock()->setHoldAnswers(true);
    QList<LoopbackClient *> calls;
    for (int i = 0; i < 3; ++i)
        calls << harness.start(kChat, chatBody(u"queued %1"_s.arg(i)));
    const auto queued = [&harness] {
        return harness.onProxyThread<int>([](ProxyServer *p) { return p->openai().pool->queued(); });
    };
    QTRY_COMPARE_WITH_TIMEOUT(queued(), 2, kWait);
    QCOMPARE(harness.mock()->heldCount(), 1);

    applyLive(harness, [](LiveSettings &s) { s.concurrency = 3; });
    QTRY_COMPARE_WITH_TIMEOUT(harness.mock()->heldCount(), 3, kWait);   // no call had to end first
    QCOMPARE(queued(), 0);
    QCOMPARE(harness.onProxyThread<int>([](ProxyServer *p) { return p->openai().pool->concurrency(); }), 3);
    harness.mock()->releaseHeld();
    QTRY_VERIFY_WITH_TIMEOUT(allFinished(calls), kWait);
    for (const LoopbackClient *call : std::as_const(calls))
        QCOMPARE(call->response().status, 200);
}

void TestLiveControl::cacheSize_shrunk_evictsTheLeastRecentlyUsedAtOnce()
{
    ProxyHarness harness;
    for (int i = 0; i < 3; ++i)
        QCOMPARE(harness.post(kChat, chatBody(u"kept %1"_s.arg(i))).status, 200);
    const auto cache = [&harness] {
        return harness.onProxyThread<std::pair<int, qint64>>([](ProxyServer *p) {
            return std::pair<int, qint64>(p->cache().count(), p->cache().bytes()); });
    };
    const auto [entries, bytes] = cache();
    QCOMPARE(entries, 3);
    applyLive(harness, [bytes](LiveSettings &s) { s.cacheBytes = bytes - 1; });   // one answer too many
    QCOMPARE(cache().first, 2);
    QVERIFY(cache().second <= bytes - 1);
    const int calls = harness.mock()->callCount();
    QCOMPARE(harness.post(kChat, chatBody(u"kept 2"_s)).header("x-breakwater-dedup"), "hit"_ba);
    QCOMPARE(harness.post(kChat, chatBody(u"kept 0"_s)).header("x-breakwater-dedup"), "miss"_ba);   // the oldest went
    QCOMPARE(harness.mock()->callCount(), calls + 1);

    QCOMPARE(control(harness, "PATCH", kSettings, R"({"cache-size": 0})").status, 200);
    QCOMPARE(cache(), (std::pair<int, qint64>(0, 0)));
    QCOMPARE(harness.post(kChat, chatBody(u"kept 2"_s)).header("x-breakwater-dedup"), "miss"_ba);
}

void TestLiveControl::dedupWindow_zero_dropsKeptAnswers()
{
    ProxyHarness harness;
    QCOMPARE(harness.post(kChat, chatBody(u"reused"_s)).status, 200);
    QCOMPARE(harness.post(kChat, chatBody(u"reused"_s)).header("x-breakwater-dedup"), "hit"_ba);
    QCOMPARE(control(harness, "PATCH", kSettings, R"({"dedup-window": 0})").status, 200);
    QCOMPARE(harness.onProxyThread<int>([](ProxyServer *p) { return p->cache().count(); }), 0);
    QCOMPARE(harness.post(kChat, chatBody(u"reused"_s)).header("x-breakwater-dedup"), "miss"_ba);
    QCOMPARE(harness.mock()->callCount(), 2);
}

void TestLiveControl::spendCap_setLive_refusesTheNextCall_liftedAdmitsIt()
{
    ProxyHarness harness;   // no cap
    QCOMPARE(harness.post(kChat, chatBody(u"free to run"_s)).status, 200);
    QCOMPARE(control(harness, "PATCH", kSettings, R"({"max-spend": 0.000001})").status, 200);
    const LoopbackResponse refused = harness.post(kChat, chatBody(u"over the new cap"_s));
    QCOMPARE(refused.status, 429);
    QCOMPARE(errorCode(refused), u"spend_limit_exceeded"_s);
    QCOMPARE(refused.header("x-should-retry"), "false"_ba);
    QCOMPARE(harness.mock()->callCount(), 1);
    QCOMPARE(harness.onProxyThread<double>([](ProxyServer *p) { return p->snapshot().spendCapUsd; }), 0.000001);

    QCOMPARE(control(harness, "PATCH", kSettings, R"({"max-spend": 0})").status, 200);
    QCOMPARE(harness.post(kChat, chatBody(u"over the new cap"_s)).status, 200);
    QCOMPARE(harness.mock()->callCount(), 2);
}

void TestLiveControl::breakerButtons_moveTheStateWithAReason()
{
    FakeClock clock;   // the cool-down never passes by itself
    ProxyHarness harness({}, &clock);
    const auto act = [&harness](BreakerAction action) {
        return harness.onProxyThread<std::optional<bool>>([action](ProxyServer *p) { return p->actOnBreaker("openai", action); });
    };
    QCOMPARE(act(BreakerAction::Probe), std::optional<bool>(false));   // closed: nothing to probe for
    QCOMPARE(act(BreakerAction::Open), std::optional<bool>(true));
    QCOMPARE(act(BreakerAction::Open), std::optional<bool>(false));    // already open
    QTRY_COMPARE_WITH_TIMEOUT(harness.transitions.size(), 1, kWait);
    QCOMPARE(harness.transitions.last().reason.english(), u"opened by hand"_s);
    QCOMPARE(harness.transitions.last().to, BreakerState::Open);
    const LoopbackResponse refused = harness.post(kChat, chatBody(u"refused by hand"_s));
    QCOMPARE(refused.status, 503);
    QCOMPARE(errorCode(refused), u"breaker_open"_s);
    QCOMPARE(refused.header("retry-after"), "60"_ba);
    QVERIFY2(json(refused.body).value(u"error"_s).toObject().value(u"message"_s).toString().contains(u"opened by hand"_s),
             refused.body.constData());
    QCOMPARE(harness.mock()->callCount(u"/v1/chat/completions"_s), 0);

    QCOMPARE(act(BreakerAction::Probe), std::optional<bool>(true));   // the mock answers the model list
    QTRY_COMPARE_WITH_TIMEOUT(harness.transitions.size(), 2, kWait);
    QCOMPARE(harness.transitions.last().to, BreakerState::HalfOpen);
    QCOMPARE(harness.transitions.last().reason.english(), u"health probe succeeded"_s);

    QCOMPARE(act(BreakerAction::Close), std::optional<bool>(true));
    QTRY_COMPARE_WITH_TIMEOUT(harness.transitions.size(), 3, kWait);
    QCOMPARE(harness.transitions.last().to, BreakerState::Closed);
    QCOMPARE(harness.transitions.last().reason.english(), u"closed by hand"_s);
    QCOMPARE(harness.post(kChat, chatBody(u"flowing again"_s)).status, 200);
    QCOMPARE(harness.onProxyThread<std::optional<bool>>([](ProxyServer *p) {
        return p->actOnBreaker("nowhere", BreakerAction::Open); }), std::optional<bool>());
}

// The periodic probe would half-open a hand-opened breaker within an interval; it stays away.
void TestLiveControl::openedByHand_isNotProbedUntilAskedTo()
{
    FakeClock clock;
    ProxyHarness harness([](ProxyConfig &c) { c.breakerProbeInterval = 1ms; }, &clock);
    harness.onProxyThread<std::optional<bool>>([](ProxyServer *p) { return p->actOnBreaker("openai", BreakerAction::Open); });
    // Twenty round trips through the proxy's event loop: a 1 ms probe timer would have fired.
    for (int i = 0; i < 20; ++i)
        QCOMPARE(harness.get("/healthz").status, 200);
    QCOMPARE(harness.mock()->callCount(u"/v1/models"_s), 0);
    QCOMPARE(openaiState(harness), BreakerState::Open);
    // Opened by failures, the same breaker is probed as before.
    harness.onProxyThread<std::optional<bool>>([](ProxyServer *p) { return p->actOnBreaker("openai", BreakerAction::Close); });
    harness.mock()->setMode(MockProvider::Mode::Error503);
    for (int i = 0; i < 5; ++i)
        harness.post(kChat, chatBody(u"failure %1"_s.arg(i)));
    QTRY_VERIFY_WITH_TIMEOUT(harness.mock()->callCount(u"/v1/models"_s) > 0, kWait);
}

void TestLiveControl::pause_refusesNewCalls503_callsInFlightGoOn_healthzSaysSo()
{
    ProxyHarness harness;
    harness.mock()->setHoldAnswers(true);
    LoopbackClient *inFlight = harness.start(kChat, chatBody(u"admitted before the pause"_s));
    QTRY_COMPARE_WITH_TIMEOUT(harness.mock()->heldCount(), 1, kWait);

    const LoopbackResponse paused = control(harness, "POST", "/breakwater/admission/pause");
    QCOMPARE(paused.status, 200);
    QCOMPARE(json(paused.body).value(u"paused"_s).toBool(), true);
    const LoopbackResponse refused = harness.post(kChat, chatBody(u"admitted before the pause"_s));   // would join
    QCOMPARE(refused.status, 503);
    QCOMPARE(errorCode(refused), u"paused"_s);
    QCOMPARE(refused.header("x-should-retry"), "false"_ba);
    QCOMPARE(refused.header("retry-after"), "5"_ba);
    const LoopbackResponse anthropic = harness.post("/v1/messages", messagesBody(u"paused too"_s), kAnthropicAuth);
    QCOMPARE(anthropic.status, 503);
    QCOMPARE(json(anthropic.body).value(u"type"_s).toString(), u"error"_s);   // Anthropic's own shape
    const LoopbackResponse health = harness.get("/healthz");
    QCOMPARE(health.status, 200);
    QCOMPARE(json(health.body).value(u"paused"_s).toBool(), true);
    QCOMPARE(json(health.body).value(u"status"_s).toString(), u"ok"_s);

    harness.mock()->releaseHeld();   // the call in flight goes on to its answer
    QTRY_VERIFY_WITH_TIMEOUT(inFlight->isFinished(), kWait);
    QCOMPARE(inFlight->response().status, 200);
    QCOMPARE(harness.mock()->callCount(), 1);
    QTRY_COMPARE_WITH_TIMEOUT(harness.records.size(), 3, kWait);
    QCOMPARE(endingOf(harness.records.at(0)), Ending::Paused);
    QVERIFY(isRefusal(Ending::Paused));

    QCOMPARE(json(control(harness, "POST", "/breakwater/admission/resume").body).value(u"paused"_s).toBool(), false);
    QCOMPARE(json(harness.get("/healthz").body).contains(u"paused"_s), false);   // said only while paused
    harness.mock()->setHoldAnswers(false);
    QCOMPARE(harness.post(kChat, chatBody(u"after the pause"_s)).status, 200);
}

void TestLiveControl::controlApi_getPatchAndBadValues()
{
    ProxyHarness harness([](ProxyConfig &c) { c.upstreamTimeout = 7s; c.concurrency = 4; });
    const LoopbackResponse got = control(harness, "GET", kSettings);
    QCOMPARE(got.status, 200);
    QCOMPARE(got.header("content-type"), "application/json"_ba);
    const QJsonObject settings = json(got.body);
    QCOMPARE(settings.keys(), QStringList({u"breaker-cooldown"_s, u"breaker-failures"_s, u"cache-size"_s,
                                           u"concurrency"_s, u"dedup-window"_s, u"max-spend"_s, u"timeout"_s}));
    QCOMPARE(settings.value(u"timeout"_s).toDouble(), 7.0);
    QCOMPARE(settings.value(u"concurrency"_s).toInt(), 4);
    QCOMPARE(settings.value(u"cache-size"_s).toDouble(), 64.0);

    const LoopbackResponse patched = control(harness, "PATCH", kSettings, R"({"timeout": 2, "concurrency": "8"})");
    QCOMPARE(patched.status, 200);
    QCOMPARE(json(patched.body).value(u"timeout"_s).toDouble(), 2.0);
    QCOMPARE(live(harness).concurrency, 8);
    QCOMPARE(control(harness, "PUT", kSettings, R"({"breaker-failures": 3})").status, 200);
    QCOMPARE(live(harness).breakerFailures, 3);
    QCOMPARE(live(harness).timeout, 2000ms);   // PUT too takes a subset: the others stay

    // A bad value is a 400 that names it, and nothing changes, not even the good values beside it.
    const LiveSettings before = live(harness);
    const LoopbackResponse bad = control(harness, "PATCH", kSettings, R"({"timeout": 1, "concurrency": 0})");
    QCOMPARE(bad.status, 400);
    QCOMPARE(bad.header("x-should-retry"), "false"_ba);
    const QString message = json(bad.body).value(u"error"_s).toObject().value(u"message"_s).toString();
    QVERIFY2(message.contains(u"concurrency"_s) && message.contains(u"nothing was changed"_s), qPrintable(message));
    QCOMPARE(errorCode(bad), u"invalid_setting"_s);
    QCOMPARE(live(harness), before);
    QCOMPARE(control(harness, "PATCH", kSettings, R"({"no-such": 1})").status, 400);
    QCOMPARE(control(harness, "PATCH", kSettings, "[1, 2]").status, 400);
    QCOMPARE(control(harness, "PATCH", kSettings, "{not json").status, 400);
    QCOMPARE(live(harness), before);
    const LoopbackResponse wrongMethod = control(harness, "DELETE", kSettings);
    QCOMPARE(wrongMethod.status, 405);
    QCOMPARE(wrongMethod.header("allow"), "GET, PUT, PATCH"_ba);
}

void TestLiveControl::controlApi_refusesChangesFromAnyOrigin_evenAnAllowedOne()
{
    ProxyHarness harness([](ProxyConfig &c) { c.allowedOrigins = {u"http://localhost:3000"_s}; });
    const HeaderList fromPage{{"Content-Type", "application/json"}, {"Origin", "http://localhost:3000"}};
    const LiveSettings before = live(harness);
    // With the owner's token too: a page never changes anything.
    for (const auto &[method, path] : QList<std::pair<QByteArray, QByteArray>>{
             {"PATCH", kSettings}, {"PUT", kSettings}, {"POST", "/breakwater/breaker/openai/open"},
             {"POST", "/breakwater/admission/pause"}}) {
        const LoopbackResponse refused = control(harness, method, path, R"({"timeout": 1})", fromPage);
        QCOMPARE(refused.status, 403);
        QCOMPARE(refused.header("x-should-retry"), "false"_ba);
        QCOMPARE(errorCode(refused), u"origin_not_allowed"_s);
    }
    QCOMPARE(live(harness), before);
    QCOMPARE(openaiState(harness), BreakerState::Closed);
    QCOMPARE(harness.onProxyThread<bool>([](ProxyServer *p) { return p->isAdmissionPaused(); }), false);
    // The same page may still read (GET only reads), with the token like anyone.
    QCOMPARE(control(harness, "GET", "/breakwater/stats", {}, fromPage).status, 200);
    QCOMPARE(control(harness, "GET", kSettings, {}, fromPage).status, 200);
    QCOMPARE(fetch(harness.port(), "GET", kSettings, fromPage).status, 401);
}

void TestLiveControl::controlApi_breakerAndAdmissionRoutes_showInStats()
{
    ProxyHarness harness;
    const auto stats = [&harness] { return json(harness.control("GET", "/breakwater/stats").body); };
    const auto openaiInStats = [&stats] {
        return stats().value(u"upstreams"_s).toArray().at(0).toObject().value(u"breaker"_s).toString();
    };
    QCOMPARE(openaiInStats(), u"closed"_s);
    const LoopbackResponse opened = control(harness, "POST", "/breakwater/breaker/openai/open");
    QCOMPARE(opened.status, 200);
    QCOMPARE(json(opened.body), (QJsonObject{{u"upstream"_s, u"openai"_s}, {u"breaker"_s, u"open"_s}, {u"changed"_s, true}}));
    QCOMPARE(openaiInStats(), u"open"_s);
    QCOMPARE(json(control(harness, "POST", "/breakwater/breaker/openai/probe").body).value(u"probing"_s).toBool(), true);
    QCOMPARE(control(harness, "POST", "/breakwater/breaker/openai/close").status, 200);
    QCOMPARE(openaiInStats(), u"closed"_s);
    QCOMPARE(control(harness, "POST", "/breakwater/breaker/nowhere/open").status, 404);
    QCOMPARE(control(harness, "POST", "/breakwater/breaker/openai/explode").status, 404);
    QCOMPARE(control(harness, "GET", "/breakwater/breaker/openai/open").status, 405);
    QCOMPARE(control(harness, "POST", "/breakwater/admission/sleep").status, 404);

    QCOMPARE(control(harness, "PATCH", kSettings, R"({"timeout": 3})").status, 200);
    QCOMPARE(control(harness, "POST", "/breakwater/admission/pause").status, 200);
    const QJsonObject after = stats();
    QCOMPARE(after.value(u"settings"_s).toObject().value(u"timeout"_s).toDouble(), 3.0);
    QCOMPARE(after.value(u"admissionPaused"_s).toBool(), true);
}

QTEST_GUILESS_MAIN(TestLiveControl)
#include "tst_livecontrol.moc"
