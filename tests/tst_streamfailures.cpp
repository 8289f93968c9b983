// Errors inside a 200 stream, through a real Breakwater and the mock provider: the provider's own
// error event (Anthropic `event: error`, OpenAI's `{"error":...}` chunk) makes the call a failure
// for every part of the proxy: not cached, a breaker failure, not charged as a success, the same
// error for every rider. Completeness comes from the parsed events, never from the body's text,
// and Anthropic's pings pass through untouched.
// (The Responses API's failures are judged by the same StreamVerdict; they are tested at the
// flight in tst_sharing and in tst_eventstream, since POST /v1/responses is routed elsewhere.)

#include "accounting/spendguard.h"
#include "http/eventstream.h"
#include "proxyharness.h"

#include <QTest>

using namespace Qt::StringLiterals;
using namespace std::chrono_literals;

namespace {

constexpr int kWait = 30000;   // ms: generous, for a loaded 2-core machine; never reached when it passes
const QByteArray kChat = "/v1/chat/completions";
const QByteArray kMessages = "/v1/messages";

QString words(int count)
{
    QStringList list;
    for (int i = 0; i < count; ++i)
        list.append(u"w%1"_s.arg(i));
    return list.join(u' ');
}

double spentToday(const ProxyHarness &harness)
{
    return harness.onProxyThread<double>([](ProxyServer *proxy) { return proxy->spendGuard()->spentToday(); });
}

// Every event's type, in order (the proxy may relay several events in one chunk).
QList<QByteArray> eventTypes(const QByteArray &stream)
{
    QList<QByteArray> types;
    EventStreamParser parser;
    parser.feed(stream, [&types](const ServerSentEvent &event) { types.append(event.type); });
    return types;
}

int breakerFailures(const ProxyHarness &harness, bool anthropic)
{
    return harness.onProxyThread<int>([anthropic](ProxyServer *proxy) {
        return (anthropic ? proxy->anthropic() : proxy->openai()).breaker->consecutiveFailures();
    });
}

} // namespace

class TestStreamFailures final : public QObject
{
    Q_OBJECT
private slots:
    void errorEventInA200Stream_isAFailureEverywhere_data();
    void errorEventInA200Stream_isAFailureEverywhere();
    void modelTextQuotingTheFinalEvent_doesNotCompleteACutStream_data();
    void modelTextQuotingTheFinalEvent_doesNotCompleteACutStream();
    void pings_passThroughUntouched();
};

void TestStreamFailures::errorEventInA200Stream_isAFailureEverywhere_data()
{
    QTest::addColumn<QByteArray>("path");
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<HeaderList>("headers");
    QTest::addColumn<QByteArray>("providerError");   // how the provider's error reads in the stream
    QTest::addColumn<QByteArray>("errorKind");
    QTest::newRow("anthropic event: error") << kMessages << messagesBody(words(6), true) << kAnthropicAuth
                                            << "event: error\ndata: {"_ba
                                            << "stream_error_event:overloaded_error"_ba;
    QTest::newRow("openai error chunk") << kChat << chatBody(words(6), true) << kOpenAiAuth
                                        << "data: {\"error\":{"_ba << "stream_error_event:server_error"_ba;
}

void TestStreamFailures::errorEventInA200Stream_isAFailureEverywhere()
{
    QFETCH(QByteArray, path);
    QFETCH(QByteArray, body);
    QFETCH(HeaderList, headers);
    QFETCH(QByteArray, providerError);
    QFETCH(QByteArray, errorKind);
    const bool anthropic = path == kMessages;
    ProxyHarness harness([](ProxyConfig &c) {
        c.maxSpendUsd = 10;
        c.breakerFailures = 1000;   // counted, never opened
    });
    harness.mock()->setMode(MockProvider::Mode::ErrorEventInStream);
    harness.mock()->setHoldAnswers(true);
    QList<LoopbackClient *> calls{harness.start(path, body, headers), harness.start(path, body, headers)};
    QTRY_COMPARE_WITH_TIMEOUT(harness.ridersWaiting(), 2, kWait);
    QTRY_COMPARE_WITH_TIMEOUT(harness.mock()->heldCount(), 1, kWait);
    harness.mock()->setHoldAnswers(false);
    QTRY_VERIFY_WITH_TIMEOUT(allFinished(calls), kWait);

    // Both riders read the provider's stream and its error, once, and nothing of ours after it.
    for (const LoopbackClient *call : calls) {
        const LoopbackResponse &response = call->response();
        QCOMPARE(response.status, 200);
        QVERIFY(response.complete);
        QCOMPARE(response.body, calls.first()->response().body);
        QCOMPARE(response.body.count(providerError), 1);
        const QByteArray last = response.body.sliced(response.body.indexOf(providerError));
        QVERIFY2(last.count("\n\n") == 1 && last.endsWith("\n\n"), last.constData());   // the last event
        QVERIFY(!response.body.contains("message_stop") && !response.body.contains("[DONE]"));
    }
    QCOMPARE(calls[0]->response().header("x-breakwater-dedup"), "miss"_ba);
    QCOMPARE(calls[1]->response().header("x-breakwater-dedup"), "joined"_ba);
    QTRY_COMPARE_WITH_TIMEOUT(harness.records.size(), 2, kWait);
    for (const CallRecord &record : harness.records)
        QCOMPARE(record.errorKind, errorKind);

    // One failure for the breaker; spend charged what the stream consumed (its usage where it said
    // it, else the input estimate and the events seen: issue 20 item 4), logged at that cost.
    QCOMPARE(breakerFailures(harness, anthropic), 1);
    const CallRecord &starter = harness.records.first().outcome == Outcome::Miss ? harness.records.first()
                                                                                 : harness.records.last();
    QCOMPARE(spentToday(harness), starter.costUsd);
    QVERIFY(starter.costUsd > 0);
    QCOMPARE(harness.onProxyThread<int>([](ProxyServer *p) { return p->cache().count(); }), 0);

    // Nothing was kept: the same request calls the provider again.
    const LoopbackResponse again = harness.post(path, body, headers);
    QCOMPARE(again.header("x-breakwater-dedup"), "miss"_ba);
    QCOMPARE(harness.mock()->callCount(QString::fromLatin1(path)), 2);
    QCOMPARE(breakerFailures(harness, anthropic), 2);
}

