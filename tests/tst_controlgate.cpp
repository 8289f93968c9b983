// Only the owner steers or reads Breakwater's own routes: every route under /breakwater/ (stats with
// their flights, settings, breaker, admission, faults, and paths no route knows) asks for the control
// token, answers 401 in OpenAI's shape without it or with another, and changes nothing then;
// /healthz and /metrics stay open. Real sockets through ProxyHarness.

#include "controlgate.h"
#include "faults/faultinjector.h"
#include "proxyharness.h"
#include "wireevents.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace Qt::StringLiterals;

namespace {

QJsonObject errorOf(const LoopbackResponse &response)
{
    return QJsonDocument::fromJson(response.body).object().value(u"error"_s).toObject();
}

// What the refused requests could have changed, read on the proxy thread.
struct State
{
    bool paused = false;
    BreakerState openai = BreakerState::Closed;
    int faults = 0;
    double timeoutS = 0;
    bool operator==(const State &) const = default;
};

State stateOf(const ProxyHarness &harness)
{
    return harness.onProxyThread<State>([](ProxyServer *p) {
        return State{p->isAdmissionPaused(), p->openai().breaker->state(), int(p->faults()->rules().size()),
                     double(p->liveSettings().timeout.count()) / 1000.0};
    });
}

} // namespace

class TestControlGate final : public QObject
{
    Q_OBJECT
private slots:
    void everyControlRoute_needsTheToken_data();
    void everyControlRoute_needsTheToken();
    void healthzAndMetrics_stayOpen();
    void tokenCheck_takesAnyCaseOfBearer_andNothingElse_data();
    void tokenCheck_takesAnyCaseOfBearer_andNothingElse();
    void proxyWithoutAToken_answersItsControlRoutesToNobody();
    void sameControlToken_comparesWholeTokens_data();
    void sameControlToken_comparesWholeTokens();
};

void TestControlGate::everyControlRoute_needsTheToken_data()
{
    QTest::addColumn<QByteArray>("method");
    QTest::addColumn<QByteArray>("path");
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<int>("status");   // with the right token
    QTest::newRow("stats") << "GET"_ba << "/breakwater/stats"_ba << QByteArray() << 200;
    QTest::newRow("settings, read") << "GET"_ba << "/breakwater/settings"_ba << QByteArray() << 200;
    QTest::newRow("settings, PATCH") << "PATCH"_ba << "/breakwater/settings"_ba << R"({"timeout": 2})"_ba << 200;
    QTest::newRow("settings, PUT") << "PUT"_ba << "/breakwater/settings"_ba << R"({"timeout": 3})"_ba << 200;
    QTest::newRow("breaker") << "POST"_ba << "/breakwater/breaker/openai/open"_ba << QByteArray() << 200;
    QTest::newRow("admission") << "POST"_ba << "/breakwater/admission/pause"_ba << QByteArray() << 200;
    QTest::newRow("faults, list") << "GET"_ba << "/breakwater/faults"_ba << QByteArray() << 200;
    QTest::newRow("faults, add") << "POST"_ba << "/breakwater/faults"_ba << R"({"rule": "garbage:for=60s"})"_ba << 201;
    QTest::newRow("faults, clear") << "DELETE"_ba << "/breakwater/faults"_ba << QByteArray() << 200;
    QTest::newRow("faults, one") << "GET"_ba << "/breakwater/faults/1"_ba << QByteArray() << 200;
    QTest::newRow("faults, remove one") << "DELETE"_ba << "/breakwater/faults/1"_ba << QByteArray() << 200;
    // Nothing under /breakwater/ says anything to a stranger, not even that a path is unknown.
    QTest::newRow("unknown path") << "GET"_ba << "/breakwater/secrets"_ba << QByteArray() << 404;
    QTest::newRow("wrong method") << "DELETE"_ba << "/breakwater/stats"_ba << QByteArray() << 405;
    QTest::newRow("the bare prefix") << "GET"_ba << "/breakwater"_ba << QByteArray() << 404;
}

