// Replay: a call recorded by a real Breakwater (with --log-bodies) sent again, through Breakwater
// (a fresh upstream call the mock counts, logged as a bypass) or straight to another base URL,
// optionally edited; a call without a logged body is refused with the sentence that says why; the
// credential comes from the source given (the environment by API style, or typed) and appears in
// no record and no reported header; the answer is bounded and a dead target is reported.

#include "proxyharness.h"
#include "replay/replayer.h"
#include "wireevents.h"

#include <QScopeGuard>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTest>

using namespace Qt::StringLiterals;

namespace {

constexpr int kWait = 30000;

// Calls the proxy and waits for the call's own record.
CallRecord record(ProxyHarness &harness, const QByteArray &path, const QByteArray &body, const HeaderList &headers = {})
{
    const qsizetype before = harness.records.size();
    LoopbackClient *call = harness.start(path, body, headers);
    if (!QTest::qWaitFor([&] { return call->isFinished() && harness.records.size() > before; }, kWait))
        return {};
    return harness.records.last();
}

// Replays and waits for the answer; status -1 when none came.
Replayer::Answer replayed(Replayer &replayer, const CallRecord &r, const Replayer::Options &options)
{
    QSignalSpy answered(&replayer, &Replayer::finished);
    Message why;
    if (!replayer.replay(r, options, &why)) {
        Replayer::Answer refused;
        refused.status = -1;
        refused.error = why;
        return refused;
    }
    if (!answered.wait(kWait) && answered.isEmpty()) {
        Replayer::Answer none;
        none.status = -1;
        return none;
    }
    return answered.first().first().value<Replayer::Answer>();
}

Replayer::Options throughBreakwater(const ProxyHarness &harness, const QByteArray &credential)
{
    Replayer::Options options;
    options.throughBreakwater = true;
    options.baseUrl = QUrl(u"http://127.0.0.1:%1"_s.arg(harness.port()));
    options.credential = credential;
    return options;
}

QByteArray headerValue(const HeaderList &headers, const QByteArray &name)
{
    return headerValues(headers, name).value(0);
}

const auto withBodies = [](ProxyConfig &config) { config.recordBodies = true; };

} // namespace

class TestReplayer final : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void urlFor_joinsBaseAndTarget_data();
    void urlFor_joinsBaseAndTarget();
    void throughBreakwater_isAFreshUpstreamCallLoggedAsBypass();
    void otherBaseUrl_goesStraightThereNotThroughBreakwater();
    void editedBody_isWhatTheProviderReceives();
    void streamedCall_answersWithItsEventText();
    void recordWithoutBody_isRefusedAndSaysWhy();
    void credential_fromTheEnvironment_byApiStyle_data();
    void credential_fromTheEnvironment_byApiStyle();
    void typedCredential_isSentButNeverRecordedOrReported();
    void geminiCall_isReplayedOnItsRoute_withItsOwnKeyHeader();
    void environmentCredential_fitsOnlyItsOwnProvider_data();
    void environmentCredential_fitsOnlyItsOwnProvider();
    void answer_isCutAtItsBound();
    void deadTarget_isReportedWithoutStatus();
    void httpsTarget_trustsTheCaFile();
    void silentTarget_endsAtTheTimeout();
};

void TestReplayer::initTestCase()
{
    qRegisterMetaType<Replayer::Answer>();
}

void TestReplayer::urlFor_joinsBaseAndTarget_data()
{
    QTest::addColumn<QString>("base");
    QTest::addColumn<QByteArray>("target");
    QTest::addColumn<QString>("url");
    QTest::newRow("breakwater origin") << u"http://127.0.0.1:8080"_s << QByteArray("/v1/chat/completions")
                                       << u"http://127.0.0.1:8080/v1/chat/completions"_s;
    QTest::newRow("base with /v1") << u"http://127.0.0.1:8081/v1"_s << QByteArray("/v1/chat/completions")
                                   << u"http://127.0.0.1:8081/v1/chat/completions"_s;
    QTest::newRow("base with /v1/") << u"http://127.0.0.1:8081/v1/"_s << QByteArray("/v1/embeddings")
                                    << u"http://127.0.0.1:8081/v1/embeddings"_s;
    QTest::newRow("anthropic base") << u"https://api.anthropic.com"_s << QByteArray("/v1/messages?beta=true")
                                    << u"https://api.anthropic.com/v1/messages?beta=true"_s;
    QTest::newRow("prefix path") << u"https://gw.example/openai/v1"_s << QByteArray("/v1/models/openai%2Fgpt-4o")
                                 << u"https://gw.example/openai/v1/models/openai%2Fgpt-4o"_s;
}

