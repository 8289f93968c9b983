// The de-dup key: what must make two requests share an answer, what must keep them apart, and that
// the credential never shows through the key or the fingerprint.

#include "sharing/requestkey.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTest>
#include <QUrl>

#include "http/incomingrequest.h"

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
    return {"/v1/chat/completions", "", "http://127.0.0.1:9/v1", {{"authorization", "Bearer sk-test-1"}}, {},
            parse(kBaseBody)};
}

// `field` names one member of RequestKeyInput, or one header of its lists; `value` replaces it (for
// "body", as JSON text; an empty credential removes it).
RequestKeyInput changed(const QString &field, const QByteArray &value)
{
    RequestKeyInput input = baseInput();
    if (field == u"route") input.route = value;
    else if (field == u"query") input.query = value;
    else if (field == u"upstream") input.upstream = value;
    else if (field == u"credential") input.credentials = value.isEmpty() ? HeaderList{} : HeaderList{{"authorization", value}};
    else if (RequestKeyInput::keyedHeaders().contains(field.toLatin1())) input.apiHeaders = {{field.toLatin1(), value}};
    else if (field == u"body") input.body = parse(value);
    else qFatal("unknown field %s", qPrintable(field));
    return input;
}

// The key of a request as the proxy builds it, from the client's headers and query string.
QByteArray keyOf(const HeaderList &headers, const QByteArray &query = {})
{
    IncomingRequest request;
    request.method = "POST";
    request.path = "/v1/messages";
    request.query = query;
    request.headers = headers;
    request.body = kBaseBody;
    return requestKey(RequestKeyInput::from(request.path, QUrl(u"http://127.0.0.1:9"_s), request, parse(kBaseBody)));
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
    void fromRequest_keysQueryEveryValueAndEveryCredential_data();
    void fromRequest_keysQueryEveryValueAndEveryCredential();
    void fingerprint_isTwelveHexDigitsWithoutTheCredential_data();
    void fingerprint_isTwelveHexDigitsWithoutTheCredential();
    void key_doesNotContainTheCredential();
    void keyInputs_describeQueryKeysAndUserinfoOnlyByFingerprint_data();
    void keyInputs_describeQueryKeysAndUserinfoOnlyByFingerprint();
};

void TestRequestKey::key_isThirtyTwoBytesAndStable()
{
    const QByteArray key = requestKey(baseInput());
    QCOMPARE(key.size(), 32);
    QCOMPARE(requestKey(baseInput()), key);
    // The same bytes as every earlier version made (the fleet's processes share keys in Redis, and
    // a rolling upgrade runs two versions at once): the hash's implementation may change, its input
    // and output may not.
    QCOMPARE(key.toHex(), "80a2b94afb7ef01b911dad42b4975a1913e9df52e7139b4dd48f0e4a0168893b"_ba);
    QCOMPARE(fingerprint("Bearer sk-test-1"), "efde3a41b387"_ba);
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
    QTest::newRow("query") << u"query"_s << "key=alice"_ba;
    QTest::newRow("upstream") << u"upstream"_s << "https://api.openai.com/v1"_ba;
    QTest::newRow("credential") << u"credential"_s << "Bearer sk-test-2"_ba;
    QTest::newRow("no credential") << u"credential"_s << ""_ba;
    QTest::newRow("anthropic-version") << u"anthropic-version"_s << "2023-06-01"_ba;
    QTest::newRow("anthropic-beta") << u"anthropic-beta"_s << "prompt-caching-2024-07-31"_ba;
    QTest::newRow("OpenAI-Beta") << u"openai-beta"_s << "assistants=v2"_ba;
    QTest::newRow("OpenAI-Organization") << u"openai-organization"_s << "org-1"_ba;
    QTest::newRow("OpenAI-Project") << u"openai-project"_s << "proj_1"_ba;
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
    a.apiHeaders = {{"anthropic-version", "2023-06-01"}, {"anthropic-beta", ""}};
    RequestKeyInput b = baseInput();
    b.apiHeaders = {{"anthropic-version", "2023-06"}, {"anthropic-beta", "-01"}};
    QVERIFY(requestKey(a) != requestKey(b));
    RequestKeyInput c = baseInput();
    c.apiHeaders = {{"openai-organization", "org-1"}};
    RequestKeyInput d = baseInput();
    d.apiHeaders = {{"openai-project", "org-1"}};
    QVERIFY(requestKey(c) != requestKey(d));
    // A value moved between the query and the route, or between two headers' values, is another request.
    RequestKeyInput e = baseInput();
    e.route = "/v1/chat/completions?a";
    RequestKeyInput f = baseInput();
    f.query = "a";
    QVERIFY(requestKey(e) != requestKey(f));
    RequestKeyInput g = baseInput();
    g.apiHeaders = {{"anthropic-beta", "a, b"}};
    RequestKeyInput h = baseInput();
    h.apiHeaders = {{"anthropic-beta", "a"}, {"anthropic-beta", "b"}};
    QVERIFY(requestKey(g) != requestKey(h));
}

