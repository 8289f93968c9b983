// --log-bodies stores bodies with credentials redacted (issue 12: the old redaction replaced a quoted
// key together with its quotes, so the stored JSON no longer parsed, and knew only sk-/Bearer shapes).
// Each body must come out as valid JSON, without its secret, with everything else kept.
#include "accounting/calllog.h"

#include <QJsonDocument>
#include <QJsonParseError>
#include <QTest>

class RedactionTest final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void redact_removesTheSecretAndKeepsValidJson_data();
    void redact_removesTheSecretAndKeepsValidJson();
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
#include "tst_redaction.moc"
