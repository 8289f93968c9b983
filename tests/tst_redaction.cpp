// --log-bodies stores bodies with credentials redacted (issue 12: the old redaction replaced a quoted
// key together with its quotes, so the stored JSON no longer parsed, and knew only sk-/Bearer shapes).
// Each body must come out as valid JSON, without its secret, with everything else kept.
#include "accounting/calllog.h"

#include <QJsonDocument>
#include <QJsonParseError>
#include <QTest>

using namespace Qt::StringLiterals;

class RedactionTest final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void redact_removesTheSecretAndKeepsValidJson_data();
    void redact_removesTheSecretAndKeepsValidJson();
    void redact_removesKeysFromHeaderText_data();
    void redact_removesKeysFromHeaderText();
    void secretNames_matchWholeNamesInAnyCase_data();
    void secretNames_matchWholeNamesInAnyCase();
};

void RedactionTest::redact_removesTheSecretAndKeepsValidJson_data()
{
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<QByteArray>("secret");
    QTest::addColumn<QByteArray>("kept");
    QTest::newRow("openai key in a prompt")
        << QByteArray(R"({"messages":[{"role":"user","content":"my key is sk-proj-abcdefghijklmnop1234, keep it"}]})")
        << QByteArray("sk-proj-abcdefghijklmnop1234") << QByteArray("keep it");
    QTest::newRow("anthropic key as a whole string")
        << QByteArray(R"({"note":"sk-ant-api03-abcdefghijklmnopqrstuvwxyz","model":"claude"})")
        << QByteArray("sk-ant-api03-abcdefghijklmnopqrstuvwxyz") << QByteArray(R"("model":"claude")");
    QTest::newRow("named field with an escaped quote")
        << QByteArray(R"({"api_key":"abc\"def-secret","n":1})") << QByteArray("def-secret") << QByteArray(R"("n":1)");
    QTest::newRow("password field")
        << QByteArray(R"({"password": "hunter2hunter2", "user":"ann"})") << QByteArray("hunter2") << QByteArray("ann");
    QTest::newRow("bearer token in text")
        << QByteArray(R"({"error":{"message":"bad header Bearer eyJhbGciOiJIUzI1NiJ9.payload.sig"}})")
        << QByteArray("eyJhbGciOiJIUzI1NiJ9") << QByteArray("bad header Bearer");
    QTest::newRow("google key")
        << QByteArray(R"({"content":"AIzaSyA1234567890abcdefghijklmnopqrstu"})")
        << QByteArray("AIzaSyA1234567890abcdefghijklmnopqrstu") << QByteArray("content");
    QTest::newRow("aws access key id")
        << QByteArray(R"({"content":"id AKIAIOSFODNN7EXAMPLE here"})") << QByteArray("AKIAIOSFODNN7EXAMPLE")
        << QByteArray("here");
    QTest::newRow("api-key field in another case")
        << QByteArray(R"({"Api-Key":"plain-secret-value","n":2})") << QByteArray("plain-secret-value") << QByteArray(R"("n":2)");
    QTest::newRow("bearer in mixed case")
        << QByteArray(R"({"message":"sent bEaReR abcdefghijklmnopqrstuv"})") << QByteArray("abcdefghijklmnopqrstuv")
        << QByteArray("sent bEaReR");
    QTest::newRow("github token")
        << QByteArray(R"({"content":"ghp_abcdefghijklmnopqrstuvwxyz0123"})")
        << QByteArray("ghp_abcdefghijklmnopqrstuvwxyz0123") << QByteArray("content");
}

void RedactionTest::redact_removesTheSecretAndKeepsValidJson()
{
    QFETCH(QByteArray, body);
    QFETCH(QByteArray, secret);
    QFETCH(QByteArray, kept);
    const QByteArray redacted = CallLog::redactCredentials(body);
    QVERIFY2(!redacted.contains(secret), redacted.constData());
    QVERIFY2(redacted.contains("[redacted]"), redacted.constData());
    QVERIFY2(redacted.contains(kept), redacted.constData());
    QJsonParseError error;
    QJsonDocument::fromJson(redacted, &error);
    QVERIFY2(error.error == QJsonParseError::NoError, redacted.constData());
}

QTEST_GUILESS_MAIN(RedactionTest)
// Header blocks as CallInspection records them: no JSON quotes, so only the key shapes apply.
void RedactionTest::redact_removesKeysFromHeaderText_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QByteArray>("secret");
    QTest::newRow("key shape in a header") << QByteArray("x-debug: sk-abcdefghijklmnop1234\naccept: */*\n")
                                           << QByteArray("sk-abcdefghijklmnop1234");
    QTest::newRow("bearer in upper case") << QByteArray("x-forwarded-auth: BEARER abcdefghijklmnop\n")
                                          << QByteArray("abcdefghijklmnop");
    QTest::newRow("nothing to redact") << QByteArray("content-type: application/json\nuser-agent: OpenAI/JS 4.0\n")
                                       << QByteArray();
}

void RedactionTest::redact_removesKeysFromHeaderText()
{
    QFETCH(QByteArray, text);
    QFETCH(QByteArray, secret);
    const QByteArray redacted = CallLog::redactCredentials(text);
    if (secret.isEmpty()) {
        QCOMPARE(redacted, text);
    } else {
        QVERIFY2(!redacted.contains(secret), redacted.constData());
        QVERIFY2(redacted.contains("[redacted]"), redacted.constData());
    }
}

void RedactionTest::secretNames_matchWholeNamesInAnyCase_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<bool>("secret");
    QTest::newRow("authorization") << u"Authorization"_s << true;
    QTest::newRow("x-api-key") << u"X-API-KEY"_s << true;
    QTest::newRow("api_key") << u"api_key"_s << true;
    QTest::newRow("apikey") << u"ApiKey"_s << true;
    QTest::newRow("client_secret") << u"client_secret"_s << true;
    QTest::newRow("part of a name") << u"x-api-key-id"_s << false;
    QTest::newRow("content-type") << u"content-type"_s << false;
}

void RedactionTest::secretNames_matchWholeNamesInAnyCase()
{
    QFETCH(QString, name);
    QFETCH(bool, secret);
    QCOMPARE(CallLog::isSecretName(name.toLatin1()), secret);
}

#include "tst_redaction.moc"