void TestReplayer::urlFor_joinsBaseAndTarget()
{
    QFETCH(QString, base);
    QFETCH(QByteArray, target);
    QFETCH(QString, url);
    QCOMPARE(Replayer::urlFor(QUrl(base), target).toString(QUrl::FullyEncoded), url);
}

void TestReplayer::throughBreakwater_isAFreshUpstreamCallLoggedAsBypass()
{
    ProxyHarness harness(withBodies);
    const CallRecord original = record(harness, "/v1/chat/completions", chatBody(u"replay me"_s));
    QCOMPARE(original.outcome, Outcome::Miss);
    QCOMPARE(harness.mock()->callCount(), 1);

    Replayer replayer;
    const Replayer::Answer answer = replayed(replayer, original, throughBreakwater(harness, "sk-replay-1"));
    QCOMPARE(answer.status, 200);
    QVERIFY2(answer.body.contains("echo: replay me"), answer.body.constData());
    QVERIFY(answer.headers.contains("x-breakwater-dedup: bypass"));
    QCOMPARE(harness.mock()->callCount(), 2);   // not a cache hit: the provider answered again

    QTRY_COMPARE_WITH_TIMEOUT(harness.records.size(), 2, kWait);
    const CallRecord &again = harness.records.last();
    QCOMPARE(again.outcome, Outcome::Bypass);
    QCOMPARE(again.status, 200);
    QCOMPARE(again.requestBody, original.requestBody);   // left alone: the recorded bytes went out
    QVERIFY(again.requestHeaders.contains("Cache-Control: no-cache"));
    QVERIFY(!again.requestHeaders.contains("sk-replay-1"));
    QVERIFY(!again.credentialFingerprint.isEmpty());
    QVERIFY(again.credentialFingerprint != original.credentialFingerprint);   // the replay's own key
    QCOMPARE(headerValue(harness.mock()->lastRequestHeaders(), "Authorization"), QByteArray("Bearer sk-replay-1"));
}

void TestReplayer::otherBaseUrl_goesStraightThereNotThroughBreakwater()
{
    ProxyHarness harness(withBodies);
    const CallRecord original = record(harness, "/v1/chat/completions", chatBody(u"direct"_s));
    Replayer replayer;
    Replayer::Options options;
    options.throughBreakwater = false;
    options.baseUrl = harness.mock()->openaiBaseUrl();   // .../v1, as a local llama.cpp's would be
    options.credential = "sk-direct-1";
    const Replayer::Answer answer = replayed(replayer, original, options);
    QCOMPARE(answer.status, 200);
    QVERIFY(answer.body.contains("echo: direct"));
    QCOMPARE(answer.url.port(), int(harness.mock()->port()));
    QVERIFY(!answer.headers.contains("x-breakwater-dedup"));   // Breakwater never saw it
    QCOMPARE(harness.mock()->callCount(), 2);
    QCOMPARE(harness.mock()->callCount(u"/v1/chat/completions"_s), 2);
    QCOMPARE(harness.records.size(), 1);
    QVERIFY(headerValue(harness.mock()->lastRequestHeaders(), "Cache-Control").isEmpty());
    QCOMPARE(headerValue(harness.mock()->lastRequestHeaders(), "Authorization"), QByteArray("Bearer sk-direct-1"));
}

void TestReplayer::editedBody_isWhatTheProviderReceives()
{
    ProxyHarness harness(withBodies);
    const CallRecord original = record(harness, "/v1/chat/completions", chatBody(u"before"_s));
    Replayer replayer;
    Replayer::Options options = throughBreakwater(harness, "sk-test-1");
    options.body = chatBody(u"after the edit"_s);
    const Replayer::Answer answer = replayed(replayer, original, options);
    QCOMPARE(answer.status, 200);
    QVERIFY(answer.body.contains("echo: after the edit"));
    QCOMPARE(answer.sentBody, options.body);
    QCOMPARE(harness.mock()->lastRequestBody(), options.body);
    QCOMPARE(harness.mock()->callCount(), 2);
}

