// The de-dup key: what must make two requests share an answer, what must keep them apart, and that
// the credential never shows through the key or the fingerprint.

#include "sharing/requestkey.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTest>

using namespace Qt::StringLiterals;

namespace {
QJsonObject parse(const QByteArray &json)
{
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(json, &error);
    if (error.error != QJsonParseError::NoError || !document.isObject())
        qFatal("test body is not a JSON object: %s", json.constData());
    return document.object();
}

const QByteArray kBaseBody = R"({"model":"gpt-4o-mini","temperature":0.7,"messages":[)"
                             R"({"role":"system","content":"Be brief."},)"
                             R"({"role":"user","content":"What is a breakwater?"},)"
                             R"({"role":"assistant","content":"A wall against waves."},)"
                             R"({"role":"user","content":"And a proxy?"}]})";

RequestKeyInput baseInput()
{
    return {"/v1/chat/completions", "http://127.0.0.1:9/v1", "Bearer sk-test-1", "", "", "", "",
            parse(kBaseBody)};
}

// `field` names one member of RequestKeyInput; `value` replaces it (for "body", as JSON text).
RequestKeyInput changed(const QString &field, const QByteArray &value)
{
    RequestKeyInput input = baseInput();
    if (field == u"route") input.route = value;
    else if (field == u"upstream") input.upstream = value;
    else if (field == u"credential") input.credential = value;
    else if (field == u"anthropicVersion") input.anthropicVersion = value;
    else if (field == u"anthropicBeta") input.anthropicBeta = value;
    else if (field == u"openaiOrganization") input.openaiOrganization = value;
    else if (field == u"openaiProject") input.openaiProject = value;
    else if (field == u"body") input.body = parse(value);
    else qFatal("unknown field %s", qPrintable(field));
    return input;
}
} // namespace

class TestRequestKey final : public QObject
{
    Q_OBJECT
private slots:
    void key_isThirtyTwoBytesAndStable();
    void sameRequest_sameKey_data();
    void sameRequest_sameKey();
    void anyAnswerChangingInput_differentKey_data();
    void anyAnswerChangingInput_differentKey();
    void largeIntegers_keepEveryDigit();
    void fieldsAreFramed_noTwoSplitsCollide();
    void stainlessHeaders_areNotKeyInputs();
    void fingerprint_isTwelveHexDigitsWithoutTheCredential_data();
    void fingerprint_isTwelveHexDigitsWithoutTheCredential();
    void key_doesNotContainTheCredential();
};

void TestRequestKey::key_isThirtyTwoBytesAndStable()
{
    const QByteArray key = requestKey(baseInput());
    QCOMPARE(key.size(), 32);
    QCOMPARE(requestKey(baseInput()), key);
}

void TestRequestKey::sameRequest_sameKey_data()
{
    QTest::addColumn<QByteArray>("body");   // compared with kBaseBody
    QTest::newRow("identical") << kBaseBody;
    QTest::newRow("top-level keys reordered")
        << R"({"messages":[{"role":"system","content":"Be brief."},{"role":"user","content":"What is a breakwater?"},)"
           R"({"role":"assistant","content":"A wall against waves."},{"role":"user","content":"And a proxy?"}],)"
           R"("temperature":0.7,"model":"gpt-4o-mini"})"_ba;
    QTest::newRow("keys inside messages reordered")
        << R"({"model":"gpt-4o-mini","temperature":0.7,"messages":[{"content":"Be brief.","role":"system"},)"
           R"({"content":"What is a breakwater?","role":"user"},{"content":"A wall against waves.","role":"assistant"},)"
           R"({"content":"And a proxy?","role":"user"}]})"_ba;
    QTest::newRow("whitespace and newlines")
        << "{\n  \"model\" : \"gpt-4o-mini\",\n\t\"temperature\": 0.7 ,\r\n  \"messages\": [\n"
           "    { \"role\": \"system\", \"content\": \"Be brief.\" },\n"
           "    { \"role\": \"user\", \"content\": \"What is a breakwater?\" },\n"
           "    { \"role\": \"assistant\", \"content\": \"A wall against waves.\" },\n"
           "    { \"role\": \"user\", \"content\": \"And a proxy?\" }\n  ]\n}\n"_ba;
    QTest::newRow("escaped characters written out")
        << R"({"model":"gpt-4o-mini","temperature":0.7,"messages":[{"role":"system","content":"Be brief\u002e"},)"
           R"({"role":"user","content":"What is a breakwater?"},{"role":"assistant","content":"A wall against waves."},)"
           R"({"role":"user","content":"And a proxy\u003f"}]})"_ba;
}