void TestRequestKey::stainlessHeaders_areNotKeyInputs()
{
    // By construction: the key's input has exactly these six members, and its header lists hold
    // only credential headers and keyedHeaders(), none of which is a per-attempt header
    // (X-Stainless-Retry-Count, X-Stainless-Timeout, ...). A seventh member breaks this structured
    // binding and the build, so adding one is a decision someone has to make here. tst_singleflight
    // checks the proxy side: requests differing only in those headers share a call.
    const RequestKeyInput input = baseInput();
    const auto &[route, query, upstream, credentials, apiHeaders, body] = input;
    QCOMPARE(route, "/v1/chat/completions"_ba);
    QVERIFY(query.isEmpty());
    QCOMPARE(upstream, "http://127.0.0.1:9/v1"_ba);
    QCOMPARE(credentials, (HeaderList{{"authorization", "Bearer sk-test-1"}}));
    QVERIFY(apiHeaders.isEmpty());
    QVERIFY(!body.contains(u"X-Stainless-Retry-Count"_s));
    for (const QByteArray &name : RequestKeyInput::keyedHeaders())
        QVERIFY2(!name.startsWith("x-stainless"), name.constData());
}

void TestRequestKey::fromRequest_keysQueryEveryValueAndEveryCredential_data()
{
    // Two requests as clients send them; `same` is whether they may share an answer.
    QTest::addColumn<HeaderList>("headersA");
    QTest::addColumn<QByteArray>("queryA");
    QTest::addColumn<HeaderList>("headersB");
    QTest::addColumn<QByteArray>("queryB");
    QTest::addColumn<bool>("same");
    const HeaderList key{{"x-api-key", "sk-ant-1"}, {"anthropic-version", "2023-06-01"}};
    const auto with = [&key](const HeaderList &more) { return key + more; };
    QTest::newRow("?key=alice vs ?key=mallory") << key << "key=alice"_ba << key << "key=mallory"_ba << false;
    QTest::newRow("?beta=true vs none") << key << "beta=true"_ba << key << ""_ba << false;
    QTest::newRow("same query") << key << "beta=true"_ba << key << "beta=true"_ba << true;
    QTest::newRow("second anthropic-beta differs")
        << with({{"anthropic-beta", "a"}, {"anthropic-beta", "b"}}) << ""_ba
        << with({{"anthropic-beta", "a"}, {"anthropic-beta", "c"}}) << ""_ba << false;
    QTest::newRow("two anthropic-beta, other order")
        << with({{"anthropic-beta", "a"}, {"anthropic-beta", "b"}}) << ""_ba
        << with({{"anthropic-beta", "b"}, {"anthropic-beta", "a"}}) << ""_ba << false;
    QTest::newRow("second anthropic-beta added")
        << with({{"anthropic-beta", "a"}}) << ""_ba
        << with({{"anthropic-beta", "a"}, {"anthropic-beta", "b"}}) << ""_ba << false;
    QTest::newRow("headers interleaved differently")
        << HeaderList{{"anthropic-beta", "a"}, {"x-api-key", "sk-ant-1"}, {"anthropic-version", "2023-06-01"}} << ""_ba
        << HeaderList{{"anthropic-version", "2023-06-01"}, {"x-api-key", "sk-ant-1"}, {"anthropic-beta", "a"}} << ""_ba
        << true;
    QTest::newRow("header names in another case")
        << with({{"Anthropic-Beta", "a"}}) << ""_ba << with({{"anthropic-beta", "a"}}) << ""_ba << true;
    QTest::newRow("Authorization and x-api-key: second credential differs")
        << with({{"Authorization", "Bearer sk-ant-1"}}) << ""_ba
        << with({{"Authorization", "Bearer sk-ant-2"}}) << ""_ba << false;
    QTest::newRow("Authorization added beside x-api-key")
        << key << ""_ba << with({{"Authorization", "Bearer sk-ant-2"}}) << ""_ba << false;
    QTest::newRow("api-key added") << key << ""_ba << with({{"api-key", "azure-1"}}) << ""_ba << false;
    QTest::newRow("only x-goog-api-key differs")
        << HeaderList{{"x-goog-api-key", "AIza-alice"}} << ""_ba << HeaderList{{"x-goog-api-key", "AIza-mallory"}}
        << ""_ba << false;
    QTest::newRow("?api_key= differs beside another parameter")
        << key << "alt=sse&api_key=alice"_ba << key << "alt=sse&api_key=mallory"_ba << false;
    QTest::newRow("X-Stainless-Retry-Count differs")
        << with({{"X-Stainless-Retry-Count", "0"}, {"X-Stainless-Timeout", "600"}}) << ""_ba
        << with({{"X-Stainless-Retry-Count", "2"}, {"X-Stainless-Timeout", "598"}}) << ""_ba << true;
    QTest::newRow("Codex turn headers differ")
        << with({{"x-codex-turn-metadata", "1"}, {"session-id", "s1"}, {"x-client-request-id", "r1"}}) << ""_ba
        << with({{"x-codex-turn-metadata", "2"}, {"session-id", "s2"}, {"x-client-request-id", "r2"}}) << ""_ba << true;
}