void TestReplayer::streamedCall_answersWithItsEventText()
{
    ProxyHarness harness(withBodies);
    const CallRecord original = record(harness, "/v1/chat/completions", chatBody(u"stream it"_s, true));
    QVERIFY(original.stream);
    Replayer replayer;
    const Replayer::Answer answer = replayed(replayer, original, throughBreakwater(harness, "sk-test-1"));
    QCOMPARE(answer.status, 200);
    QVERIFY(answer.headers.contains("text/event-stream"));
    QVERIFY2(answer.body.startsWith("data: "), answer.body.constData());
    QVERIFY(answer.body.contains("data: [DONE]"));
    QVERIFY(answer.error.isEmpty());
    QCOMPARE(harness.mock()->callCount(), 2);
}

void TestReplayer::recordWithoutBody_isRefusedAndSaysWhy()
{
    ProxyHarness harness;   // without --log-bodies
    const CallRecord original = record(harness, "/v1/chat/completions", chatBody(u"not kept"_s));
    QVERIFY(original.requestBody.isEmpty());
    QVERIFY(Replayer::refusal(original).english().contains(u"start Breakwater with --log-bodies to replay calls"_s));

    Replayer replayer;
    QSignalSpy answered(&replayer, &Replayer::finished);
    Message why;
    QVERIFY(!replayer.replay(original, throughBreakwater(harness, "sk-test-1"), &why));
    QVERIFY2(why.english().contains(u"--log-bodies"_s), qPrintable(why.english()));
    QVERIFY(!replayer.isRunning());
    QCOMPARE(answered.size(), 0);
    QCOMPARE(harness.mock()->callCount(), 1);
}

void TestReplayer::credential_fromTheEnvironment_byApiStyle_data()
{
    QTest::addColumn<QByteArray>("path");
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<bool>("anthropic");
    QTest::addColumn<QString>("variable");
    QTest::addColumn<QByteArray>("header");
    QTest::addColumn<QByteArray>("sent");
    QTest::newRow("openai") << QByteArray("/v1/chat/completions") << chatBody(u"env"_s) << false
                            << u"OPENAI_API_KEY"_s << QByteArray("Authorization") << QByteArray("Bearer sk-env-openai");
    QTest::newRow("anthropic") << QByteArray("/v1/messages") << messagesBody(u"env"_s) << true
                               << u"ANTHROPIC_API_KEY"_s << QByteArray("x-api-key") << QByteArray("sk-ant-env");
}

void TestReplayer::credential_fromTheEnvironment_byApiStyle()
{
    QFETCH(QByteArray, path);
    QFETCH(QByteArray, body);
    QFETCH(bool, anthropic);
    QFETCH(QString, variable);
    QFETCH(QByteArray, header);
    QFETCH(QByteArray, sent);
    qputenv("OPENAI_API_KEY", "sk-env-openai");
    qputenv("ANTHROPIC_API_KEY", "sk-ant-env");
    const auto unset = qScopeGuard([] {
        qunsetenv("OPENAI_API_KEY");
        qunsetenv("ANTHROPIC_API_KEY");
    });
    ProxyHarness harness(withBodies);
    const CallRecord original = record(harness, path, body, anthropic ? kAnthropicAuth : kOpenAiAuth);
    const ApiStyle style = Replayer::styleOf(original);
    QCOMPARE(style, anthropic ? ApiStyle::Anthropic : ApiStyle::OpenAI);
    QCOMPARE(Replayer::credentialVariable(style), variable);
    const QByteArray credential = Replayer::environmentCredential(style);
    QCOMPARE(credential, QByteArray(anthropic ? "sk-ant-env" : "sk-env-openai"));

    Replayer replayer;
    const Replayer::Answer answer = replayed(replayer, original, throughBreakwater(harness, credential));
    QCOMPARE(answer.status, 200);
    QCOMPARE(headerValue(harness.mock()->lastRequestHeaders(), header), sent);
    QVERIFY(!answer.sentHeaders.contains(credential));
    QVERIFY(answer.sentHeaders.contains(QByteArray(header + ": [redacted]")));
    QTRY_COMPARE_WITH_TIMEOUT(harness.records.size(), 2, kWait);
    for (const CallRecord &r : std::as_const(harness.records))
        QVERIFY(!r.requestHeaders.contains(credential) && !r.responseHeaders.contains(credential));
}

