// The fault-injection control API (/breakwater/faults) and what /healthz says while a rule is armed:
// list, add (text or fields), clear one or all; a web page (an Origin header) may not steer it even
// from an allowed origin; a bad rule is a 400 in OpenAI's error shape; --fault arms at start.

#include "commandline.h"
#include "fakeclock.h"
#include "faults/faultinjector.h"
#include "proxyharness.h"
#include "wireevents.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace Qt::StringLiterals;

namespace {

const QByteArray kFaults = "/breakwater/faults";
const HeaderList kJson{{"Content-Type", "application/json"}};

QJsonObject json(const LoopbackResponse &response)
{
    return QJsonDocument::fromJson(response.body).object();
}

LoopbackResponse call(const ProxyHarness &harness, const QByteArray &method, const QByteArray &path,
                      const QByteArray &body = {}, const HeaderList &headers = kJson)
{
    return harness.control(method, path, body, headers);
}

} // namespace

class TestFaultControl final : public QObject
{
    Q_OBJECT
private slots:
    void api_listsAddsAndClearsRules();
    void addedRule_firesOnTheNextCall();
    void origin_isRefusedEvenWhenAllowed_data();
    void origin_isRefusedEvenWhenAllowed();
    void badRule_is400InOpenAisShape_data();
    void badRule_is400InOpenAisShape();
    void unknownIdAndMethod_areRefused();
    void healthz_saysWhenARuleIsArmed();
    void faultOption_armsRulesAtStart();
};

void TestFaultControl::api_listsAddsAndClearsRules()
{
    // The clock stands still, so a rule armed "for": 30 has 30 s left when it is answered: the
    // proxy reads the clock once to arm it and once to answer, and on a slow machine (ASan) a real
    // clock moved a millisecond in between (issue 20: 29.999).
    FakeClock clock;
    ProxyHarness harness({}, &clock);
    LoopbackResponse list = call(harness, "GET", kFaults);
    QCOMPARE(list.status, 200);
    QCOMPARE(json(list).value(u"armed"_s).toInt(), 0);

    const LoopbackResponse added = call(harness, "POST", kFaults, R"({"rule": "503:count=2"})");
    QCOMPARE(added.status, 201);
    QCOMPARE(added.header("content-type"), "application/json"_ba);
    QCOMPARE(json(added).value(u"id"_s).toInt(), 1);
    QCOMPARE(json(added).value(u"rule"_s).toString(), u"503:count=2"_s);
    QCOMPARE(json(added).value(u"left"_s).toInt(), 2);
    const LoopbackResponse fields = call(harness, "POST", kFaults, R"({"kind": "cut", "value": 3, "upstream": "anthropic", "for": 30})");
    QCOMPARE(fields.status, 201);
    QCOMPARE(json(fields).value(u"rule"_s).toString(), u"cut=3:upstream=anthropic:for=30s"_s);
    QCOMPARE(json(fields).value(u"expires_in_s"_s).toDouble(), 30.0);

    list = call(harness, "GET", kFaults);
    QCOMPARE(json(list).value(u"armed"_s).toInt(), 2);
    const QJsonArray rules = json(list).value(u"faults"_s).toArray();
    QCOMPARE(rules.size(), 2);
    QCOMPARE(rules[0].toObject().value(u"label"_s).toString(), u"#1 503:count=2"_s);
    QCOMPARE(rules[1].toObject().value(u"kind"_s).toString(), u"cut"_s);
    QCOMPARE(json(call(harness, "GET", kFaults + "/2")).value(u"rule"_s).toString(), u"cut=3:upstream=anthropic:for=30s"_s);

    const LoopbackResponse deleted = call(harness, "DELETE", kFaults + "/1");
    QCOMPARE(deleted.status, 200);
    QCOMPARE(json(deleted).value(u"deleted"_s).toObject().value(u"id"_s).toInt(), 1);
    QCOMPARE(json(call(harness, "GET", kFaults)).value(u"armed"_s).toInt(), 1);
    const LoopbackResponse cleared = call(harness, "DELETE", kFaults);
    QCOMPARE(cleared.status, 200);
    QCOMPARE(json(cleared).value(u"cleared"_s).toInt(), 1);
    QCOMPARE(json(call(harness, "GET", kFaults)).value(u"armed"_s).toInt(), 0);
    QCOMPARE(harness.mock()->callCount(), 0);
}

void TestFaultControl::addedRule_firesOnTheNextCall()
{
    ProxyHarness harness;
    QCOMPARE(harness.post("/v1/chat/completions", chatBody(u"before"_s)).status, 200);
    QCOMPARE(call(harness, "POST", kFaults, R"({"rule": "502:count=1"})").status, 201);
    const LoopbackResponse injected = harness.post("/v1/chat/completions", chatBody(u"after"_s));
    QCOMPARE(injected.status, 502);
    QCOMPARE(injected.header("x-breakwater-fault"), "#1 502:count=1"_ba);
    QCOMPARE(harness.post("/v1/chat/completions", chatBody(u"later"_s)).status, 200);
}

void TestFaultControl::origin_isRefusedEvenWhenAllowed_data()
{
    QTest::addColumn<QByteArray>("method");
    QTest::addColumn<QByteArray>("path");
    QTest::newRow("add") << "POST"_ba << kFaults;
    QTest::newRow("clear") << "DELETE"_ba << kFaults;
    QTest::newRow("clear one") << "DELETE"_ba << kFaults + "/1";
}

