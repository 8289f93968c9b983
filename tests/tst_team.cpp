// A team's Breakwater (README, Team gateway), on real sockets: every API call needs a member's
// token (401 without one or with a wrong one, in the API's own error shape, x-should-retry: false),
// a member over their own cap is refused 429 naming them, a member's token never opens the control
// API, never leaves Breakwater (not upstream, not in the record) and, with --provider-keys, is
// replaced upstream by the provider key. Answers are shared within one member's calls only, unless
// the file says "share": "team". The call log's `member` column and the metrics' `member` label
// name the member. HTTPS (--tls-cert, --tls-key) is answered to a client that trusts the test CA,
// and the Host check takes --public-name names.

#include "accounting/calllog.h"
#include "loopbackclient.h"
#include "proxyharness.h"
#include "team/teamfiles.h"

#include <QEventLoop>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QSignalSpy>
#include <QSslConfiguration>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <sys/stat.h>

using namespace Qt::StringLiterals;

namespace {

const QByteArray kAliceToken = "alice-token-0123456789abcdefghijklmnop";
const QByteArray kBobToken = "bob-token-0123456789abcdefghijklmnopqrs";
const QByteArray kOpenAiKey = "sk-provider-openai-key";
const QByteArray kAnthropicKey = "sk-ant-provider-key";

Team team(bool shareAcrossMembers = false, double aliceCap = 0)
{
    Team t;
    t.members = {{u"alice"_s, kAliceToken, aliceCap}, {u"bob"_s, kBobToken, 0}};
    t.shareAcrossMembers = shareAcrossMembers;
    return t;
}

ProviderKeys providerKeys()
{
    ProviderKeys keys;
    keys.openai = kOpenAiKey;
    keys.anthropic = kAnthropicKey;
    return keys;
}

HeaderList withToken(const QByteArray &token, HeaderList headers = kOpenAiAuth)
{
    headers.append({"x-breakwater-token", token});
    return headers;
}

HeaderList openAiKeyed(const QByteArray &key)
{
    return {{"Authorization", "Bearer " + key}, {"Content-Type", "application/json"}};
}

HeaderList anthropicKeyed(const QByteArray &key)
{
    return {{"x-api-key", key}, {"anthropic-version", "2023-06-01"}, {"Content-Type", "application/json"}};
}

QJsonObject json(const QByteArray &body)
{
    return QJsonDocument::fromJson(body).object();
}

// Every header value the mock saw on the last call, in one string, to look for a token in.
QByteArray seenUpstream(const ProxyHarness &harness)
{
    QByteArray all;
    for (const auto &[name, value] : harness.mock()->lastRequestHeaders())
        all += name + ": " + value + '\n';
    return all;
}

QByteArray headerSeenUpstream(const ProxyHarness &harness, const QByteArray &name)
{
    for (const auto &[key, value] : harness.mock()->lastRequestHeaders()) {
        if (key.compare(name, Qt::CaseInsensitive) == 0)
            return value;
    }
    return {};
}

bool waitForRecords(ProxyHarness &harness, qsizetype count)
{
    return QTest::qWaitFor([&] { return harness.records.size() >= count; }, 10'000);
}

QString testData(const char *name)
{
    return QStringLiteral(BREAKWATER_TEST_DATA "/tls/") + QString::fromLatin1(name);
}

} // namespace

class TestTeam final : public QObject
{
    Q_OBJECT
private slots:
    void noToken_isRefused401_inTheApisOwnShape();
    void wrongToken_isRefused401();
    void memberToken_isAnswered_andNeverGoesUpstream();
    void memberToken_neverOpensTheControlApi();
    void memberOverTheirCap_isRefused429_namingThem();
    void providerKeys_replaceTheMemberToken_upstream();
    void providerKeys_anthropicSdkHeader();
    void answers_areSharedWithinOneMember_only();
    void shareTeam_sharesAnswersAcrossMembers();
    void callLog_andMetrics_nameTheMember();
    void tls_servesHttpsToAClientTrustingTheCa();
    void publicName_isAcceptedByTheHostCheck();
};

void TestTeam::noToken_isRefused401_inTheApisOwnShape()
{
    ProxyHarness harness([](ProxyConfig &config) { config.team = team(); });
    const LoopbackResponse openai = harness.post("/v1/chat/completions", chatBody(u"hi"_s));
    QCOMPARE(openai.status, 401);
    QCOMPARE(openai.header("x-should-retry"), "false");
    const QJsonObject error = json(openai.body)[u"error"_s].toObject();
    QCOMPARE(error[u"type"_s].toString(), u"authentication_error"_s);
    QCOMPARE(error[u"code"_s].toString(), u"member_token_required"_s);

    const LoopbackResponse anthropic = harness.post("/v1/messages", messagesBody(u"hi"_s), kAnthropicAuth);
    QCOMPARE(anthropic.status, 401);
    QCOMPARE(anthropic.header("x-should-retry"), "false");
    const QJsonObject shaped = json(anthropic.body);
    QCOMPARE(shaped[u"type"_s].toString(), u"error"_s);   // Anthropic's shape
    QCOMPARE(shaped[u"error"_s].toObject()[u"type"_s].toString(), u"authentication_error"_s);

    // A pass-through route is an API call too.
    const LoopbackResponse models = fetch(harness.port(), "GET", "/v1/models", kOpenAiAuth);
    QCOMPARE(models.status, 401);
    QCOMPARE(harness.mock()->callCount(), 0);
}

void TestTeam::wrongToken_isRefused401()
{
    ProxyHarness harness([](ProxyConfig &config) { config.team = team(); });
    const LoopbackResponse response = harness.post("/v1/chat/completions", chatBody(u"hi"_s),
                                                   withToken("not-a-member-token-0123456789abcdefghij"));
    QCOMPARE(response.status, 401);
    QCOMPARE(response.header("x-should-retry"), "false");
    QCOMPARE(json(response.body)[u"error"_s].toObject()[u"code"_s].toString(), u"member_token_invalid"_s);
    // The owner's control token is no member's token either.
    QCOMPARE(harness.post("/v1/chat/completions", chatBody(u"hi"_s), withToken(kTestControlToken)).status, 401);
    QCOMPARE(harness.mock()->callCount(), 0);
    // The refusals are recorded, without what was sent as a token.
    QVERIFY(waitForRecords(harness, 2));
    for (const CallRecord &record : std::as_const(harness.records)) {
        QCOMPARE(record.status, 401);
        QVERIFY2(!record.requestHeaders.contains("not-a-member-token") && !record.requestHeaders.contains(kTestControlToken),
                 record.requestHeaders.constData());
    }
}

void TestTeam::memberToken_isAnswered_andNeverGoesUpstream()
{
    ProxyHarness harness([](ProxyConfig &config) { config.team = team(); });
    const LoopbackResponse response = harness.post("/v1/chat/completions", chatBody(u"hi"_s), withToken(kAliceToken));
    QCOMPARE(response.status, 200);
    QCOMPARE(harness.mock()->callCount(), 1);
    // Without provider keys the member's own provider key goes on, their token does not.
    QCOMPARE(headerSeenUpstream(harness, "authorization"), "Bearer sk-test-1");
    QVERIFY(!seenUpstream(harness).contains(kAliceToken));
    QVERIFY(!seenUpstream(harness).toLower().contains("x-breakwater-token"));
    QVERIFY(waitForRecords(harness, 1));
    QVERIFY(!harness.records.last().requestHeaders.contains(kAliceToken));
    QCOMPARE(harness.records.last().member, u"alice"_s);
}

void TestTeam::memberToken_neverOpensTheControlApi()
{
    ProxyHarness harness([](ProxyConfig &config) { config.team = team(); });
    for (const QByteArray &header : {QByteArray("Authorization"), QByteArray("x-breakwater-token")}) {
        const QByteArray value = header == "Authorization" ? "Bearer " + kAliceToken : kAliceToken;
        const LoopbackResponse stats = fetch(harness.port(), "GET", "/breakwater/stats", {{header, value}});
        QCOMPARE(stats.status, 401);
        QCOMPARE(stats.header("x-should-retry"), "false");
        const LoopbackResponse pause = fetch(harness.port(), "POST", "/breakwater/admission/pause", {{header, value}});
        QCOMPARE(pause.status, 401);
    }
    QVERIFY(!harness.onProxyThread<bool>([](ProxyServer *proxy) { return proxy->isAdmissionPaused(); }));
    // The owner's token still opens it.
    QCOMPARE(harness.control("GET", "/breakwater/stats").status, 200);
}

void TestTeam::memberOverTheirCap_isRefused429_namingThem()
{
    // A cap below one call's cost: the first call is admitted (nothing spent yet), the second is not.
    ProxyHarness harness([](ProxyConfig &config) { config.team = team(false, 1e-9); });
    QCOMPARE(harness.post("/v1/chat/completions", chatBody(u"first"_s), withToken(kAliceToken)).status, 200);
    QVERIFY(waitForRecords(harness, 1));
    QVERIFY2(harness.records.last().costUsd > 0, "the mock's usage must be priced for this test to mean anything");
    const LoopbackResponse refused = harness.post("/v1/chat/completions", chatBody(u"second"_s), withToken(kAliceToken));
    QCOMPARE(refused.status, 429);
    QCOMPARE(refused.header("x-should-retry"), "false");
    const QJsonObject error = json(refused.body)[u"error"_s].toObject();
    QCOMPARE(error[u"code"_s].toString(), u"member_spend_limit_exceeded"_s);
    QVERIFY2(error[u"message"_s].toString().contains(u"'alice'"_s), qPrintable(error[u"message"_s].toString()));
    QCOMPARE(harness.mock()->callCount(), 1);
    QVERIFY(waitForRecords(harness, 2));
    QCOMPARE(harness.records.last().member, u"alice"_s);
    QCOMPARE(harness.records.last().outcome, Outcome::SpendRefused);
    QVERIFY2(!harness.records.last().requestHeaders.contains(kAliceToken), "a refused call's record keeps no token");
    // Anthropic's shape for an Anthropic call.
    const LoopbackResponse anthropic = harness.post("/v1/messages", messagesBody(u"third"_s), withToken(kAliceToken, kAnthropicAuth));
    QCOMPARE(anthropic.status, 429);
    QCOMPARE(json(anthropic.body)[u"error"_s].toObject()[u"type"_s].toString(), u"rate_limit_error"_s);
    // Bob's own day is his.
    QCOMPARE(harness.post("/v1/chat/completions", chatBody(u"second"_s), withToken(kBobToken)).status, 200);
    QCOMPARE(harness.mock()->callCount(), 2);
}

void TestTeam::providerKeys_replaceTheMemberToken_upstream()
{
    ProxyHarness harness([](ProxyConfig &config) {
        config.team = team();
        config.providerKeys = providerKeys();
    });
    // The member's token where the SDK puts its key (OPENAI_API_KEY=<token>).
    const LoopbackResponse response = harness.post("/v1/chat/completions", chatBody(u"hi"_s), openAiKeyed(kAliceToken));
    QCOMPARE(response.status, 200);
    QCOMPARE(headerSeenUpstream(harness, "authorization"), "Bearer " + kOpenAiKey);
    QVERIFY(!seenUpstream(harness).contains(kAliceToken));
    QVERIFY(waitForRecords(harness, 1));
    const CallRecord record = harness.records.last();
    QCOMPARE(record.member, u"alice"_s);
    QVERIFY(!record.requestHeaders.contains(kAliceToken));
    QVERIFY(!record.keyInputs.contains(kAliceToken));
    // A provider key of the member's own is no token: refused.
    QCOMPARE(harness.post("/v1/chat/completions", chatBody(u"hi"_s), openAiKeyed("sk-someones-own-key")).status, 401);
    QCOMPARE(harness.mock()->callCount(), 1);
}

void TestTeam::providerKeys_anthropicSdkHeader()
{
    ProxyHarness harness([](ProxyConfig &config) {
        config.team = team();
        config.providerKeys = providerKeys();
    });
    const LoopbackResponse response = harness.post("/v1/messages", messagesBody(u"hi"_s), anthropicKeyed(kBobToken));
    QCOMPARE(response.status, 200);
    QCOMPARE(headerSeenUpstream(harness, "x-api-key"), kAnthropicKey);
    QVERIFY(!seenUpstream(harness).contains(kBobToken));
    QVERIFY(waitForRecords(harness, 1));
    QCOMPARE(harness.records.last().member, u"bob"_s);
}

void TestTeam::answers_areSharedWithinOneMember_only()
{
    ProxyHarness harness([](ProxyConfig &config) {
        config.team = team();
        config.providerKeys = providerKeys();
    });
    QCOMPARE(harness.post("/v1/chat/completions", chatBody(u"same"_s), openAiKeyed(kAliceToken)).status, 200);
    const LoopbackResponse again = harness.post("/v1/chat/completions", chatBody(u"same"_s), openAiKeyed(kAliceToken));
    QCOMPARE(again.header("x-breakwater-dedup"), "hit");
    const LoopbackResponse bob = harness.post("/v1/chat/completions", chatBody(u"same"_s), openAiKeyed(kBobToken));
    QCOMPARE(bob.header("x-breakwater-dedup"), "miss");
    QCOMPARE(harness.mock()->callCount(), 2);
}

void TestTeam::shareTeam_sharesAnswersAcrossMembers()
{
    ProxyHarness harness([](ProxyConfig &config) {
        config.team = team(true);
        config.providerKeys = providerKeys();
    });
    QCOMPARE(harness.post("/v1/chat/completions", chatBody(u"same"_s), openAiKeyed(kAliceToken)).status, 200);
    const LoopbackResponse bob = harness.post("/v1/chat/completions", chatBody(u"same"_s), openAiKeyed(kBobToken));
    QCOMPARE(bob.header("x-breakwater-dedup"), "hit");
    QCOMPARE(harness.mock()->callCount(), 1);
}

void TestTeam::callLog_andMetrics_nameTheMember()
{
    QTemporaryDir dir;
    CallLog log;
    QVERIFY(log.open(dir.filePath(u"calls.sqlite"_s)).ok());
    ProxyHarness harness([](ProxyConfig &config) {
        config.team = team();
        config.providerKeys = providerKeys();
    });
    connect(harness.proxy(), &ProxyServer::callCompleted, &log, [&log](const CallRecord &r) { log.append(r); },
            Qt::DirectConnection);
    QCOMPARE(harness.post("/v1/chat/completions", chatBody(u"a"_s), openAiKeyed(kAliceToken)).status, 200);
    QCOMPARE(harness.post("/v1/chat/completions", chatBody(u"b"_s), openAiKeyed(kBobToken)).status, 200);
    QCOMPARE(harness.post("/v1/chat/completions", chatBody(u"c"_s), openAiKeyed("sk-stranger")).status, 401);
    QVERIFY(waitForRecords(harness, 3));
    log.flush();
    QStringList members;
    for (const CallRecord &record : log.recent(10))
        members.append(record.member);
    members.sort();
    QCOMPARE(members, (QStringList{QString(), u"alice"_s, u"bob"_s}));   // the stranger's 401 names nobody

    const LoopbackResponse metrics = fetch(harness.port(), "GET", "/metrics");
    QCOMPARE(metrics.status, 200);
    QVERIFY2(metrics.body.contains(R"(breakwater_member_requests_total{member="alice",outcome="miss"} 1)"), metrics.body.constData());
    QVERIFY(metrics.body.contains(R"(breakwater_member_requests_total{member="bob",outcome="miss"} 1)"));
    QVERIFY(metrics.body.contains(R"(breakwater_member_cost_usd_total{member="alice"})"));
}

void TestTeam::tls_servesHttpsToAClientTrustingTheCa()
{
    ProxyHarness harness([](ProxyConfig &config) {
        config.team = team();
        config.providerKeys = providerKeys();
        config.tlsCertFile = testData("server.pem");
        config.tlsKeyFile = testData("server.key");
    });
    QVERIFY(harness.proxy()->baseUrl().startsWith(u"https://"_s));
    QSslConfiguration trust = QSslConfiguration::defaultConfiguration();
    trust.setCaCertificates(QSslCertificate::fromPath(testData("ca.pem")));
    QNetworkAccessManager network;
    network.setProxy(QNetworkProxy::NoProxy);
    const auto call = [&](const QString &host) {
        QNetworkRequest request(QUrl(u"https://%1:%2/v1/chat/completions"_s.arg(host).arg(harness.port())));
        request.setSslConfiguration(trust);
        request.setHeader(QNetworkRequest::ContentTypeHeader, u"application/json"_s);
        request.setRawHeader("Authorization", "Bearer " + kAliceToken);
        QNetworkReply *reply = network.post(request, chatBody(u"over tls"_s));
        QSignalSpy finished(reply, &QNetworkReply::finished);
        finished.wait(10'000);
        reply->deleteLater();
        return std::make_pair(reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), reply->error());
    };
    // The test certificate names localhost and 127.0.0.1.
    const auto [status, error] = call(u"localhost"_s);
    QCOMPARE(error, QNetworkReply::NoError);
    QCOMPARE(status, 200);
    QCOMPARE(headerSeenUpstream(harness, "authorization"), "Bearer " + kOpenAiKey);
    // Plain HTTP on the TLS port gets no answer.
    const LoopbackResponse plain = harness.post("/v1/chat/completions", chatBody(u"plain"_s), openAiKeyed(kAliceToken));
    QCOMPARE(plain.status, 0);
    QCOMPARE(harness.mock()->callCount(), 1);
}

void TestTeam::publicName_isAcceptedByTheHostCheck()
{
    ProxyHarness harness([](ProxyConfig &config) {
        config.team = team();
        config.publicNames = {u"breakwater.team.example"_s};
    });
    HeaderList headers = withToken(kAliceToken);
    headers.prepend({"Host", "breakwater.team.example:" + QByteArray::number(harness.port())});
    QCOMPARE(harness.post("/v1/chat/completions", chatBody(u"hi"_s), headers).status, 200);
    headers[0].second = "other.example:" + QByteArray::number(harness.port());
    QCOMPARE(harness.post("/v1/chat/completions", chatBody(u"hi"_s), headers).status, 421);
}

QTEST_GUILESS_MAIN(TestTeam)
#include "tst_team.moc"
