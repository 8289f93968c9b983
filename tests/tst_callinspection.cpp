// Inside a call, through a real Breakwater and the mock provider: every record keeps the request's
// and the response's headers with credentials redacted, what made its dedup key (never the raw
// credential), the client's retry attempt, for a stream its events, gaps and verdict, and for a
// failed call the upstream's error body, bounded and redacted, also without --log-bodies.

#include "accounting/callinspection.h"
#include "cannedserver.h"
#include "fakeclock.h"
#include "http/streamtiming.h"
#include "proxyharness.h"
#include "sharing/requestkey.h"

#include <QTest>

using namespace Qt::StringLiterals;
using namespace std::chrono_literals;

namespace {

constexpr int kWait = 30000;   // ms: generous, for a loaded 2-core machine; never reached when it passes
const QByteArray kChat = "/v1/chat/completions";
const QByteArray kMessages = "/v1/messages";

// Six words: a stream of several events.
const QString kPrompt = u"one two three four five six"_s;

// One call through the proxy, its record once published.
CallRecord callOnce(ProxyHarness &harness, const QByteArray &path, const QByteArray &body, const HeaderList &headers)
{
    const qsizetype before = harness.records.size();
    LoopbackClient *call = harness.start(path, body, headers);
    const auto done = [&] { return call->isFinished() && harness.records.size() > before; };
    if (!QTest::qWaitFor(done, kWait))
        return {};
    return harness.records.last();
}

// An upstream that answers every request with `response` at once, in one write.
QUrl cannedUrl(const CannedServer &server)
{
    return QUrl(u"http://127.0.0.1:%1/v1"_s.arg(server.serverPort()));
}

} // namespace

class TestCallInspection final : public QObject
{
    Q_OBJECT
private slots:
    void headers_areRecordedWithCredentialsRedacted();
    void manyHeaders_areBoundedAndCounted();
    void keyInputs_nameWhatMadeTheKeyButNeverTheCredential();
    void queryKeysAndUpstreamUserinfo_areNeverRecorded();
    void retryAttempt_isReadFromTheStainlessHeader_data();
    void retryAttempt_isReadFromTheStainlessHeader();
    void streamStats_sayHowTheStreamArrived_data();
    void streamStats_sayHowTheStreamArrived();
    void streamInOneBurst_isBuffered();
    void errorBody_isKeptWithoutLogBodies();
    void errorBody_isBoundedAndRedacted();
};

void TestCallInspection::headers_areRecordedWithCredentialsRedacted()
{
    ProxyHarness harness;
    harness.mock()->setExtraHeaders(MockProvider::realProviderHeaders());
    HeaderList headers = kOpenAiAuth;
    headers += {{"Cookie", "session=s3cr3t-cookie"}, {"x-trace-id", "trace-42"},
                {"password", "g00g-secret-value"}, {"x-note", "my key sk-proj-abcdefghijklmnop1234"}};
    const CallRecord record = callOnce(harness, kChat, chatBody(u"hello"_s), headers);
    QCOMPARE(record.status, 200);

    const QByteArray &sent = record.requestHeaders;
    QVERIFY2(sent.contains("Authorization: [redacted]\n"), sent.constData());
    QVERIFY2(sent.contains("Cookie: [redacted]\n"), sent.constData());
    QVERIFY2(sent.contains("password: [redacted]\n"), sent.constData());   // named like a secret
    QVERIFY2(sent.contains("x-note: my key [redacted]\n"), sent.constData());     // a key's shape anywhere
    QVERIFY2(sent.contains("x-trace-id: trace-42\n"), sent.constData());
    QVERIFY2(sent.contains("Content-Type: application/json\n"), sent.constData());
    for (const QByteArray &secret : {"sk-test-1"_ba, "s3cr3t-cookie"_ba, "g00g-secret"_ba, "abcdefghijklmnop1234"_ba})
        QVERIFY2(!sent.contains(secret), secret.constData());
    QCOMPARE(record.method, "POST"_ba);
    QCOMPARE(record.target, kChat);

    // The response as Breakwater sent it: the provider's headers, its cookies redacted (both lines
    // kept), and Breakwater's own.
    const HeaderList answered = CallInspection::parseHeaders(record.responseHeaders);
    QVERIFY2(record.responseHeaders.contains("x-breakwater-dedup: miss\n"), record.responseHeaders.constData());
    QVERIFY2(record.responseHeaders.contains(QByteArray("x-request-id: " + record.requestId + '\n')), record.responseHeaders.constData());
    QVERIFY2(record.responseHeaders.contains("Content-Length: "), record.responseHeaders.constData());
    const qsizetype cookies = std::count_if(answered.cbegin(), answered.cend(), [](const auto &header) {
        return header.first.compare("set-cookie", Qt::CaseInsensitive) == 0 && header.second == "[redacted]";
    });
    QCOMPARE(cookies, 2);
    QVERIFY(!record.responseHeaders.contains("__cf_bm"));
    QVERIFY(record.errorBody.isEmpty());   // a success keeps no error body
}

