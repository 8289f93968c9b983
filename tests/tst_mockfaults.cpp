// The misbehaviours of real providers that the mock reproduces on demand: 529, 429 with
// retry-after-ms, errors inside a 200 stream (Anthropic `event: error`, an OpenAI error chunk,
// Responses `response.failed` / `event: error` / `response.incomplete`), pings, repeated response
// headers (two Set-Cookie lines), and model text that quotes SSE framing. Asserted on the bytes.

#include <algorithm>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include "mocktest.h"
#include "proxyharness.h"   // chatBody(), messagesBody()
#include "wireevents.h"

using namespace std::chrono_literals;
using namespace Qt::StringLiterals;
using Mode = MockProvider::Mode;

namespace {

constexpr auto kResponses = "/v1/responses";
constexpr auto kChat = "/v1/chat/completions";
constexpr auto kMessages = "/v1/messages";

QJsonObject objectOf(const QByteArray &bytes)
{
    return QJsonDocument::fromJson(bytes).object();
}

QByteArray jsonOf(const QJsonObject &object)
{
    return QJsonDocument(object).toJson(QJsonDocument::Compact);
}

} // namespace

class tst_MockFaults final : public MockTest
{
    Q_OBJECT

private slots:
    void overloaded529_answersInRouteShape_data();
    void overloaded529_answersInRouteShape();
    void rateLimitedMs429_carriesRetryAfterMsAndLimits_data();
    void rateLimitedMs429_carriesRetryAfterMsAndLimits();
    void errorEventInStream_anthropic_errorEventAfterMessageStart();
    void errorEventInStream_openai_errorChunkWithoutDone_data();
    void errorEventInStream_openai_errorChunkWithoutDone();
    void errorEventInStream_responses_endsWithResponseFailed();
    void responsesErrorEvent_endsWithBareErrorEvent();
    void responsesIncomplete_stopsAtMaxOutputTokens();
    void inStreamModes_answerJsonRequestsNormally_data();
    void inStreamModes_answerJsonRequestsNormally();
    void cutStream_responsesStream_endsBeforeCompleted();
    void pings_sitBetweenEveryTwoAnthropicEvents();
    void newModes_followASchedule();

    void extraHeaders_repeatedNamesAreSeparateLines_data();
    void extraHeaders_repeatedNamesAreSeparateLines();
    void extraHeaders_offByDefault();
    void quotedFraming_staysEscapedInsideOneDelta_data();
    void quotedFraming_staysEscapedInsideOneDelta();
};

void tst_MockFaults::overloaded529_answersInRouteShape_data()
{
    QTest::addColumn<QByteArray>("path");
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<bool>("anthropic");
    QTest::newRow("messages") << QByteArray(kMessages) << messagesBody(u"x"_s) << true;
    QTest::newRow("messages stream") << QByteArray(kMessages) << messagesBody(u"x"_s, true) << true;
    QTest::newRow("count_tokens") << "/v1/messages/count_tokens"_ba << messagesBody(u"x"_s) << true;
    QTest::newRow("chat") << QByteArray(kChat) << chatBody(u"x"_s) << false;
    QTest::newRow("responses stream") << QByteArray(kResponses) << responsesBody(u"x"_s, true) << false;
}

void tst_MockFaults::overloaded529_answersInRouteShape()
{
    QFETCH(QByteArray, path);
    QFETCH(QByteArray, body);
    QFETCH(bool, anthropic);
    mock()->setMode(Mode::Overloaded529);
    QVERIFY(rawHead(port(), rawRequest("POST", path, body)).startsWith("HTTP/1.1 529 "));
    const LoopbackResponse response = post(path, body);
    QCOMPARE(response.status, 529);
    QVERIFY(response.complete && !response.chunked);
    QCOMPARE(response.header("Content-Type"), "application/json");
    if (anthropic)
        QCOMPARE(errorTypeOf(response.body, ApiStyle::Anthropic), u"overloaded_error"_s);
    else
        QCOMPARE(errorTypeOf(response.body, ApiStyle::OpenAI), u"server_error"_s);
}