void TestControlGate::everyControlRoute_needsTheToken()
{
    QFETCH(QByteArray, method);
    QFETCH(QByteArray, path);
    QFETCH(QByteArray, body);
    QFETCH(int, status);
    ProxyHarness harness([](ProxyConfig &c) { c.faults.append(FaultRule::parse(u"503:model=nobody"_s).value()); });
    const State before = stateOf(harness);
    const HeaderList json{{"Content-Type", "application/json"}};

    const LoopbackResponse missing = fetch(harness.port(), method, path, json, body);
    QCOMPARE(missing.status, 401);
    QCOMPARE(missing.header("x-should-retry"), "false"_ba);
    QVERIFY(missing.header("www-authenticate").startsWith("Bearer"));
    QCOMPARE(missing.header("content-type"), "application/json"_ba);
    QCOMPARE(errorOf(missing).value(u"type"_s).toString(), u"authentication_error"_s);
    QCOMPARE(errorOf(missing).value(u"code"_s).toString(), u"control_token_required"_s);
    QVERIFY(errorOf(missing).contains(u"param"_s));   // OpenAI's whole shape: message, type, param, code
    QVERIFY(!errorOf(missing).value(u"message"_s).toString().isEmpty());

    // A provider key where the token belongs is just another wrong token.
    const QList<QByteArray> wrongTokens{"Bearer sk-test-1"_ba, QByteArray("Bearer " + kTestControlToken.chopped(1)),
                                        QByteArray("Bearer " + kTestControlToken + "x"),
                                        QByteArray("Bearer " + kTestControlToken.toUpper())};
    for (const QByteArray &sent : wrongTokens) {
        const LoopbackResponse wrong = fetch(harness.port(), method, path, json + HeaderList{{"Authorization", sent}}, body);
        QCOMPARE(wrong.status, 401);
        QCOMPARE(wrong.header("x-should-retry"), "false"_ba);
        QVERIFY(wrong.header("www-authenticate").startsWith("Bearer"));
        QCOMPARE(errorOf(wrong).value(u"type"_s).toString(), u"authentication_error"_s);
        QCOMPARE(errorOf(wrong).value(u"code"_s).toString(), u"control_token_invalid"_s);
        QVERIFY2(!wrong.body.contains(kTestControlToken), wrong.body.constData());
    }
    QCOMPARE(stateOf(harness), before);   // refused: nothing changed
    QVERIFY(harness.records.isEmpty());   // and nothing is in the call log

    const LoopbackResponse owner = harness.control(method, path, body);
    QCOMPARE(owner.status, status);
}

void TestControlGate::healthzAndMetrics_stayOpen()
{
    ProxyHarness harness;
    const LoopbackResponse health = fetch(harness.port(), "GET", "/healthz");
    QCOMPARE(health.status, 200);
    QCOMPARE(QJsonDocument::fromJson(health.body).object().value(u"status"_s).toString(), u"ok"_s);
    const LoopbackResponse metrics = fetch(harness.port(), "GET", "/metrics");
    QCOMPARE(metrics.status, 200);
    QVERIFY(metrics.body.contains("breakwater_requests_total"));
    // The model routes take the provider's key in Authorization, as always.
    QCOMPARE(harness.post("/v1/chat/completions", chatBody(u"still proxied"_s)).status, 200);
}

void TestControlGate::tokenCheck_takesAnyCaseOfBearer_andNothingElse_data()
{
    QTest::addColumn<QByteArray>("authorization");
    QTest::addColumn<int>("status");
    QTest::newRow("Bearer") << "Bearer " + kTestControlToken << 200;
    QTest::newRow("bearer") << "bearer " + kTestControlToken << 200;
    QTest::newRow("BEARER, spaces around") << "BEARER   " + kTestControlToken + "  " << 200;
    QTest::newRow("the token alone") << kTestControlToken << 401;
    QTest::newRow("Basic") << "Basic " + kTestControlToken << 401;
    QTest::newRow("Bearer and nothing") << "Bearer"_ba << 401;
}

void TestControlGate::tokenCheck_takesAnyCaseOfBearer_andNothingElse()
{
    QFETCH(QByteArray, authorization);
    QFETCH(int, status);
    ProxyHarness harness;
    QCOMPARE(fetch(harness.port(), "GET", "/breakwater/stats", {{"Authorization", authorization}}).status, status);
}

void TestControlGate::proxyWithoutAToken_answersItsControlRoutesToNobody()
{
    ProxyHarness harness([](ProxyConfig &c) { c.controlToken.clear(); });
    QCOMPARE(fetch(harness.port(), "POST", "/breakwater/admission/pause").status, 401);
    QCOMPARE(fetch(harness.port(), "POST", "/breakwater/admission/pause", {{"Authorization", "Bearer "}}).status, 401);
    QCOMPARE(fetch(harness.port(), "POST", "/breakwater/admission/pause", {{"Authorization", "Bearer x"}}).status, 401);
    QCOMPARE(harness.onProxyThread<bool>([](ProxyServer *p) { return p->isAdmissionPaused(); }), false);
}

void TestControlGate::sameControlToken_comparesWholeTokens_data()
{
    QTest::addColumn<QByteArray>("sent");
    QTest::addColumn<QByteArray>("token");
    QTest::addColumn<bool>("same");
    QTest::newRow("same") << "abc"_ba << "abc"_ba << true;
    QTest::newRow("a prefix") << "ab"_ba << "abc"_ba << false;
    QTest::newRow("longer") << "abcd"_ba << "abc"_ba << false;
    QTest::newRow("one byte off") << "abd"_ba << "abc"_ba << false;
    QTest::newRow("empty sent") << QByteArray() << "abc"_ba << false;
    QTest::newRow("no token at all") << QByteArray() << QByteArray() << false;
}

void TestControlGate::sameControlToken_comparesWholeTokens()
{
    QFETCH(QByteArray, sent);
    QFETCH(QByteArray, token);
    QFETCH(bool, same);
    QCOMPARE(sameControlToken(sent, token), same);
}

QTEST_GUILESS_MAIN(TestControlGate)
#include "tst_controlgate.moc"