void TestRequestKey::fromRequest_keysQueryEveryValueAndEveryCredential()
{
    QFETCH(HeaderList, headersA);
    QFETCH(QByteArray, queryA);
    QFETCH(HeaderList, headersB);
    QFETCH(QByteArray, queryB);
    QFETCH(bool, same);
    QCOMPARE(keyOf(headersA, queryA) == keyOf(headersB, queryB), same);
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
    input.credentials = {{"authorization", "Bearer sk-secret-0123456789"}};
    const QByteArray key = requestKey(input);
    QVERIFY(!key.contains("sk-secret"));
    QVERIFY(!key.toHex().contains("sk-secret"));
    // And the canonical body is the body only: nothing of the credential is folded into it.
    QVERIFY(!canonicalJson(input.body).contains("sk-secret"));
}

void TestRequestKey::keyInputs_describeQueryKeysAndUserinfoOnlyByFingerprint_data()
{
    QTest::addColumn<QByteArray>("query");
    QTest::addColumn<QString>("upstream");
    QTest::addColumn<QByteArray>("secret");
    QTest::addColumn<QByteArray>("otherSecret");   // the same request with this instead: another key
    QTest::addColumn<QByteArray>("described");     // what the description says instead
    QTest::addColumn<QByteArray>("fingerprinted"); // the value whose fingerprint it shows
    QTest::newRow("?key=") << "key=AIzaSyA-alice-0123456789abcdefghijkl&alt=sse"_ba << u"http://127.0.0.1:9"_s
                           << "AIzaSyA-alice-0123456789abcdefghijkl"_ba << "AIzaSyA-mallory-0123456789abcdefghi"_ba
                           << "query: key=REDACTED&alt=sse\n"_ba << "AIzaSyA-alice-0123456789abcdefghijkl"_ba;
    QTest::newRow("?api-key=") << "api-version=2024-10-21&api-key=azure-secret-1"_ba << u"http://127.0.0.1:9"_s
                               << "azure-secret-1"_ba << "azure-secret-2"_ba
                               << "query: api-version=2024-10-21&api-key=REDACTED\n"_ba << "azure-secret-1"_ba;
    QTest::newRow("?access_token= in upper case") << "ACCESS_TOKEN=ya29.token-1"_ba << u"http://127.0.0.1:9"_s
                                                  << "ya29.token-1"_ba << "ya29.token-2"_ba
                                                  << "query: ACCESS_TOKEN=REDACTED\n"_ba << "ya29.token-1"_ba;
    QTest::newRow("upstream userinfo") << ""_ba << u"http://gw-user:s3cret-pass@127.0.0.1:9/v1"_s
                                       << "s3cret-pass"_ba << "other-pass"_ba << "upstream: http://127.0.0.1:9/v1\n"_ba
                                       << "gw-user:s3cret-pass"_ba;
}

void TestRequestKey::keyInputs_describeQueryKeysAndUserinfoOnlyByFingerprint()
{
    QFETCH(QByteArray, query);
    QFETCH(QString, upstream);
    QFETCH(QByteArray, secret);
    QFETCH(QByteArray, otherSecret);
    QFETCH(QByteArray, described);
    QFETCH(QByteArray, fingerprinted);
    IncomingRequest request;
    request.method = "POST";
    request.path = "/v1/chat/completions";
    request.query = query;
    request.headers = {{"Authorization", "Bearer sk-test-1"}};
    const RequestKeyInput input = RequestKeyInput::from(request.path, QUrl(upstream), request, parse(kBaseBody));
    const QByteArray text = describeKeyInput(input);
    QVERIFY2(!text.contains(secret), text.constData());
    QVERIFY2(!text.contains("gw-user"), text.constData());
    QVERIFY2(text.contains(described), text.constData());
    QVERIFY2(text.contains(QByteArray("sha256 " + fingerprint(fingerprinted))), text.constData());   // a fingerprint stands for it
    // The key still covers the secret: another one is another key.
    IncomingRequest other = request;
    other.query.replace(secret, otherSecret);
    QString otherUpstream = upstream;
    otherUpstream.replace(QString::fromLatin1(secret), QString::fromLatin1(otherSecret));
    QVERIFY(requestKey(RequestKeyInput::from(other.path, QUrl(otherUpstream), other, parse(kBaseBody)))
            != requestKey(input));
    QCOMPARE(requestKey(RequestKeyInput::from(request.path, QUrl(upstream), request, parse(kBaseBody))), requestKey(input));
}

QTEST_GUILESS_MAIN(TestRequestKey)
#include "tst_requestkey.moc"
