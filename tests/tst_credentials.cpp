// The one table of credential headers (http/protocol.h), row by row: every header in it changes the
// de-dup key, is redacted in every record, becomes its SDKs' variable in a curl command, is sent
// again by the breaker's probe and carries a typed key in a replay; and the query parameters that
// carry keys are redacted in a target while everything else in it is kept.

#include "accounting/callinspection.h"
#include "accounting/calllog.h"
#include "accounting/callrecord.h"
#include "accounting/curlcommand.h"
#include "fakeclock.h"
#include "http/incomingrequest.h"
#include "http/protocol.h"
#include "mockprovider.h"
#include "proxyharness.h"
#include "replay/replayer.h"
#include "servicethread.h"
#include "sharing/requestkey.h"
#include "upstream/breakerprobe.h"
#include "upstream/upstreampool.h"
#include "upstream/circuitbreaker.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace std::chrono_literals;

Q_DECLARE_METATYPE(ApiFamily)

namespace {

constexpr int kWait = 30000;

// How a client writes the header's name: the table's name with its first letter upper-cased, so
// every consumer is seen to compare names without regard to case.
QByteArray spelled(const QByteArray &lowerName)
{
    QByteArray name = lowerName;
    name[0] = char(QChar::toUpper(name[0]));
    return name;
}

// One row per entry of the table, and per family that uses it.
void credentialRows()
{
    QTest::addColumn<QByteArray>("name");
    QTest::addColumn<QByteArray>("scheme");
    QTest::addColumn<ApiFamily>("family");
    QTest::addColumn<QByteArray>("variable");
    for (const CredentialHeader &header : credentialHeaders()) {
        for (const CredentialHeader::Use &use : header.uses) {
            QTest::addRow("%s, %s", header.name.constData(), familyName(use.family).constData())
                << header.name << header.scheme << use.family << use.variable;
        }
    }
}

QByteArray keyOf(const HeaderList &headers)
{
    IncomingRequest request;
    request.method = "POST";
    request.path = "/v1/chat/completions";
    request.headers = headers;
    const QJsonObject body{{u"model"_s, u"m"_s}};
    return requestKey(RequestKeyInput::from(request.path, QUrl(u"http://127.0.0.1:9/v1"_s), request, body));
}

QByteArray valueOf(const HeaderList &headers, const QByteArray &name)
{
    for (const auto &[key, value] : headers) {
        if (key.compare(name, Qt::CaseInsensitive) == 0)
            return value;
    }
    return {};
}

} // namespace

class TestCredentials final : public QObject
{
    Q_OBJECT
private slots:
    void table_namesEachApisUsualHeader();
    void key_changesWithEachCredentialHeader_data() { credentialRows(); }
    void key_changesWithEachCredentialHeader();
    void records_redactEachCredentialHeader_data() { credentialRows(); }
    void records_redactEachCredentialHeader();
    void curl_namesEachCredentialsVariable_data() { credentialRows(); }
    void curl_namesEachCredentialsVariable();
    void probe_resendsEachCredentialHeader_data() { credentialRows(); }
    void probe_resendsEachCredentialHeader();
    void replay_sendsTheTypedKeyInTheRecordedHeader_data() { credentialRows(); }
    void replay_sendsTheTypedKeyInTheRecordedHeader();
    void targets_redactOnlyTheKeysInTheirQuery_data();
    void targets_redactOnlyTheKeysInTheirQuery();
};

void TestCredentials::table_namesEachApisUsualHeader()
{
    QCOMPARE(usualCredentialHeader(ApiFamily::OpenAI).name, "authorization"_ba);
    QCOMPARE(usualCredentialHeader(ApiFamily::Anthropic).name, "x-api-key"_ba);
    QCOMPARE(usualCredentialHeader(ApiFamily::Gemini).name, "x-goog-api-key"_ba);
    QCOMPARE(Replayer::credentialVariable(ApiStyle::OpenAI), u"OPENAI_API_KEY"_s);
    QCOMPARE(Replayer::credentialVariable(ApiStyle::Anthropic), u"ANTHROPIC_API_KEY"_s);
    for (const CredentialHeader &header : credentialHeaders()) {
        QCOMPARE(header.name, header.name.toLower());
        QVERIFY(!header.uses.isEmpty());
        QVERIFY(isCredentialHeader(header.name));
        QCOMPARE(credentialHeader(header.name), &header);
    }
    QVERIFY(!isCredentialHeader("content-type"));
}