void tst_MockFaults::rateLimitedMs429_carriesRetryAfterMsAndLimits_data()
{
    QTest::addColumn<QByteArray>("path");
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<QByteArray>("remaining");   // the rate-limit header of the route's API
    QTest::newRow("chat") << QByteArray(kChat) << chatBody(u"x"_s) << "x-ratelimit-remaining-requests"_ba;
    QTest::newRow("responses") << QByteArray(kResponses) << responsesBody(u"x"_s) << "x-ratelimit-remaining-requests"_ba;
    QTest::newRow("messages") << QByteArray(kMessages) << messagesBody(u"x"_s)
                              << "anthropic-ratelimit-requests-remaining"_ba;
}

void tst_MockFaults::rateLimitedMs429_carriesRetryAfterMsAndLimits()
{
    QFETCH(QByteArray, path);
    QFETCH(QByteArray, body);
    QFETCH(QByteArray, remaining);
    mock()->setMode(Mode::RateLimitedMs429);
    const LoopbackResponse response = post(path, body);
    QCOMPARE(response.status, 429);
    QCOMPARE(response.header("retry-after-ms"), "1500");
    QCOMPARE(response.header("retry-after"), "2");
    QCOMPARE(response.header(remaining), "0");
    QVERIFY(objectOf(response.body)[u"error"_s][u"message"_s].toString().contains(u"1.5s"_s));
}

void tst_MockFaults::errorEventInStream_anthropic_errorEventAfterMessageStart()
{
    mock()->setMode(Mode::ErrorEventInStream);
    const LoopbackResponse response = post(kMessages, messagesBody(u"a story to tell"_s, true));
    QCOMPARE(response.status, 200);
    QVERIFY(response.complete);   // a clean end: only the error event says it failed
    const QList<SseEvent> events = sseEvents(response);
    const QList<QByteArray> expected{"message_start", "content_block_start", "ping", "content_block_delta", "error"};
    QCOMPARE(eventNames(events), expected);
    QCOMPARE(response.chunks.constLast().left(20), "event: error\ndata: {");
    QCOMPARE(errorTypeOf(events.constLast().data, ApiStyle::Anthropic), u"overloaded_error"_s);
    QVERIFY(!events.constLast().json[u"error"_s][u"message"_s].toString().isEmpty());
    QVERIFY(!response.body.contains("message_stop"));
}

void tst_MockFaults::errorEventInStream_openai_errorChunkWithoutDone_data()
{
    QTest::addColumn<QByteArray>("path");
    QTest::addColumn<QByteArray>("body");
    QTest::newRow("chat") << QByteArray(kChat) << chatBody(u"a story to tell"_s, true);
    QTest::newRow("completions") << "/v1/completions"_ba
                                 << jsonOf({{u"prompt"_s, u"a story to tell"_s}, {u"stream"_s, true}});
}

void tst_MockFaults::errorEventInStream_openai_errorChunkWithoutDone()
{
    QFETCH(QByteArray, path);
    QFETCH(QByteArray, body);
    mock()->setMode(Mode::ErrorEventInStream);
    const LoopbackResponse response = post(path, body);
    QCOMPARE(response.status, 200);
    QVERIFY(response.complete);
    QVERIFY(!response.body.contains("[DONE]"));
    const QList<SseEvent> events = sseEvents(response);
    QVERIFY(events.size() >= 2);   // the stream began before it failed
    for (const SseEvent &event : events)
        QVERIFY(event.name.isEmpty());   // data-only, as OpenAI streams are
    QVERIFY(!events.first().json.contains(u"error"_s));
    QCOMPARE(errorTypeOf(events.constLast().data, ApiStyle::OpenAI), u"server_error"_s);
}

void tst_MockFaults::errorEventInStream_responses_endsWithResponseFailed()
{
    mock()->setMode(Mode::ErrorEventInStream);
    const LoopbackResponse response = post(kResponses, responsesBody(u"a story to tell"_s, true));
    QCOMPARE(response.status, 200);
    QVERIFY(response.complete);
    const QList<SseEvent> events = sseEvents(response);
    const QList<QByteArray> expected{"response.created", "response.in_progress", "response.output_item.added",
                                     "response.content_part.added", "response.output_text.delta",
                                     "response.failed"};
    QCOMPARE(eventNames(events), expected);
    QCOMPARE(events.constLast().json[u"sequence_number"_s].toInt(), int(events.size() - 1));
    const QJsonObject failed = events.constLast().json[u"response"_s].toObject();
    QCOMPARE(failed[u"status"_s].toString(), u"failed"_s);
    QCOMPARE(failed[u"error"_s][u"code"_s].toString(), u"server_error"_s);
    QVERIFY(!response.body.contains("response.completed"));
    // The failed response is what the id routes find afterwards.
    const QByteArray id = failed[u"id"_s].toString().toLatin1();
    mock()->setMode(Mode::Ok);
    QCOMPARE(objectOf(get("/v1/responses/" + id).body)[u"status"_s].toString(), u"failed"_s);
}