void TestFaultControl::origin_isRefusedEvenWhenAllowed()
{
    QFETCH(QByteArray, method);
    QFETCH(QByteArray, path);
    ProxyHarness harness([](ProxyConfig &c) {
        c.allowedOrigins = {u"http://localhost:3000"_s};
        c.faults.append(FaultRule::parse(u"503"_s).value());
    });
    const LoopbackResponse refused = call(harness, method, path, R"({"rule": "hang"})",
                                          kJson + HeaderList{{"Origin", "http://localhost:3000"}});
    QCOMPARE(refused.status, 403);
    QCOMPARE(refused.header("x-should-retry"), "false"_ba);
    QCOMPARE(errorTypeOf(refused.body, ApiStyle::OpenAI), u"permission_error"_s);
    // Nothing changed.
    const QJsonArray rules = json(call(harness, "GET", kFaults)).value(u"faults"_s).toArray();
    QCOMPARE(rules.size(), 1);
    QCOMPARE(rules[0].toObject().value(u"rule"_s).toString(), u"503"_s);
}

void TestFaultControl::badRule_is400InOpenAisShape_data()
{
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<QString>("mention");
    QTest::newRow("unknown kind") << R"({"rule": "teapot"})"_ba << u"unknown kind 'teapot'"_s;
    QTest::newRow("bad option") << R"({"rule": "503:p=200"})"_ba << u"p is a percentage"_s;
    QTest::newRow("bad field") << R"({"kind": "503", "colour": "red"})"_ba << u"unknown field"_s;
    QTest::newRow("not JSON") << "503"_ba << u"JSON object"_s;
    QTest::newRow("no body") << ""_ba << u"JSON object"_s;
}

void TestFaultControl::badRule_is400InOpenAisShape()
{
    QFETCH(QByteArray, body);
    QFETCH(QString, mention);
    ProxyHarness harness;
    const LoopbackResponse refused = call(harness, "POST", kFaults, body);
    QCOMPARE(refused.status, 400);
    QCOMPARE(refused.header("x-should-retry"), "false"_ba);
    QCOMPARE(errorTypeOf(refused.body, ApiStyle::OpenAI), u"invalid_request_error"_s);
    const QJsonObject error = json(refused).value(u"error"_s).toObject();
    QCOMPARE(error.value(u"code"_s).toString(), u"invalid_fault_rule"_s);
    QVERIFY2(error.value(u"message"_s).toString().contains(mention), refused.body.constData());
    QCOMPARE(json(call(harness, "GET", kFaults)).value(u"armed"_s).toInt(), 0);
}

void TestFaultControl::unknownIdAndMethod_areRefused()
{
    ProxyHarness harness;
    const LoopbackResponse unknown = call(harness, "DELETE", kFaults + "/9");
    QCOMPARE(unknown.status, 404);
    QCOMPARE(json(unknown).value(u"error"_s).toObject().value(u"code"_s).toString(), u"fault_not_found"_s);
    QCOMPARE(call(harness, "DELETE", kFaults + "/x").status, 404);
    const LoopbackResponse put = call(harness, "PUT", kFaults, R"({"rule": "503"})");
    QCOMPARE(put.status, 405);
    QCOMPARE(put.header("allow"), "GET, POST, DELETE"_ba);
    QCOMPARE(call(harness, "POST", kFaults + "/1", R"({"rule": "503"})").status, 405);
}

void TestFaultControl::healthz_saysWhenARuleIsArmed()
{
    ProxyHarness harness;
    LoopbackResponse health = harness.get("/healthz");
    QCOMPARE(health.status, 200);
    QCOMPARE(json(health).value(u"status"_s).toString(), u"ok"_s);
    QCOMPARE(json(health).value(u"faults_armed"_s).toInt(), 0);
    QVERIFY(call(harness, "POST", kFaults, R"({"rule": "529:p=30:for=60"})").status == 201);
    health = harness.get("/healthz");
    QCOMPARE(health.status, 200);
    QCOMPARE(json(health).value(u"status"_s).toString(), u"ok"_s);
    QCOMPARE(json(health).value(u"faults_armed"_s).toInt(), 1);
    QCOMPARE(json(health).value(u"faults"_s).toArray().first().toString(), u"#1 529:p=30:for=60s"_s);
}

void TestFaultControl::faultOption_armsRulesAtStart()
{
    const Expected<CommandLine> line = parseCommandLine({u"breakwater"_s, u"--fault"_s, u"503:count=2"_s,
                                                         u"--fault"_s, u"hang:for=30s"_s});
    QVERIFY2(line.ok(), qPrintable(line.error()));
    ProxyHarness harness([&line](ProxyConfig &c) { c.faults = line->config.faults; });
    const QJsonArray rules = json(call(harness, "GET", kFaults)).value(u"faults"_s).toArray();
    QCOMPARE(rules.size(), 2);
    QCOMPARE(rules[0].toObject().value(u"label"_s).toString(), u"#1 503:count=2"_s);
    QCOMPARE(rules[1].toObject().value(u"label"_s).toString(), u"#2 hang:for=30s"_s);
}

QTEST_GUILESS_MAIN(TestFaultControl)
#include "tst_faultcontrol.moc"