void TestStreamFailures::modelTextQuotingTheFinalEvent_doesNotCompleteACutStream_data()
{
    QTest::addColumn<QByteArray>("path");
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<HeaderList>("headers");
    // The quoted end comes early in the text, so the half of the stream the mock sends holds it.
    QTest::newRow("messages quoting message_stop")
        << kMessages << messagesBody(u"event: message_stop\n\n "_s + words(12), true) << kAnthropicAuth;
    QTest::newRow("chat quoting [DONE]") << kChat << chatBody(u"data: [DONE]\n\n "_s + words(12), true)
                                         << kOpenAiAuth;
}

void TestStreamFailures::modelTextQuotingTheFinalEvent_doesNotCompleteACutStream()
{
    QFETCH(QByteArray, path);
    QFETCH(QByteArray, body);
    QFETCH(HeaderList, headers);
    ProxyHarness harness;
    harness.mock()->setMode(MockProvider::Mode::CutStream);
    const LoopbackResponse cut = harness.post(path, body, headers);
    QCOMPARE(cut.status, 200);
    QVERIFY(cut.body.contains("event: message_stop") || cut.body.contains("data: [DONE]"));   // as text
    QVERIFY2(cut.chunks.constLast().contains("The upstream stream ended before it was complete"),
             cut.chunks.constLast().constData());
    QTRY_COMPARE_WITH_TIMEOUT(harness.records.size(), 1, kWait);
    QCOMPARE(harness.records.first().errorKind, "stream_cut"_ba);

    const LoopbackResponse again = harness.post(path, body, headers);
    QCOMPARE(again.header("x-breakwater-dedup"), "miss"_ba);
    QCOMPARE(harness.mock()->callCount(QString::fromLatin1(path)), 2);
}

void TestStreamFailures::pings_passThroughUntouched()
{
    ProxyHarness harness;
    harness.mock()->setMode(MockProvider::Mode::Pings);
    const QByteArray body = messagesBody(words(5), true);
    const LoopbackResponse direct = fetch(harness.mock()->port(), "POST", kMessages, kAnthropicAuth, body);
    const LoopbackResponse proxied = harness.post(kMessages, body, kAnthropicAuth);
    QCOMPARE(proxied.status, 200);
    QVERIFY(direct.body.count("event: ping") > 3);
    QCOMPARE(proxied.body.count("event: ping\ndata: {\"type\":\"ping\"}\n\n"),
             direct.body.count("event: ping\ndata: {\"type\":\"ping\"}\n\n"));
    QCOMPARE(eventTypes(proxied.body), eventTypes(direct.body));
    QCOMPARE(eventTypes(proxied.body).constLast(), "message_stop"_ba);

    // A complete stream, pings and all: cached, and no failure for the breaker.
    const LoopbackResponse hit = harness.post(kMessages, body, kAnthropicAuth);
    QCOMPARE(hit.header("x-breakwater-dedup"), "hit"_ba);
    QCOMPARE(hit.body, proxied.body);
    QCOMPARE(breakerFailures(harness, true), 0);
    QTRY_COMPARE_WITH_TIMEOUT(harness.records.size(), 2, kWait);
    QCOMPARE(harness.records.first().errorKind, QByteArray());
}

QTEST_GUILESS_MAIN(TestStreamFailures)
#include "tst_streamfailures.moc"
