// Fault injection through a real Breakwater and the mock provider: each kind seen by the client as
// the provider's own failure would be (statuses, headers, a cut stream, an error event inside a
// 200, a hang that ends as our timeout), counted by the breaker as a real failure, and marked as
// injected (x-breakwater-fault, the record, the metric). How often a rule fires (count=, p=, for=
// on a FakeClock) and which calls it touches (upstream, route, model), joiners of an injected
// flight, and a cancelled injected call.

#include "faults/faultinjector.h"
#include "fakeclock.h"
#include "http/eventstream.h"
#include "proxyharness.h"
#include "upstream/upstreampool.h"
#include "wireevents.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace std::chrono_literals;

namespace {

constexpr int kWait = 30000;   // ms: generous, for a loaded 2-core machine; never reached when it passes
const QByteArray kChat = "/v1/chat/completions";
const QByteArray kMessages = "/v1/messages";
const QByteArray kResponses = "/v1/responses";

std::function<void(ProxyConfig &)> withFaults(const QStringList &rules, const std::function<void(ProxyConfig &)> &more = {})
{
    return [rules, more](ProxyConfig &config) {
        for (const QString &text : rules)
            config.faults.append(FaultRule::parse(text).value());
        if (more)
            more(config);
    };
}

int breakerFailures(const ProxyHarness &harness, bool anthropic = false)
{
    return harness.onProxyThread<int>([anthropic](ProxyServer *proxy) {
        return (anthropic ? proxy->anthropic() : proxy->openai()).breaker->consecutiveFailures();
    });
}

QList<FaultRule> armedRules(const ProxyHarness &harness)
{
    return harness.onProxyThread<QList<FaultRule>>([](ProxyServer *proxy) { return proxy->faults()->rules(); });
}

QJsonObject json(const QByteArray &body)
{
    return QJsonDocument::fromJson(body).object();
}

// Every event of a stream, however the proxy chunked it.
QList<ServerSentEvent> eventsOf(const QByteArray &stream)
{
    QList<ServerSentEvent> events;
    EventStreamParser parser;
    parser.feed(stream, [&events](const ServerSentEvent &event) { events.append(event); });
    return events;
}

int chatCalls(const ProxyHarness &harness)
{
    return harness.mock()->callCount(u"/v1/chat/completions"_s);
}

const CallRecord &lastRecord(const ProxyHarness &harness)
{
    return harness.records.last();
}

} // namespace

class TestFaults final : public QObject
{
    Q_OBJECT
private slots:
    void statusFault_looksLikeTheProvidersOwnError_data();
    void statusFault_looksLikeTheProvidersOwnError();
    void hang_endsAs504AfterTheTimeoutAndCountsForTheBreaker();
    void resetAndGarbage_areBreakwatersOwn502_data();
    void resetAndGarbage_areBreakwatersOwn502();
    void cut_endsTheStreamWithoutItsEndEvent_data();
    void cut_endsTheStreamWithoutItsEndEvent();
    void errorEvent_arrivesInsideA200_data();
    void errorEvent_arrivesInsideA200();
    void delay_holdsTheFirstByteThenTheRealAnswer();
    void slowStream_spacesTheRealEvents();
    void count_firesExactlyNTimes();
    void percent_zeroNeverFiresAndHundredAlways();
    void for_expiresOnTheClock();
    void scope_limitsTheCallsARuleTouches_data();
    void scope_limitsTheCallsARuleTouches();
    void fiveInjected503s_openTheBreaker();
    void joiners_getTheSameFaultAndTheHeader();
    void cancelledInjectedHang_endsAtOnce();
    void drain_endsInjectedCallsAsItEndsRealOnes();
    void metrics_countInjectedFaultsByKind();
};