void TestReplayer::typedCredential_isSentButNeverRecordedOrReported()
{
    qunsetenv("OPENAI_API_KEY");
    QVERIFY(Replayer::environmentCredential(ApiStyle::OpenAI).isEmpty());
    ProxyHarness harness(withBodies);
    const CallRecord original = record(harness, "/v1/chat/completions", chatBody(u"typed"_s));
    Replayer replayer;
    const QByteArray typed = "sk-typed-abcdefghijklmnopqrstuvwxyz0123";
    const Replayer::Answer answer = replayed(replayer, original, throughBreakwater(harness, typed));
    QCOMPARE(answer.status, 200);
    QCOMPARE(headerValue(harness.mock()->lastRequestHeaders(), "Authorization"), QByteArray("Bearer " + typed));
    QVERIFY(!answer.sentHeaders.contains(typed));
    QTRY_COMPARE_WITH_TIMEOUT(harness.records.size(), 2, kWait);
    const CallRecord &again = harness.records.last();
    QVERIFY(!again.requestHeaders.contains(typed));
    QVERIFY(!again.requestBody.contains(typed));
    QVERIFY(!again.keyInputs.contains(typed));
}

// A Gemini call (its key in ?key=, so no recorded credential header to copy) is Gemini's by its
// route: replayed on /v1beta/... with the key in x-goog-api-key (the credential table's header for
// Gemini), never as Authorization: Bearer, and without the recorded ?key=REDACTED.
void TestReplayer::geminiCall_isReplayedOnItsRoute_withItsOwnKeyHeader()
{
    ProxyHarness harness([](ProxyConfig &config) {
        config.recordBodies = true;
        config.geminiUpstream = config.anthropicUpstream;   // the mock, without a path
    });
    const QByteArray path = "/v1beta/models/mock-gemini:generateContent";
    const QByteArray body = R"({"contents":[{"role":"user","parts":[{"text":"replay gemini"}]}]})";
    const CallRecord original = record(harness, path + "?key=AIza-original", body, {{"Content-Type", "application/json"}});
    QCOMPARE(original.status, 200);
    QCOMPARE(original.upstream, QByteArray("gemini"));
    const ApiStyle style = Replayer::styleOf(original);
    QCOMPARE(style, ApiStyle::Gemini);
    QCOMPARE(Replayer::credentialVariable(style), u"GEMINI_API_KEY"_s);
    QCOMPARE(Replayer::providerUrl(style), QUrl(u"https://generativelanguage.googleapis.com"_s));
    QVERIFY(Replayer::environmentCredentialFits(style, QUrl(u"https://generativelanguage.googleapis.com"_s)));
    QVERIFY(!Replayer::environmentCredentialFits(style, QUrl(u"https://api.openai.com/v1"_s)));

    Replayer replayer;
    const Replayer::Answer answer = replayed(replayer, original, throughBreakwater(harness, "AIza-replay"));
    QCOMPARE(answer.status, 200);
    QVERIFY2(answer.body.contains("echo: replay gemini"), answer.body.constData());
    QCOMPARE(answer.url.path(), QString::fromLatin1(path));
    QVERIFY2(!answer.url.query().contains(u"key="_s), qPrintable(answer.url.toString()));
    QCOMPARE(harness.mock()->callCount(QString::fromLatin1(path)), 2);   // the Gemini route, asked again
    QCOMPARE(headerValue(harness.mock()->lastRequestHeaders(), "x-goog-api-key"), QByteArray("AIza-replay"));
    QCOMPARE(headerValue(harness.mock()->lastRequestHeaders(), "Authorization"), QByteArray());
    QVERIFY2(!harness.mock()->lastRequestQuery().contains("key="), harness.mock()->lastRequestQuery().constData());
    QVERIFY(answer.sentHeaders.contains("x-goog-api-key: [redacted]"));
}

void TestReplayer::environmentCredential_fitsOnlyItsOwnProvider_data()
{
    QTest::addColumn<bool>("anthropic");
    QTest::addColumn<QString>("destination");
    QTest::addColumn<bool>("fits");
    QTest::newRow("openai itself") << false << u"https://api.openai.com/v1"_s << true;
    QTest::newRow("openai, host in upper case, explicit port") << false << u"https://API.OpenAI.com:443/v1"_s << true;
    QTest::newRow("anthropic itself") << true << u"https://api.anthropic.com"_s << true;
    QTest::newRow("a gateway") << false << u"https://openrouter.ai/api/v1"_s << false;
    QTest::newRow("a colleague's vllm") << false << u"http://10.0.0.7:8000/v1"_s << false;
    QTest::newRow("a local model") << false << u"http://127.0.0.1:8081/v1"_s << false;
    QTest::newRow("openai in clear text") << false << u"http://api.openai.com/v1"_s << false;
    QTest::newRow("a look-alike host") << false << u"https://api.openai.com.example.net/v1"_s << false;
    QTest::newRow("another port") << false << u"https://api.openai.com:8443/v1"_s << false;
    QTest::newRow("the other provider") << true << u"https://api.openai.com/v1"_s << false;
    QTest::newRow("unknown") << false << QString() << false;
}