void TestCallInspection::manyHeaders_areBoundedAndCounted()
{
    HeaderList headers;
    for (int i = 0; i < 100; ++i)
        headers.emplaceBack(QByteArray("x-big-" + QByteArray::number(i)), QByteArray(500, 'v'));
    const QByteArray recorded = CallInspection::recordHeaders(headers);
    QVERIFY(recorded.size() <= CallRecord::kMaxHeaderBytes);
    const HeaderList back = CallInspection::parseHeaders(recorded);
    QVERIFY(back.size() > 20 && back.size() < 100);
    QCOMPARE(back.first(), headers.first());
    QVERIFY2(recorded.endsWith(QByteArray("... " + QByteArray::number(100 - back.size()) + " more header(s) left out\n")),
             recorded.right(80).constData());
}

void TestCallInspection::keyInputs_nameWhatMadeTheKeyButNeverTheCredential()
{
    ProxyHarness harness;
    HeaderList headers = kAnthropicAuth;
    headers += {{"anthropic-beta", "tools-2024-05-16"}, {"x-stainless-retry-count", "0"}};
    const CallRecord record = callOnce(harness, kMessages, messagesBody(u"hi"_s), headers);
    const QByteArray &inputs = record.keyInputs;
    QVERIFY2(inputs.contains("route: /v1/messages\n"), inputs.constData());
    QVERIFY2(inputs.contains(QByteArray("credential x-api-key: sha256 " + fingerprint("sk-ant-test-1") + '\n')), inputs.constData());
    QVERIFY2(inputs.contains("header anthropic-version: 2023-06-01\n"), inputs.constData());
    QVERIFY2(inputs.contains("header anthropic-beta: tools-2024-05-16\n"), inputs.constData());
    QVERIFY2(inputs.contains("body fields: max_tokens, messages, model"), inputs.constData());
    QVERIFY2(!inputs.contains("sk-ant-test-1"), inputs.constData());
    QVERIFY2(!inputs.contains("stainless"), inputs.constData());   // per-attempt headers never key

    // A request that asked not to be shared says why it has no key.
    headers.emplaceBack("Cache-Control", "no-cache");
    const CallRecord bypass = callOnce(harness, kMessages, messagesBody(u"hi"_s), headers);
    QCOMPARE(bypass.outcome, Outcome::Bypass);
    QVERIFY2(bypass.keyInputs.startsWith("no key: "), bypass.keyInputs.constData());
}