void tst_MockFaults::responsesErrorEvent_endsWithBareErrorEvent()
{
    mock()->setMode(Mode::ResponsesErrorEvent);
    const LoopbackResponse response = post(kResponses, responsesBody(u"a story to tell"_s, true));
    QCOMPARE(response.status, 200);
    const QList<SseEvent> events = sseEvents(response);
    QCOMPARE(events.constLast().name, "error");
    QCOMPARE(events[events.size() - 2].name, "response.output_text.delta");
    const QJsonObject error = events.constLast().json;
    QCOMPARE(error[u"type"_s].toString(), u"error"_s);
    QCOMPARE(error[u"code"_s].toString(), u"server_is_overloaded"_s);
    QCOMPARE(error[u"sequence_number"_s].toInt(), int(events.size() - 1));
    QVERIFY(!response.body.contains("response.completed") && !response.body.contains("response.failed"));

    // Elsewhere it is the plain in-stream error.
    const QList<SseEvent> anthropic = sseEvents(post(kMessages, messagesBody(u"x"_s, true)));
    QCOMPARE(anthropic.constLast().name, "error");
    QCOMPARE(errorTypeOf(anthropic.constLast().data, ApiStyle::Anthropic), u"overloaded_error"_s);
}

void tst_MockFaults::responsesIncomplete_stopsAtMaxOutputTokens()
{
    const QString prompt = u"one two three four five six"_s;
    mock()->setMode(Mode::ResponsesIncomplete);
    const LoopbackResponse response = post(kResponses, responsesBody(prompt, true));
    QCOMPARE(response.status, 200);
    QVERIFY(response.complete);
    const QList<SseEvent> events = sseEvents(response);
    QCOMPARE(events.constLast().name, "response.incomplete");
    const QJsonObject incomplete = events.constLast().json[u"response"_s].toObject();
    QCOMPARE(incomplete[u"status"_s].toString(), u"incomplete"_s);
    QCOMPARE(incomplete[u"incomplete_details"_s][u"reason"_s].toString(), u"max_output_tokens"_s);
    const QString text = streamedText(events);
    QVERIFY(text.size() < prompt.size() && QString(u"echo: "_s + prompt).startsWith(text) && !text.isEmpty());
    QCOMPARE(incomplete[u"output"_s][0][u"content"_s][0][u"text"_s].toString(), text);
    QVERIFY(!response.body.contains("response.completed"));

    const QJsonObject json = objectOf(post(kResponses, responsesBody(prompt)).body);
    QCOMPARE(json[u"status"_s].toString(), u"incomplete"_s);
    QCOMPARE(json[u"incomplete_details"_s][u"reason"_s].toString(), u"max_output_tokens"_s);
    // Chat has no such state: it is answered normally.
    QVERIFY(post(kChat, chatBody(u"x"_s, true)).body.endsWith("data: [DONE]\n\n"));
}

void tst_MockFaults::inStreamModes_answerJsonRequestsNormally_data()
{
    QTest::addColumn<Mode>("mode");
    QTest::addColumn<QByteArray>("path");
    QTest::addColumn<QByteArray>("body");
    QTest::newRow("error event, chat") << Mode::ErrorEventInStream << QByteArray(kChat) << chatBody(u"x"_s);
    QTest::newRow("error event, messages") << Mode::ErrorEventInStream << QByteArray(kMessages) << messagesBody(u"x"_s);
    QTest::newRow("error event, responses") << Mode::ErrorEventInStream << QByteArray(kResponses) << responsesBody(u"x"_s);
    QTest::newRow("bare error, responses") << Mode::ResponsesErrorEvent << QByteArray(kResponses) << responsesBody(u"x"_s);
    QTest::newRow("pings, messages") << Mode::Pings << QByteArray(kMessages) << messagesBody(u"x"_s);
}