void TestFaults::statusFault_looksLikeTheProvidersOwnError_data()
{
    QTest::addColumn<QString>("rule");
    QTest::addColumn<QByteArray>("path");
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<HeaderList>("headers");
    QTest::addColumn<int>("status");
    QTest::addColumn<QString>("errorType");
    QTest::addColumn<QByteArray>("retryAfter");     // empty: none
    QTest::addColumn<QByteArray>("retryAfterMs");
    QTest::addColumn<QByteArray>("rateLimitHeader");   // empty: none
    QTest::newRow("503 openai") << u"503"_s << kChat << chatBody(u"a"_s) << kOpenAiAuth << 503 << u"server_error"_s
                                << ""_ba << ""_ba << ""_ba;
    QTest::newRow("500 openai") << u"500"_s << kChat << chatBody(u"a"_s) << kOpenAiAuth << 500 << u"server_error"_s
                                << ""_ba << ""_ba << ""_ba;
    QTest::newRow("502 openai") << u"502"_s << kChat << chatBody(u"a"_s) << kOpenAiAuth << 502 << u"server_error"_s
                                << ""_ba << ""_ba << ""_ba;
    QTest::newRow("529 anthropic") << u"529"_s << kMessages << messagesBody(u"a"_s) << kAnthropicAuth << 529
                                   << u"overloaded_error"_s << ""_ba << ""_ba << ""_ba;
    QTest::newRow("503 anthropic") << u"503:retry-after=3"_s << kMessages << messagesBody(u"a"_s) << kAnthropicAuth
                                   << 503 << u"overloaded_error"_s << "3"_ba << "3000"_ba << ""_ba;
    QTest::newRow("429 openai") << u"429:retry-after=2"_s << kChat << chatBody(u"a"_s) << kOpenAiAuth << 429
                                << u"requests"_s << "2"_ba << "2000"_ba << "x-ratelimit-remaining-requests"_ba;
    QTest::newRow("429 anthropic, fractional") << u"429:retry-after=1.5"_s << kMessages << messagesBody(u"a"_s)
                                               << kAnthropicAuth << 429 << u"rate_limit_error"_s << "2"_ba << "1500"_ba
                                               << "anthropic-ratelimit-requests-remaining"_ba;
}

void TestFaults::statusFault_looksLikeTheProvidersOwnError()
{
    QFETCH(QString, rule);
    QFETCH(QByteArray, path);
    QFETCH(QByteArray, body);
    QFETCH(HeaderList, headers);
    QFETCH(int, status);
    QFETCH(QString, errorType);
    QFETCH(QByteArray, retryAfter);
    QFETCH(QByteArray, retryAfterMs);
    QFETCH(QByteArray, rateLimitHeader);
    ProxyHarness harness(withFaults({rule}));
    const LoopbackResponse response = harness.post(path, body, headers);
    const QByteArray label = "#1 " + FaultRule::parse(rule)->text().toUtf8();
    QCOMPARE(response.status, status);
    QCOMPARE(response.header("x-breakwater-fault"), label);
    // The provider's answer, not Breakwater's refusal: no x-should-retry, the provider's error shape.
    QVERIFY(!response.header("x-should-retry").size());
    QCOMPARE(errorTypeOf(response.body, path == kMessages ? ApiStyle::Anthropic : ApiStyle::OpenAI), errorType);
    QCOMPARE(response.header("retry-after"), retryAfter);
    QCOMPARE(response.header("retry-after-ms"), retryAfterMs);
    if (!rateLimitHeader.isEmpty())
        QCOMPARE(response.header(rateLimitHeader), "0"_ba);
    QCOMPARE(response.header("x-breakwater-dedup"), "miss"_ba);
    QCOMPARE(harness.mock()->callCount(), 0);   // no real upstream call was made
    QTRY_COMPARE_WITH_TIMEOUT(harness.records.size(), 1, kWait);
    QCOMPARE(lastRecord(harness).injected, QString::fromUtf8(label));
    QCOMPARE(lastRecord(harness).status, status);
    QCOMPARE(breakerFailures(harness, path == kMessages), status == 429 ? 0 : 1);
}