void TestCallInspection::queryKeysAndUpstreamUserinfo_areNeverRecorded()
{
    // An upstream behind a gateway that takes a user and password in its URL.
    ProxyHarness harness([](ProxyConfig &c) { c.openaiUpstream.setUserInfo(u"gw-user:gw-pass-0123456789"_s); });
    const QByteArray secret = "AIzaSyD-query-key-0123456789abcdefghij";
    const QByteArray target = kChat + "?alt=sse&key=" + secret;
    const CallRecord record = callOnce(harness, target, chatBody(u"hi"_s), kOpenAiAuth);
    QCOMPARE(record.status, 200);
    QCOMPARE(harness.mock()->lastRequestQuery(), "alt=sse&key=" + secret);   // the provider gets the key
    QCOMPARE(record.target, kChat + "?alt=sse&key=REDACTED");
    const QByteArray &inputs = record.keyInputs;
    QVERIFY2(inputs.contains("query: alt=sse&key=REDACTED\n"), inputs.constData());
    QVERIFY2(inputs.contains(QByteArray("credential ?key: sha256 " + fingerprint(secret) + '\n')), inputs.constData());
    QVERIFY2(inputs.contains("upstream: http://127.0.0.1:"), inputs.constData());
    for (const QByteArray &never : {secret, "gw-pass"_ba, "gw-user"_ba}) {
        QVERIFY2(!inputs.contains(never), inputs.constData());
        QVERIFY2(!record.target.contains(never), record.target.constData());
        QVERIFY2(!record.requestHeaders.contains(never), record.requestHeaders.constData());
    }
    // The key still tells two keys apart: another ?key= is another call, the same one a hit.
    QCOMPARE(callOnce(harness, kChat + "?alt=sse&key=AIzaSyD-another-key-0123456789abcdefg", chatBody(u"hi"_s),
                      kOpenAiAuth).outcome, Outcome::Miss);
    QCOMPARE(callOnce(harness, target, chatBody(u"hi"_s), kOpenAiAuth).outcome, Outcome::Hit);
    // Nor do the figures Breakwater serves about itself hold the upstream's password.
    for (const QByteArray &path : {"/breakwater/stats"_ba, "/metrics"_ba})
        QVERIFY2(!harness.get(path).body.contains("gw-pass"), path.constData());
}

void TestCallInspection::retryAttempt_isReadFromTheStainlessHeader_data()
{
    QTest::addColumn<QByteArray>("sent");   // empty: no header
    QTest::addColumn<int>("attempt");
    QTest::newRow("no header") << QByteArray() << -1;
    QTest::newRow("first try") << "0"_ba << 0;
    QTest::newRow("second retry") << "2"_ba << 2;
    QTest::newRow("not a number") << "two"_ba << -1;
}

void TestCallInspection::retryAttempt_isReadFromTheStainlessHeader()
{
    QFETCH(QByteArray, sent);
    QFETCH(int, attempt);
    ProxyHarness harness;
    HeaderList headers = kOpenAiAuth;
    if (!sent.isEmpty())
        headers.emplaceBack("X-Stainless-Retry-Count", sent);
    const CallRecord record = callOnce(harness, kChat, chatBody(u"retry"_s), headers);
    QCOMPARE(record.status, 200);
    QCOMPARE(record.retryAttempt, attempt);
}

void TestCallInspection::streamStats_sayHowTheStreamArrived_data()
{
    QTest::addColumn<QByteArray>("path");
    QTest::addColumn<int>("mode");
    QTest::addColumn<QByteArray>("verdict");
    QTest::addColumn<int>("minGapMs");   // the largest gap is at least this
    QTest::addColumn<bool>("content");   // a content event came
    using Mode = MockProvider::Mode;
    QTest::newRow("openai complete") << kChat << int(Mode::Ok) << "complete"_ba << 15 << true;
    QTest::newRow("anthropic complete") << kMessages << int(Mode::Ok) << "complete"_ba << 15 << true;
    QTest::newRow("slow stream") << kChat << int(Mode::SlowStream) << "complete"_ba << 250 << true;
    QTest::newRow("cut stream") << kChat << int(Mode::CutStream) << "cut"_ba << 0 << true;
    QTest::newRow("anthropic error event") << kMessages << int(Mode::ErrorEventInStream) << "error_event"_ba << 15 << true;
    QTest::newRow("openai error chunk") << kChat << int(Mode::ErrorEventInStream) << "error_event"_ba << 15 << true;
}

void TestCallInspection::streamStats_sayHowTheStreamArrived()
{
    QFETCH(QByteArray, path);
    QFETCH(int, mode);
    QFETCH(QByteArray, verdict);
    QFETCH(int, minGapMs);
    QFETCH(bool, content);
    ProxyHarness harness;
    harness.mock()->setMode(MockProvider::Mode(mode));
    harness.mock()->setChunkInterval(20ms);   // spread out as a live stream is
    harness.mock()->setSlowGap(300ms);
    const bool anthropic = path == kMessages;
    const CallRecord record = callOnce(harness, path, anthropic ? messagesBody(kPrompt, true) : chatBody(kPrompt, true),
                                       anthropic ? kAnthropicAuth : kOpenAiAuth);
    QVERIFY(record.stream);
    QCOMPARE(record.streamVerdict, verdict);
    QVERIFY2(record.eventCount >= 2, qPrintable(QString::number(record.eventCount)));
    QVERIFY2(record.maxEventGapMs >= minGapMs, qPrintable(QString::number(record.maxEventGapMs)));
    QCOMPARE(record.firstTokenAtMs > 0, content);
    if (content) {
        // The first token comes after the first byte: the headers and a role-only chunk are no token.
        QVERIFY(record.firstTokenAtMs >= record.firstByteAtMs);
        QVERIFY(record.firstTokenAtMs <= record.endAtMs);
    }
    if (verdict == "error_event") {
        QVERIFY2(record.errorBody.contains("error"), record.errorBody.constData());
        QVERIFY2(record.errorBody.size() < 1024, record.errorBody.constData());   // the event, not the stream
    } else {
        QVERIFY(record.errorBody.isEmpty());
    }
}