void tst_MockFaults::inStreamModes_answerJsonRequestsNormally()
{
    QFETCH(Mode, mode);
    QFETCH(QByteArray, path);
    QFETCH(QByteArray, body);
    mock()->setMode(mode);
    const LoopbackResponse response = post(path, body);
    QCOMPARE(response.status, 200);
    QVERIFY(!response.chunked);
    QVERIFY(response.body.contains("echo: x"));
    QVERIFY(!objectOf(response.body)[u"error"_s].isObject());   // Responses say "error": null
    if (path == kResponses)
        QCOMPARE(objectOf(response.body)[u"status"_s].toString(), u"completed"_s);
}

void tst_MockFaults::cutStream_responsesStream_endsBeforeCompleted()
{
    mock()->setMode(Mode::CutStream);
    const LoopbackResponse response = post(kResponses, responsesBody(u"one two three four"_s, true));
    QCOMPARE(response.status, 200);
    QVERIFY(response.connectionClosed && !response.complete);
    QVERIFY(!response.chunks.isEmpty());
    QVERIFY(!response.body.contains("response.completed"));
}

void tst_MockFaults::pings_sitBetweenEveryTwoAnthropicEvents()
{
    const QByteArray body = messagesBody(u"tell me a story"_s, true);
    const QList<SseEvent> normal = sseEvents(post(kMessages, body));
    mock()->setMode(Mode::Pings);
    const LoopbackResponse response = post(kMessages, body);
    QVERIFY(response.complete);
    const QList<SseEvent> events = sseEvents(response);
    QCOMPARE(events.size(), 2 * normal.size() - 1);
    for (qsizetype i = 1; i < events.size(); i += 2) {
        QCOMPARE(events[i].name, "ping");
        QCOMPARE(response.chunks[i], "event: ping\ndata: {\"type\":\"ping\"}\n\n");
    }
    QCOMPARE(eventNames(events, false), eventNames(normal, false));
    QCOMPARE(streamedText(events), u"echo: tell me a story"_s);
    QCOMPARE(events.constLast().name, "message_stop");
    // OpenAI streams have no pings.
    QVERIFY(!post(kChat, chatBody(u"x"_s, true)).body.contains("ping"));
}

void tst_MockFaults::newModes_followASchedule()
{
    const auto lastEventName = [this] {
        const QList<SseEvent> events = sseEvents(post(kMessages, messagesBody(u"x"_s, true)));
        return events.isEmpty() ? QByteArray() : events.constLast().name;   // a 529 has none
    };
    mock()->setSchedule({{300ms, Mode::Overloaded529}, {1h, Mode::ErrorEventInStream}});
    QCOMPARE(post(kMessages, messagesBody(u"x"_s)).status, 529);
    QTRY_COMPARE_WITH_TIMEOUT(lastEventName(), "error", 10000);
    QCOMPARE(mock()->currentMode(), Mode::ErrorEventInStream);
}

void tst_MockFaults::extraHeaders_repeatedNamesAreSeparateLines_data()
{
    QTest::addColumn<Mode>("mode");
    QTest::addColumn<QByteArray>("path");
    QTest::addColumn<QByteArray>("body");
    QTest::newRow("json") << Mode::Ok << QByteArray(kChat) << chatBody(u"x"_s);
    QTest::newRow("stream") << Mode::Ok << QByteArray(kResponses) << responsesBody(u"x"_s, true);
    QTest::newRow("error") << Mode::Error503 << QByteArray(kMessages) << messagesBody(u"x"_s);
    QTest::newRow("cut body") << Mode::CutStream << QByteArray(kChat) << chatBody(u"x"_s);
}