void TestRequestKey::sameRequest_sameKey()
{
    QFETCH(QByteArray, body);
    QCOMPARE(requestKey(changed(u"body"_s, body)).toHex(), requestKey(baseInput()).toHex());
}

void TestRequestKey::anyAnswerChangingInput_differentKey_data()
{
    QTest::addColumn<QString>("field");
    QTest::addColumn<QByteArray>("value");
    const auto body = [](const QByteArray &from, const QByteArray &to) {
        QByteArray changedBody = kBaseBody;
        if (!changedBody.contains(from))
            qFatal("base body has no %s", from.constData());
        return changedBody.replace(from, to);
    };
    QTest::newRow("last message") << u"body"_s << body("And a proxy?", "And a dam?");
    // The whole conversation counts: same last words in another chat are another request.
    QTest::newRow("earlier message") << u"body"_s << body("A wall against waves.", "A wall.");
    QTest::newRow("system prompt") << u"body"_s << body("Be brief.", "Be verbose.");
    QTest::newRow("a role") << u"body"_s << body(R"("role":"assistant")", R"("role":"user")");
    QTest::newRow("a message dropped") << u"body"_s << body(R"({"role":"system","content":"Be brief."},)", "");
    QTest::newRow("message order")
        << u"body"_s
        << R"({"model":"gpt-4o-mini","temperature":0.7,"messages":[{"role":"user","content":"What is a breakwater?"},)"
           R"({"role":"system","content":"Be brief."},{"role":"assistant","content":"A wall against waves."},)"
           R"({"role":"user","content":"And a proxy?"}]})"_ba;
    QTest::newRow("temperature") << u"body"_s << body(R"("temperature":0.7)", R"("temperature":0.2)");
    QTest::newRow("temperature dropped") << u"body"_s << body(R"("temperature":0.7,)", "");
    QTest::newRow("model") << u"body"_s << body("gpt-4o-mini", "gpt-4o");
    QTest::newRow("max_tokens added") << u"body"_s << body(R"("temperature":0.7)", R"("temperature":0.7,"max_tokens":5)");
    QTest::newRow("stream") << u"body"_s << body(R"("temperature":0.7)", R"("temperature":0.7,"stream":true)");
    QTest::newRow("tools")
        << u"body"_s
        << body(R"("temperature":0.7)",
                R"("temperature":0.7,"tools":[{"type":"function","function":{"name":"lookup","parameters":{}}}])");
    QTest::newRow("response_format")
        << u"body"_s << body(R"("temperature":0.7)", R"("temperature":0.7,"response_format":{"type":"json_object"})");
    QTest::newRow("route") << u"route"_s << "/v1/completions"_ba;
    QTest::newRow("upstream") << u"upstream"_s << "https://api.openai.com/v1"_ba;
    QTest::newRow("credential") << u"credential"_s << "Bearer sk-test-2"_ba;
    QTest::newRow("no credential") << u"credential"_s << ""_ba;
    QTest::newRow("anthropic-version") << u"anthropicVersion"_s << "2023-06-01"_ba;
    QTest::newRow("anthropic-beta") << u"anthropicBeta"_s << "prompt-caching-2024-07-31"_ba;
    QTest::newRow("OpenAI-Organization") << u"openaiOrganization"_s << "org-1"_ba;
    QTest::newRow("OpenAI-Project") << u"openaiProject"_s << "proj_1"_ba;
}

void TestRequestKey::anyAnswerChangingInput_differentKey()
{
    QFETCH(QString, field);
    QFETCH(QByteArray, value);
    QVERIFY(requestKey(changed(field, value)) != requestKey(baseInput()));
}