void TestFaults::hang_endsAs504AfterTheTimeoutAndCountsForTheBreaker()
{
    ProxyHarness harness(withFaults({u"hang"_s}, [](ProxyConfig &c) { c.upstreamTimeout = 300ms; }));
    const LoopbackResponse response = harness.post(kChat, chatBody(u"hang"_s));
    QCOMPARE(response.status, 504);
    QCOMPARE(response.header("x-should-retry"), "false"_ba);   // our own timeout, as for a real hang
    QCOMPARE(response.header("x-breakwater-fault"), "#1 hang"_ba);
    QCOMPARE(harness.mock()->callCount(), 0);
    QTRY_COMPARE_WITH_TIMEOUT(harness.records.size(), 1, kWait);
    QCOMPARE(lastRecord(harness).errorKind, "upstream_timeout"_ba);
    QCOMPARE(lastRecord(harness).injected, u"#1 hang"_s);
    QVERIFY(lastRecord(harness).totalMs() >= 300);
    QCOMPARE(breakerFailures(harness), 1);
}

void TestFaults::resetAndGarbage_areBreakwatersOwn502_data()
{
    QTest::addColumn<QString>("rule");
    QTest::addColumn<QByteArray>("errorKind");
    QTest::newRow("reset: unreachable") << u"reset"_s << "upstream_unreachable"_ba;
    QTest::newRow("garbage: an invalid answer") << u"garbage"_s << "invalid_upstream_answer"_ba;
}

// As for the real failures: Breakwater answers 502 itself (x-should-retry: false), no call made.
void TestFaults::resetAndGarbage_areBreakwatersOwn502()
{
    QFETCH(QString, rule);
    QFETCH(QByteArray, errorKind);
    ProxyHarness harness(withFaults({rule}));
    const LoopbackResponse response = harness.post(kChat, chatBody(rule));
    QCOMPARE(response.status, 502);
    QCOMPARE(response.header("x-should-retry"), "false"_ba);
    QCOMPARE(response.header("x-breakwater-fault"), "#1 " + rule.toUtf8());
    QVERIFY(response.body.contains(errorKind));
    QCOMPARE(harness.mock()->callCount(), 0);
    QTRY_COMPARE_WITH_TIMEOUT(harness.records.size(), 1, kWait);
    QCOMPARE(lastRecord(harness).errorKind, errorKind);
    QCOMPARE(breakerFailures(harness), 1);
    QCOMPARE(harness.proxy()->openai().pool->refusedRetries(), 0);   // a reset is never sent again
}

void TestFaults::cut_endsTheStreamWithoutItsEndEvent_data()
{
    QTest::addColumn<QByteArray>("path");
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<HeaderList>("headers");
    QTest::addColumn<QByteArray>("endEvent");
    QTest::newRow("chat") << kChat << chatBody(u"one two three four five six"_s, true) << kOpenAiAuth << "[DONE]"_ba;
    QTest::newRow("messages") << kMessages << messagesBody(u"one two three four five six"_s, true) << kAnthropicAuth
                              << "message_stop"_ba;
}

void TestFaults::cut_endsTheStreamWithoutItsEndEvent()
{
    QFETCH(QByteArray, path);
    QFETCH(QByteArray, body);
    QFETCH(HeaderList, headers);
    QFETCH(QByteArray, endEvent);
    ProxyHarness harness(withFaults({u"cut=3"_s}));
    const LoopbackResponse response = harness.post(path, body, headers);
    QCOMPARE(response.status, 200);
    QCOMPARE(response.header("x-breakwater-fault"), "#1 cut=3"_ba);
    const QList<ServerSentEvent> events = eventsOf(response.body);
    QCOMPARE(events.size(), 4);   // three of the provider's, then Breakwater's stream_cut
    QVERIFY(!response.body.contains(endEvent));
    QCOMPARE(events.last().type, path == kMessages ? "error"_ba : "message"_ba);   // the route's own error event
    QVERIFY2(events.last().data.contains("before it was complete"), events.last().data.constData());
    QCOMPARE(harness.mock()->callCount(QString::fromLatin1(path)), 1);   // a real call, cut short
    QTRY_COMPARE_WITH_TIMEOUT(harness.records.size(), 1, kWait);
    QCOMPARE(lastRecord(harness).errorKind, "stream_cut"_ba);
    QCOMPARE(breakerFailures(harness, path == kMessages), 1);
    QCOMPARE(harness.onProxyThread<int>([](ProxyServer *p) { return p->cache().count(); }), 0);
}