void TestCredentials::key_changesWithEachCredentialHeader()
{
    QFETCH(QByteArray, name);
    QFETCH(QByteArray, scheme);
    const HeaderList alice{{spelled(name), scheme + "key-of-alice-0001"}};
    const HeaderList mallory{{spelled(name), scheme + "key-of-mallory-01"}};
    QVERIFY(keyOf(alice) != keyOf(mallory));
    QVERIFY(keyOf(alice) != keyOf({}));
    QCOMPARE(keyOf(alice), keyOf(alice));
    // The account it names is the record's credential fingerprint.
    IncomingRequest request;
    request.headers = alice;
    QCOMPARE(credentialOf(request), alice.first().second);
    const QByteArray described = describeKeyInput(RequestKeyInput::from("/v1/chat/completions", QUrl(u"http://h/v1"_s),
                                                                        request, {}));
    QVERIFY2(!described.contains("key-of-alice"), described.constData());
    QVERIFY2(described.contains(QByteArray("credential " + name + ": sha256 " + fingerprint(alice.first().second))), described.constData());
}

void TestCredentials::records_redactEachCredentialHeader()
{
    QFETCH(QByteArray, name);
    QFETCH(QByteArray, scheme);
    const QByteArray secret = scheme + "unshaped-secret-value";   // no key's shape: only the name can catch it
    const QByteArray recorded = CallInspection::recordHeaders({{spelled(name), secret}, {"Accept", "*/*"}});
    QCOMPARE(recorded, spelled(name) + ": [redacted]\nAccept: */*\n");
    QVERIFY(CallLog::isSecretName(name));
    const QByteArray body = R"({")" + name + R"(":"unshaped-secret-value","model":"m"})";
    QCOMPARE(CallLog::redactCredentials(body), R"({")" + name + R"(":"[redacted]","model":"m"})");
}

void TestCredentials::curl_namesEachCredentialsVariable()
{
    QFETCH(QByteArray, name);
    QFETCH(QByteArray, scheme);
    QFETCH(ApiFamily, family);
    QFETCH(QByteArray, variable);
    CallRecord record;
    record.method = "GET";
    record.target = "/v1/models";
    record.upstream = family == ApiFamily::Anthropic ? "anthropic" : "openai";
    record.requestHeaders = CallInspection::recordHeaders({{spelled(name), scheme + "recorded-secret"}});
    const QString command = CurlCommand::forRecord(record, u"http://127.0.0.1:8080"_s);
    const QString header = u"-H \"%1: %2$%3\""_s.arg(QString::fromLatin1(spelled(name)), QString::fromLatin1(scheme),
                                                       QString::fromLatin1(variable));
    QVERIFY2(command.contains(header), qPrintable(command));
    QVERIFY2(!command.contains(u"recorded-secret"_s), qPrintable(command));
}

void TestCredentials::probe_resendsEachCredentialHeader()
{
    QFETCH(QByteArray, name);
    QFETCH(QByteArray, scheme);
    ServiceThread<MockProvider> provider(u"mock"_s, [] { return new MockProvider; });
    FakeClock clock;
    CircuitBreaker breaker(u"upstream"_s, clock, 1, 60s);
    QUrl models = provider.service()->openaiBaseUrl();
    models.setPath(models.path() + u"/models"_s);
    UpstreamPool pool(u"upstream"_s, 1, 0);
    BreakerProbe probe(&breaker, &pool, models, 20ms, 5s);
    const QByteArray value = scheme + "probe-secret-1";
    probe.rememberCredentials({{spelled(name), value}, {"Content-Type", "application/json"}, {"Cookie", "c=1"}});
    breaker.recordFailure(u"test"_s, false);
    QTRY_COMPARE_WITH_TIMEOUT(breaker.state(), BreakerState::HalfOpen, kWait);
    const HeaderList seen = provider.service()->lastRequestHeaders();
    QCOMPARE(valueOf(seen, name), value);
    QVERIFY(valueOf(seen, "cookie").isEmpty());   // only the credential and API headers are kept
}