void TestReplayer::environmentCredential_fitsOnlyItsOwnProvider()
{
    QFETCH(bool, anthropic);
    QFETCH(QString, destination);
    QFETCH(bool, fits);
    QCOMPARE(Replayer::environmentCredentialFits(anthropic ? ApiStyle::Anthropic : ApiStyle::OpenAI, QUrl(destination)),
             fits);
}

void TestReplayer::answer_isCutAtItsBound()
{
    ProxyHarness harness(withBodies);
    const CallRecord original = record(harness, "/v1/chat/completions", chatBody(u"a long enough answer"_s));
    Replayer replayer;
    Replayer::Options options = throughBreakwater(harness, "sk-test-1");
    options.maxAnswerBytes = 16;
    const Replayer::Answer answer = replayed(replayer, original, options);
    QCOMPARE(answer.status, 200);
    QVERIFY(answer.truncated);
    QCOMPARE(answer.body.size(), 16);
    QVERIFY(answer.error.isEmpty());
    QVERIFY(!replayer.isRunning());
}

void TestReplayer::httpsTarget_trustsTheCaFile()
{
    // A replay to an https server signed by a CA of one's own (a local server, a corporate TLS
    // proxy) trusts --ca-file, as the upstream calls and --attach do.
    ProxyHarness plain(withBodies);
    const CallRecord original = record(plain, "/v1/chat/completions", chatBody(u"over tls"_s));
    const QString data = QStringLiteral(BREAKWATER_TEST_DATA) + u"/tls/"_s;
    ProxyHarness tls([&data](ProxyConfig &config) {
        config.tlsCertFile = data + u"server.pem"_s;
        config.tlsKeyFile = data + u"server.key"_s;
    });
    Replayer replayer;
    Replayer::Options options;
    options.baseUrl = QUrl(u"https://localhost:%1"_s.arg(tls.port()));   // the test certificate's name
    options.credential = "sk-tls-1";
    const Replayer::Answer untrusted = replayed(replayer, original, options);
    QCOMPARE(untrusted.status, 0);   // refused at the handshake, and said
    QVERIFY(!untrusted.error.isEmpty());
    options.caFile = data + u"server.key"_s;   // no certificate in it: refused before sending
    const Replayer::Answer noCertificate = replayed(replayer, original, options);
    QCOMPARE(noCertificate.status, -1);
    QVERIFY2(noCertificate.error.english().contains(u"server.key"_s), qPrintable(noCertificate.error.english()));
    options.caFile = data + u"ca.pem"_s;
    const Replayer::Answer answer = replayed(replayer, original, options);
    QCOMPARE(answer.status, 200);
    QVERIFY2(answer.body.contains("echo: over tls"), answer.body.constData());
}

void TestReplayer::deadTarget_isReportedWithoutStatus()
{
    ProxyHarness harness(withBodies);
    const CallRecord original = record(harness, "/v1/chat/completions", chatBody(u"nobody home"_s));
    quint16 closedPort = 0;
    {
        QTcpServer probe;
        QVERIFY(probe.listen(QHostAddress::LocalHost, 0));
        closedPort = probe.serverPort();
    }
    Replayer replayer;
    Replayer::Options options;
    options.throughBreakwater = false;
    options.baseUrl = QUrl(u"http://127.0.0.1:%1/v1"_s.arg(closedPort));
    const Replayer::Answer answer = replayed(replayer, original, options);
    QCOMPARE(answer.status, 0);
    QVERIFY(!answer.error.isEmpty());
    QCOMPARE(harness.mock()->callCount(), 1);
}

void TestReplayer::silentTarget_endsAtTheTimeout()
{
    ProxyHarness harness(withBodies);
    const CallRecord original = record(harness, "/v1/chat/completions", chatBody(u"hang"_s));
    harness.mock()->setMode(MockProvider::Mode::Hang);
    Replayer replayer;
    Replayer::Options options;
    options.throughBreakwater = false;
    options.baseUrl = harness.mock()->openaiBaseUrl();
    options.timeout = std::chrono::milliseconds(300);
    const Replayer::Answer answer = replayed(replayer, original, options);
    QCOMPARE(answer.status, 0);
    QCOMPARE(answer.error.english(), u"no answer within the timeout"_s);
    QCOMPARE(harness.mock()->callCount(), 2);   // it was sent, and never answered
}

QTEST_GUILESS_MAIN(TestReplayer)
#include "tst_replayer.moc"