void TestFaults::errorEvent_arrivesInsideA200_data()
{
    QTest::addColumn<QByteArray>("path");
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<HeaderList>("headers");
    QTest::addColumn<QByteArray>("providerError");
    QTest::addColumn<QByteArray>("errorKind");
    QTest::newRow("chat error chunk") << kChat << chatBody(u"one two three four"_s, true) << kOpenAiAuth
                                      << "data: {\"error\":{"_ba << "stream_error_event:server_error"_ba;
    QTest::newRow("anthropic event: error") << kMessages << messagesBody(u"one two three four"_s, true) << kAnthropicAuth
                                            << "event: error\ndata: {"_ba << "stream_error_event:overloaded_error"_ba;
    QTest::newRow("responses response.failed") << kResponses << responsesBody(u"one two three four"_s, true)
                                               << kOpenAiAuth << "event: response.failed\n"_ba
                                               << "stream_response_failed:server_error"_ba;
}

void TestFaults::errorEvent_arrivesInsideA200()
{
    QFETCH(QByteArray, path);
    QFETCH(QByteArray, body);
    QFETCH(HeaderList, headers);
    QFETCH(QByteArray, providerError);
    QFETCH(QByteArray, errorKind);
    ProxyHarness harness(withFaults({u"error-event=2"_s}));
    const LoopbackResponse response = harness.post(path, body, headers);
    QCOMPARE(response.status, 200);
    QCOMPARE(response.header("x-breakwater-fault"), "#1 error-event=2"_ba);
    const QList<ServerSentEvent> events = eventsOf(response.body);
    QCOMPARE(events.size(), 3);   // two of the provider's, then the error, and the stream ends
    QCOMPARE(response.body.count(providerError), 1);
    const QByteArray last = response.body.sliced(response.body.indexOf(providerError));
    QVERIFY2(last.count("\n\n") == 1 && last.endsWith("\n\n"), last.constData());   // the last event
    QVERIFY(!response.body.contains("[DONE]") && !response.body.contains("message_stop")
            && !response.body.contains("response.completed"));
    QTRY_COMPARE_WITH_TIMEOUT(harness.records.size(), 1, kWait);
    QCOMPARE(lastRecord(harness).errorKind, errorKind);
    QCOMPARE(lastRecord(harness).injected, u"#1 error-event=2"_s);
    QCOMPARE(breakerFailures(harness, path == kMessages), 1);
}

void TestFaults::delay_holdsTheFirstByteThenTheRealAnswer()
{
    ProxyHarness harness(withFaults({u"delay=400ms"_s}));
    const LoopbackResponse response = harness.post(kChat, chatBody(u"slow first byte"_s));
    QCOMPARE(response.status, 200);
    QCOMPARE(response.header("x-breakwater-fault"), "#1 delay=400ms"_ba);
    QCOMPARE(json(response.body).value(u"object"_s).toString(), u"chat.completion"_s);
    QCOMPARE(harness.mock()->callCount(), 1);
    QTRY_COMPARE_WITH_TIMEOUT(harness.records.size(), 1, kWait);
    const CallRecord &record = lastRecord(harness);
    QVERIFY2(record.firstByteAtMs - record.receivedAtMs >= 400, qPrintable(QString::number(record.firstByteAtMs - record.receivedAtMs)));
    QVERIFY(record.errorKind.isEmpty());
    QCOMPARE(breakerFailures(harness), 0);
}