void TestCredentials::replay_sendsTheTypedKeyInTheRecordedHeader()
{
    QFETCH(QByteArray, name);
    QFETCH(QByteArray, scheme);
    QFETCH(ApiFamily, family);
    ServiceThread<MockProvider> provider(u"mock"_s, [] { return new MockProvider; });
    CallRecord record;
    record.method = "POST";
    record.target = "/v1/chat/completions";
    record.upstream = family == ApiFamily::Anthropic ? "anthropic" : "openai";
    record.requestBody = chatBody(u"replayed"_s);
    record.requestHeaders = CallInspection::recordHeaders({{spelled(name), scheme + "recorded-secret"},
                                                           {"Content-Type", "application/json"}});
    Replayer replayer;
    QSignalSpy answered(&replayer, &Replayer::finished);
    Replayer::Options options;
    options.throughBreakwater = false;
    options.baseUrl = provider.service()->openaiBaseUrl();
    options.credential = "typed-key-1";
    QVERIFY(replayer.replay(record, options));
    QVERIFY(answered.wait(kWait));
    const HeaderList seen = provider.service()->lastRequestHeaders();
    QCOMPARE(valueOf(seen, name), scheme + "typed-key-1");
    const Replayer::Answer answer = answered.first().first().value<Replayer::Answer>();
    QVERIFY2(answer.sentHeaders.contains(QByteArray(spelled(name) + ": [redacted]\n")), answer.sentHeaders.constData());
    QVERIFY(!answer.sentHeaders.contains("typed-key-1"));
}

void TestCredentials::targets_redactOnlyTheKeysInTheirQuery_data()
{
    QTest::addColumn<QByteArray>("target");
    QTest::addColumn<QByteArray>("recorded");
    QTest::newRow("no query") << "/v1/models"_ba << "/v1/models"_ba;
    QTest::newRow("no key") << "/v1/skills?beta=true&limit=2"_ba << "/v1/skills?beta=true&limit=2"_ba;
    QTest::newRow("gemini ?key=") << "/v1beta/models/g:generateContent?alt=sse&key=AIzaSyD-0123456789abcdefghijklmnopqrstu"_ba
                                  << "/v1beta/models/g:generateContent?alt=sse&key=REDACTED"_ba;
    QTest::newRow("api-key, api_key, apikey") << "/v1/x?api-key=a1&api_key=a2&apikey=a3&n=1"_ba
                                              << "/v1/x?api-key=REDACTED&api_key=REDACTED&apikey=REDACTED&n=1"_ba;
    QTest::newRow("token, access_token") << "/v1/x?token=t1&access_token=t2"_ba
                                         << "/v1/x?token=REDACTED&access_token=REDACTED"_ba;
    QTest::newRow("a credential header's name") << "/v1/x?x-goog-api-key=g1&authorization=Bearer%20b1"_ba
                                                << "/v1/x?x-goog-api-key=REDACTED&authorization=REDACTED"_ba;
    QTest::newRow("name percent-encoded, in upper case") << "/v1/x?%4Bey=k1&KEY=k2"_ba
                                                         << "/v1/x?%4Bey=REDACTED&KEY=REDACTED"_ba;
    QTest::newRow("a key without a value") << "/v1/x?key&a=b"_ba << "/v1/x?key=REDACTED&a=b"_ba;
    QTest::newRow("names that only contain one") << "/v1/x?monkey=1&tokens=2&key_id=3"_ba
                                                 << "/v1/x?monkey=1&tokens=2&key_id=3"_ba;
}

void TestCredentials::targets_redactOnlyTheKeysInTheirQuery()
{
    QFETCH(QByteArray, target);
    QFETCH(QByteArray, recorded);
    QCOMPARE(CallInspection::redactTarget(target), recorded);
    QCOMPARE(CallInspection::redactTarget(recorded), recorded);   // a recorded target stays as it is
}

QTEST_GUILESS_MAIN(TestCredentials)
#include "tst_credentials.moc"