void TestRequestKey::largeIntegers_keepEveryDigit()
{
    // Seeds above 2^53 must not be rounded to the same double and merge two different requests.
    const QByteArray a = kBaseBody;
    const QByteArray b = kBaseBody;
    QVERIFY(requestKey(changed(u"body"_s, QByteArray(a).replace("0.7,", "0.7,\"seed\":9007199254740993,")))
            != requestKey(changed(u"body"_s, QByteArray(b).replace("0.7,", "0.7,\"seed\":9007199254740992,"))));
}

void TestRequestKey::fieldsAreFramed_noTwoSplitsCollide()
{
    // The same bytes split differently between neighbouring fields are different requests.
    RequestKeyInput a = baseInput();
    a.anthropicVersion = "2023-06-01";
    a.anthropicBeta = "";
    RequestKeyInput b = baseInput();
    b.anthropicVersion = "2023-06";
    b.anthropicBeta = "-01";
    QVERIFY(requestKey(a) != requestKey(b));
    RequestKeyInput c = baseInput();
    c.openaiOrganization = "org-1";
    RequestKeyInput d = baseInput();
    d.openaiProject = "org-1";
    QVERIFY(requestKey(c) != requestKey(d));
}

void TestRequestKey::stainlessHeaders_areNotKeyInputs()
{
    // By construction: the key's input has exactly these eight members, none of which can carry a
    // per-attempt header (X-Stainless-Retry-Count, X-Stainless-Timeout, ...). A ninth member breaks
    // this structured binding and the build, so adding one is a decision someone has to make here.
    // tst_singleflight checks the proxy side: requests differing only in those headers share a call.
    const RequestKeyInput input = baseInput();
    const auto &[route, upstream, credential, anthropicVersion, anthropicBeta, openaiOrganization,
                 openaiProject, body] = input;
    QCOMPARE(route, "/v1/chat/completions"_ba);
    QCOMPARE(upstream, "http://127.0.0.1:9/v1"_ba);
    QCOMPARE(credential, "Bearer sk-test-1"_ba);
    QVERIFY(anthropicVersion.isEmpty() && anthropicBeta.isEmpty());
    QVERIFY(openaiOrganization.isEmpty() && openaiProject.isEmpty());
    QVERIFY(!body.contains(u"X-Stainless-Retry-Count"_s));
}

void TestRequestKey::fingerprint_isTwelveHexDigitsWithoutTheCredential_data()
{
    QTest::addColumn<QByteArray>("credential");
    QTest::newRow("openai bearer") << "Bearer sk-proj-abcdef0123456789abcdef0123456789"_ba;
    QTest::newRow("anthropic key") << "sk-ant-api03-0123456789abcdef"_ba;
    QTest::newRow("hex-looking key") << "0123456789abcdef0123"_ba;
    QTest::newRow("short") << "k"_ba;
}

void TestRequestKey::fingerprint_isTwelveHexDigitsWithoutTheCredential()
{
    QFETCH(QByteArray, credential);
    const QByteArray print = fingerprint(credential);
    QVERIFY2(QRegularExpression(u"^[0-9a-f]{12}$"_s).match(QString::fromLatin1(print)).hasMatch(), print.constData());
    QCOMPARE(fingerprint(credential), print);
    QVERIFY(fingerprint(credential + 'x') != print);
    // No run of 6 characters of the credential appears in its fingerprint.
    for (qsizetype i = 0; i + 6 <= credential.size(); ++i)
        QVERIFY2(!print.contains(credential.mid(i, 6)), credential.mid(i, 6).constData());
    QVERIFY(!credential.contains(print));
}

void TestRequestKey::key_doesNotContainTheCredential()
{
    RequestKeyInput input = baseInput();
    input.credential = "Bearer sk-secret-0123456789";
    const QByteArray key = requestKey(input);
    QVERIFY(!key.contains("sk-secret"));
    QVERIFY(!key.toHex().contains("sk-secret"));
    // And the canonical body is the body only: nothing of the credential is folded into it.
    QVERIFY(!canonicalJson(input.body).contains("sk-secret"));
}

QTEST_GUILESS_MAIN(TestRequestKey)
#include "tst_requestkey.moc"