void TestFaults::slowStream_spacesTheRealEvents()
{
    ProxyHarness harness(withFaults({u"slow-stream=150ms"_s}));
    harness.mock()->setChunkInterval(0ms);
    const LoopbackResponse response = harness.post(kChat, chatBody(u"one two three"_s, true));
    QCOMPARE(response.status, 200);
    QCOMPARE(response.header("x-breakwater-fault"), "#1 slow-stream=150ms"_ba);
    QVERIFY(response.body.contains("data: [DONE]"));   // the real answer, whole
    QVERIFY(eventsOf(response.body).size() >= 4);
    QVERIFY(response.chunkAtNs.size() >= 4);
    // Each event came at least a gap after the one before it (one event per chunk).
    for (qsizetype i = 1; i < response.chunkAtNs.size(); ++i)
        QVERIFY2(response.chunkAtNs[i] - response.chunkAtNs[i - 1] >= 140'000'000, qPrintable(QString::number(i)));
    QTRY_COMPARE_WITH_TIMEOUT(harness.records.size(), 1, kWait);
    QVERIFY(lastRecord(harness).errorKind.isEmpty());
}

void TestFaults::count_firesExactlyNTimes()
{
    ProxyHarness harness(withFaults({u"503:count=2"_s}));
    QList<int> statuses;
    for (int i = 0; i < 4; ++i)
        statuses.append(harness.post(kChat, chatBody(u"prompt %1"_s.arg(i))).status);
    QCOMPARE(statuses, QList<int>({503, 503, 200, 200}));
    QCOMPARE(harness.mock()->callCount(), 2);
    QVERIFY(armedRules(harness).isEmpty());   // spent: disarmed
    QTRY_COMPARE_WITH_TIMEOUT(harness.records.size(), 4, kWait);
    int injected = 0;
    for (const CallRecord &record : harness.records)
        injected += record.injected.isEmpty() ? 0 : 1;
    QCOMPARE(injected, 2);
}

void TestFaults::percent_zeroNeverFiresAndHundredAlways()
{
    ProxyHarness harness(withFaults({u"500:p=0"_s, u"503:p=100:route=/v1/embeddings"_s},
                                    [](ProxyConfig &c) { c.breakerFailures = 1000; }));   // counted, never opened
    for (int i = 0; i < 20; ++i)
        QCOMPARE(harness.post(kChat, chatBody(u"p0 %1"_s.arg(i))).status, 200);
    for (int i = 0; i < 20; ++i) {
        const LoopbackResponse response = harness.post(
            "/v1/embeddings", QByteArray(R"({"model":"text-embedding-3-small","input":"p100 )") + QByteArray::number(i) + "\"}");
        QCOMPARE(response.status, 503);
        QCOMPARE(response.header("x-breakwater-fault"), "#2 503:route=/v1/embeddings"_ba);
    }
    QCOMPARE(harness.mock()->callCount(), 20);
    const QList<FaultRule> rules = armedRules(harness);
    QCOMPARE(rules.size(), 2);
    QCOMPARE(rules[0].fired, 0);
    QCOMPARE(rules[1].fired, 20);
}