void TestCallInspection::streamInOneBurst_isBuffered()
{
    // Every event of a complete stream in one write: what a buffering gateway hands on.
    QByteArray events;
    const int count = 8;
    events += R"(data: {"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":""}}]})"
              "\n\n";
    for (int i = 1; i < count - 1; ++i)
        events += R"(data: {"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"w)"
                  + QByteArray::number(i) + R"( "}}]})" + "\n\n";
    events += "data: [DONE]\n\n";
    CannedServer upstream("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: "
                          + QByteArray::number(events.size()) + "\r\n\r\n" + events);
    QVERIFY(upstream.listenOn());
    // The clock stands still: "in one burst" is then what the bytes say, not how quickly a loaded
    // machine hands the events on (with a real clock two of them could be read more than
    // kBurstMs apart, and the stream would no longer count as buffered).
    FakeClock clock;
    ProxyHarness harness([&upstream](ProxyConfig &c) { c.openaiUpstream = cannedUrl(upstream); }, &clock);
    const CallRecord record = callOnce(harness, kChat, chatBody(u"burst"_s, true), kOpenAiAuth);
    QCOMPARE(upstream.requests(), 1);
    QCOMPARE(record.status, 200);
    QCOMPARE(record.eventCount, qint64(count));
    QCOMPARE(record.streamVerdict, "buffered"_ba);
    QVERIFY(record.maxEventGapMs <= StreamTiming::kBurstMs);
    QVERIFY(record.firstTokenAtMs > 0);
}

void TestCallInspection::errorBody_isKeptWithoutLogBodies()
{
    ProxyHarness harness;   // bodies are not logged
    QVERIFY(!harness.config().recordBodies);
    harness.mock()->setMode(MockProvider::Mode::Overloaded529);
    const CallRecord record = callOnce(harness, kMessages, messagesBody(u"busy"_s), kAnthropicAuth);
    QCOMPARE(record.status, 529);
    QVERIFY(record.responseBody.isEmpty());
    QVERIFY(record.requestBody.isEmpty());
    QVERIFY2(record.errorBody.contains("overloaded_error"), record.errorBody.constData());
    QVERIFY2(record.responseHeaders.contains("Content-Type: application/json"), record.responseHeaders.constData());
}

void TestCallInspection::errorBody_isBoundedAndRedacted()
{
    const QByteArray body = R"({"error":{"message":"bad key sk-proj-abcdefghijklmnop1234 )" + QByteArray(20'000, 'x')
                            + R"(","type":"server_error","param":null,"code":null}})";
    CannedServer upstream("HTTP/1.1 500 Internal Server Error\r\nContent-Type: application/json\r\nContent-Length: "
                          + QByteArray::number(body.size()) + "\r\n\r\n" + body);
    QVERIFY(upstream.listenOn());
    ProxyHarness harness([&upstream](ProxyConfig &c) { c.openaiUpstream = cannedUrl(upstream); });
    const CallRecord record = callOnce(harness, kChat, chatBody(u"fail"_s), kOpenAiAuth);
    QCOMPARE(record.status, 500);
    QCOMPARE(record.errorBody.size(), CallRecord::kMaxErrorBodyBytes);
    const QByteArray start = R"({"error":{"message":"bad key [redacted] )";
    QVERIFY(record.errorBody.startsWith(start));
    QVERIFY(!record.errorBody.contains("abcdefghijklmnop1234"));
}

QTEST_GUILESS_MAIN(TestCallInspection)
#include "tst_callinspection.moc"