void tst_MockFaults::extraHeaders_repeatedNamesAreSeparateLines()
{
    QFETCH(Mode, mode);
    QFETCH(QByteArray, path);
    QFETCH(QByteArray, body);
    mock()->setMode(mode);
    mock()->setExtraHeaders(MockProvider::realProviderHeaders());
    const QByteArray head = rawHead(port(), rawRequest("POST", path, body));
    QVERIFY2(head.endsWith("\r\n\r\n"), head.constData());
    QCOMPARE(head.count('\n'), head.count("\r\n"));   // no bare LF anywhere in the header block
    const QList<QByteArray> lines = head.split('\n');
    QList<QByteArray> cookies;
    for (const QByteArray &line : lines) {
        if (line.startsWith("Set-Cookie: "))
            cookies += line;
    }
    QCOMPARE(cookies.size(), 2);
    QVERIFY(cookies[0].startsWith("Set-Cookie: __cf_bm=") && cookies[0].contains("expires=Tue, 14-Nov-23"));
    QVERIFY(cookies[1].startsWith("Set-Cookie: _cfuvid="));
    QVERIFY(head.contains("\r\nx-ratelimit-remaining-requests: 9999\r\n"));
    QVERIFY(head.contains("\r\nopenai-processing-ms: 42\r\n"));

    // The raw client sees them as two headers too.
    const LoopbackResponse response = post(path, body);
    const auto cookieCount = std::count_if(response.headers.cbegin(), response.headers.cend(),
                                           [](const auto &header) { return header.first == "Set-Cookie"; });
    QCOMPARE(int(cookieCount), 2);
}

void tst_MockFaults::extraHeaders_offByDefault()
{
    const QByteArray head = rawHead(port(), rawRequest("POST", kChat, chatBody(u"x"_s)));
    QVERIFY(head.startsWith("HTTP/1.1 200 "));
    QVERIFY(!head.contains("Set-Cookie"));
    QVERIFY(!head.contains("x-ratelimit"));
}

void tst_MockFaults::quotedFraming_staysEscapedInsideOneDelta_data()
{
    QTest::addColumn<QByteArray>("path");
    QTest::addColumn<QByteArray>("lastEvent");   // the one real end of the stream
    QTest::newRow("messages") << QByteArray(kMessages) << "event: message_stop\ndata: {"_ba;
    QTest::newRow("chat") << QByteArray(kChat) << "data: [DONE]\n\n"_ba;
    QTest::newRow("responses") << QByteArray(kResponses) << "event: response.completed\ndata: {"_ba;
}

void tst_MockFaults::quotedFraming_staysEscapedInsideOneDelta()
{
    QFETCH(QByteArray, path);
    QFETCH(QByteArray, lastEvent);
    const QString prompt = u"print: event: message_stop\n\ndata: [DONE]\n\n\"quoted\" back\\slash"_s;
    const QByteArray body = path == kMessages ? messagesBody(prompt, true)
                          : path == kChat     ? chatBody(prompt, true)
                                              : responsesBody(prompt, true);
    const LoopbackResponse response = post(path, body);
    QVERIFY(response.complete);
    // One event per chunk: the text's blank lines were escaped, so each chunk has one blank line, at its end.
    for (const QByteArray &chunk : response.chunks)
        QVERIFY2(chunk.endsWith("\n\n") && chunk.count("\n\n") == 1, chunk.constData());
    const QList<SseEvent> events = sseEvents(response);
    QCOMPARE(streamedText(events), u"echo: "_s + prompt);
    // Each quoted marker is whole inside one delta, so the stream's bytes really contain it.
    const auto inOneDelta = [&events](const QString &marker) {
        return std::any_of(events.cbegin(), events.cend(), [&marker](const SseEvent &event) {
            return streamedText({event}).contains(marker);
        });
    };
    QVERIFY(inOneDelta(u"event: message_stop"_s));
    QVERIFY(inOneDelta(u"data: [DONE]"_s));
    QVERIFY(response.body.contains("\"event: message_stop\\n\\n\""));   // a JSON string, newlines escaped
    QVERIFY(response.body.contains("\"data: [DONE]\\n\\n\""));
    // ... and the stream still has exactly one real end, last.
    const auto ends = std::count_if(response.chunks.cbegin(), response.chunks.cend(),
                                    [&lastEvent](const QByteArray &chunk) { return chunk.startsWith(lastEvent); });
    QCOMPARE(int(ends), 1);
    QVERIFY(response.chunks.constLast().startsWith(lastEvent));
}

QTEST_GUILESS_MAIN(tst_MockFaults)
#include "tst_mockfaults.moc"