void TestFaults::for_expiresOnTheClock()
{
    FakeClock clock;
    ProxyHarness harness(withFaults({u"503:for=10s"_s}), &clock);
    QCOMPARE(harness.post(kChat, chatBody(u"before"_s)).status, 503);
    clock.advance(9'999);
    QCOMPARE(harness.post(kChat, chatBody(u"still"_s)).status, 503);
    clock.advance(1);
    QCOMPARE(harness.post(kChat, chatBody(u"after"_s)).status, 200);
    QVERIFY(armedRules(harness).isEmpty());
    QCOMPARE(harness.mock()->callCount(), 1);
}

void TestFaults::scope_limitsTheCallsARuleTouches_data()
{
    QTest::addColumn<QString>("rule");
    QTest::addColumn<bool>("chatFires");        // POST /v1/chat/completions, gpt-4o-mini, not streamed
    QTest::addColumn<bool>("messagesFires");    // POST /v1/messages, claude-3-5-haiku-latest, streamed
    QTest::newRow("both upstreams") << u"503"_s << true << true;
    QTest::newRow("openai only") << u"503:upstream=openai"_s << true << false;
    QTest::newRow("anthropic only") << u"503:upstream=anthropic"_s << false << true;
    QTest::newRow("one route") << u"503:route=/v1/messages"_s << false << true;
    QTest::newRow("another route") << u"503:route=/v1/embeddings"_s << false << false;
    QTest::newRow("one model") << u"503:model=gpt-4o-mini"_s << true << false;
    QTest::newRow("a model nobody asks for") << u"503:model=gpt-4o"_s << false << false;
    QTest::newRow("stream kinds only on streams") << u"cut=0"_s << false << true;
}

void TestFaults::scope_limitsTheCallsARuleTouches()
{
    QFETCH(QString, rule);
    QFETCH(bool, chatFires);
    QFETCH(bool, messagesFires);
    ProxyHarness harness(withFaults({rule}));
    const LoopbackResponse chat = harness.post(kChat, chatBody(u"scope"_s));
    const LoopbackResponse messages = harness.post(kMessages, messagesBody(u"scope"_s, true), kAnthropicAuth);
    QCOMPARE(!chat.header("x-breakwater-fault").isEmpty(), chatFires);
    QCOMPARE(!messages.header("x-breakwater-fault").isEmpty(), messagesFires);
    QCOMPARE(chat.status == 200, !chatFires);
    QCOMPARE(messages.body.contains("message_stop"), !messagesFires);
}

void TestFaults::fiveInjected503s_openTheBreaker()
{
    ProxyHarness harness(withFaults({u"503"_s}, [](ProxyConfig &c) { c.breakerFailures = 5; }));
    for (int i = 0; i < 5; ++i)
        QCOMPARE(harness.post(kChat, chatBody(u"outage %1"_s.arg(i))).status, 503);
    QCOMPARE(harness.onProxyThread<BreakerState>([](ProxyServer *p) { return p->openai().breaker->state(); }),
             BreakerState::Open);
    const LoopbackResponse refused = harness.post(kChat, chatBody(u"outage 5"_s));
    QCOMPARE(refused.status, 503);
    QCOMPARE(refused.header("x-should-retry"), "false"_ba);   // Breakwater's own refusal now
    QVERIFY(refused.header("x-breakwater-fault").isEmpty());
    QVERIFY(refused.body.contains("breaker_open"));
    QCOMPARE(chatCalls(harness), 0);   // (the breaker's probe may have asked for /v1/models)
    QTRY_COMPARE_WITH_TIMEOUT(harness.records.size(), 6, kWait);
    QCOMPARE(harness.countOutcome(Outcome::BreakerRefused), 1);
    QCOMPARE(armedRules(harness).first().fired, 5);
}

void TestFaults::joiners_getTheSameFaultAndTheHeader()
{
    ProxyHarness harness(withFaults({u"hang:count=1"_s}, [](ProxyConfig &c) { c.upstreamTimeout = 1500ms; }));
    QList<LoopbackClient *> calls;
    for (int i = 0; i < 3; ++i)
        calls.append(harness.start(kChat, chatBody(u"the same question"_s)));
    QTRY_COMPARE_WITH_TIMEOUT(harness.ridersWaiting(), 3, kWait);
    QTRY_VERIFY_WITH_TIMEOUT(allFinished(calls), kWait);
    for (const LoopbackClient *call : calls) {
        QCOMPARE(call->response().status, 504);
        QCOMPARE(call->response().header("x-breakwater-fault"), "#1 hang:count=1"_ba);
    }
    QTRY_COMPARE_WITH_TIMEOUT(harness.records.size(), 3, kWait);
    QCOMPARE(harness.countOutcome(Outcome::Miss), 1);
    QCOMPARE(harness.countOutcome(Outcome::Joined), 2);
    for (const CallRecord &record : harness.records) {
        QCOMPARE(record.injected, u"#1 hang:count=1"_s);
        QCOMPARE(record.errorKind, "upstream_timeout"_ba);
    }
    QCOMPARE(breakerFailures(harness), 1);   // one upstream call, however many riders
    // The rule fired once, for the one call: the same request again reaches the provider.
    QCOMPARE(harness.post(kChat, chatBody(u"the same question"_s)).status, 200);
}

void TestFaults::cancelledInjectedHang_endsAtOnce()
{
    ProxyHarness harness(withFaults({u"hang"_s}, [](ProxyConfig &c) { c.upstreamTimeout = 60s; }));
    LoopbackClient *call = harness.start(kChat, chatBody(u"hung up"_s), kOpenAiAuth + HeaderList{{"Cache-Control", "no-store"}});
    QTRY_COMPARE_WITH_TIMEOUT(harness.ridersWaiting(), 1, kWait);
    call->hangUp();
    // Nobody can use the answer (no-store): the call is cancelled at once, far before the timeout.
    QTRY_COMPARE_WITH_TIMEOUT(harness.records.size(), 1, 10000);
    QCOMPARE(lastRecord(harness).errorKind, "client_closed"_ba);
    QTRY_COMPARE_WITH_TIMEOUT(harness.onProxyThread<int>([](ProxyServer *p) { return p->flightsInProgress(); }), 0, 10000);
    QCOMPARE(breakerFailures(harness), 0);   // a cancelled call says nothing of the provider
}

void TestFaults::drain_endsInjectedCallsAsItEndsRealOnes()
{
    ProxyHarness harness(withFaults({u"hang:route=/v1/chat/completions"_s, u"slow-stream=30s"_s},
                                    [](ProxyConfig &c) { c.upstreamTimeout = 60s; }));
    LoopbackClient *hung = harness.start(kChat, chatBody(u"hangs"_s));
    LoopbackClient *slow = harness.start(kMessages, messagesBody(u"slow stream"_s, true), kAnthropicAuth);
    QTRY_COMPARE_WITH_TIMEOUT(harness.ridersWaiting(), 2, kWait);
    QTRY_VERIFY_WITH_TIMEOUT(harness.mock()->callCount(u"/v1/messages"_s) == 1, kWait);
    harness.onProxyThread<bool>([](ProxyServer *p) { p->drain(0ms); return true; });
    // The pools stop: the hang (no real call) and the held stream (a real one) both end as shutdown.
    QTRY_VERIFY_WITH_TIMEOUT(hung->isFinished() && slow->isFinished(), 10000);
    QCOMPARE(hung->response().status, 503);
    QVERIFY(hung->response().body.contains("shutting_down"));
    QCOMPARE(slow->response().status, 200);
    QVERIFY(slow->response().body.contains("shutting down"));   // an error event (Anthropic's) ends the stream
    QVERIFY(!slow->response().body.contains("message_stop"));
    QTRY_COMPARE_WITH_TIMEOUT(harness.records.size(), 2, kWait);
}

void TestFaults::metrics_countInjectedFaultsByKind()
{
    ProxyHarness harness(withFaults({u"503:count=2"_s, u"cut=1:upstream=anthropic"_s}));
    harness.post(kChat, chatBody(u"m1"_s));
    harness.post(kChat, chatBody(u"m2"_s));
    harness.post(kMessages, messagesBody(u"m3"_s, true), kAnthropicAuth);
    const LoopbackResponse metrics = harness.get("/metrics");
    QVERIFY2(metrics.body.contains("breakwater_faults_injected_total{upstream=\"openai\",kind=\"503\"} 2\n"),
             metrics.body.constData());
    QVERIFY(metrics.body.contains("breakwater_faults_injected_total{upstream=\"anthropic\",kind=\"cut\"} 1\n"));
    const QJsonObject stats = json(harness.control("GET", "/breakwater/stats").body);
    QCOMPARE(stats.value(u"faultsInjected"_s).toObject().value(u"openai"_s).toObject().value(u"503"_s).toInt(), 2);
    QCOMPARE(stats.value(u"faults"_s).toArray().size(), 1);   // the 503 rule is spent; the cut one stays
}

QTEST_GUILESS_MAIN(TestFaults)
#include "tst_faults.moc"
