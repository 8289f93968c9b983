// The event-stream parser (http/eventstream.h) against the WHATWG rules, line by line, and the
// verdict on an LLM stream (http/streamverdict.h) for each API's end, error and failure. Every
// sample is also fed split at every byte position: the events and the verdict must not depend on
// where the network cut the stream.

#include "http/eventstream.h"
#include "http/streamverdict.h"

#include <QList>
#include <QStringList>
#include <QTest>

using namespace Qt::StringLiterals;

namespace {

using State = StreamVerdict::State;

// Events as one line each, "type|data|id", so a table can list them and a failure shows them.
QStringList render(const QList<ServerSentEvent> &events)
{
    QStringList lines;
    for (const ServerSentEvent &event : events)
        lines.append(QString::fromUtf8(event.type + '|' + event.data + '|' + event.lastEventId));
    return lines;
}

// Hands `feed` the pieces of `stream` cut at each position in `cuts` (ascending).
template <typename Feed>
void feedInPieces(QByteArrayView stream, const QList<qsizetype> &cuts, Feed feed)
{
    qsizetype from = 0;
    for (const qsizetype cut : cuts) {
        feed(stream.sliced(from, cut - from));
        from = cut;
    }
    feed(stream.sliced(from));
}

QList<ServerSentEvent> parse(QByteArrayView stream, const QList<qsizetype> &cuts = {})
{
    EventStreamParser parser;
    QList<ServerSentEvent> events;
    auto keep = [&events](const ServerSentEvent &event) { events.append(event); };
    feedInPieces(stream, cuts, [&](QByteArrayView piece) { parser.feed(piece, keep); });
    return events;
}

StreamVerdict judge(QByteArrayView stream, const QList<qsizetype> &cuts = {})
{
    StreamVerdict verdict;
    feedInPieces(stream, cuts, [&verdict](QByteArrayView piece) { verdict.feed(piece); });
    return verdict;
}

const QByteArray kChat =
    "data: {\"id\":\"c1\",\"choices\":[{\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}\n\n"
    "data: {\"id\":\"c1\",\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}\n\n"
    ": keep-alive\n\n"
    "data: {\"id\":\"c1\",\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n"
    "data: [DONE]\n\n";
const QByteArray kAnthropic =
    "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":5}}}\n\n"
    "event: ping\ndata: {\"type\": \"ping\"}\n\n"
    "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"delta\":{\"text\":\"Hi\"}}\n\n"
    "event: message_delta\ndata: {\"type\":\"message_delta\",\"usage\":{\"output_tokens\":2}}\n\n"
    "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";
const QByteArray kResponses =
    "event: response.created\ndata: {\"type\":\"response.created\",\"sequence_number\":0,\"response\":{\"status\":\"in_progress\"}}\n\n"
    "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"sequence_number\":1,\"delta\":\"Hi\"}\n\n"
    "event: response.completed\ndata: {\"type\":\"response.completed\",\"sequence_number\":2,\"response\":{\"status\":\"completed\"}}\n\n";
const QByteArray kAnthropicError =
    "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{}}\n\n"
    "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n";

QByteArray withLineEnds(QByteArray stream, const QByteArray &ending)
{
    return stream.replace("\n", ending);
}

} // namespace

class TestEventStream final : public QObject
{
    Q_OBJECT
private slots:
    void parser_followsEachRuleOfTheGrammar_data();
    void parser_followsEachRuleOfTheGrammar();
    void parser_keepsTheLastRetryTime();
    void sameBytes_giveTheSameEventsAndVerdictInEverySplit_data();
    void sameBytes_giveTheSameEventsAndVerdictInEverySplit();
    void crlfSplitBetweenCrAndLf_isOneLineEnd();
    void verdict_judgesEachApisEnd_data();
    void verdict_judgesEachApisEnd();
    void verdict_firstDecidingEventWins();
    void verdict_seesTheFirstContentNotARoleOrAPing_data();
    void verdict_seesTheFirstContentNotARoleOrAPing();
    void verdict_keepsTheFailingEventsData();
};

void TestEventStream::parser_followsEachRuleOfTheGrammar_data()
{
    QTest::addColumn<QByteArray>("stream");
    QTest::addColumn<QStringList>("events");
    QTest::newRow("data only: a message") << "data: hi\n\n"_ba << QStringList{u"message|hi|"_s};
    QTest::newRow("named event") << "event: add\ndata: 1\n\n"_ba << QStringList{u"add|1|"_s};
    QTest::newRow("data lines joined with LF") << "data: a\ndata: b\n\n"_ba << QStringList{u"message|a\nb|"_s};
    QTest::newRow("no space after the colon") << "data:x\n\n"_ba << QStringList{u"message|x|"_s};
    QTest::newRow("only one space is dropped") << "data:  x\n\n"_ba << QStringList{u"message| x|"_s};
    QTest::newRow("trailing space kept") << "data: x \n\n"_ba << QStringList{u"message|x |"_s};
    QTest::newRow("colon inside the value") << "data: a: b\n\n"_ba << QStringList{u"message|a: b|"_s};
    QTest::newRow("field without colon: empty value") << "data\n\n"_ba << QStringList{u"message||"_s};
    QTest::newRow("two empty data lines") << "data\ndata\n\n"_ba << QStringList{u"message|\n|"_s};
    QTest::newRow("comment ignored") << ": keep-alive\ndata: x\n\n"_ba << QStringList{u"message|x|"_s};
    QTest::newRow("comment alone dispatches nothing") << ": event: message_stop\n\n"_ba << QStringList{};
    QTest::newRow("event without data is not dispatched") << "event: ping\n\n"_ba << QStringList{};
    QTest::newRow("unknown field ignored") << "foo: bar\ndata: x\n\n"_ba << QStringList{u"message|x|"_s};
    QTest::newRow("field names are case-sensitive") << "Data: x\nEVENT: y\n\n"_ba << QStringList{};
    QTest::newRow("empty event name is a message") << "event:\ndata: x\n\n"_ba << QStringList{u"message|x|"_s};
    QTest::newRow("event name reset after dispatch")
        << "event: a\ndata: 1\n\ndata: 2\n\n"_ba << QStringList{u"a|1|"_s, u"message|2|"_s};
    QTest::newRow("event name reset by an empty event")
        << "event: a\n\ndata: 2\n\n"_ba << QStringList{u"message|2|"_s};
    QTest::newRow("id kept for later events")
        << "id: 7\ndata: a\n\ndata: b\n\n"_ba << QStringList{u"message|a|7"_s, u"message|b|7"_s};
    QTest::newRow("empty id clears it")
        << "id: 7\ndata: a\n\nid\ndata: b\n\n"_ba << QStringList{u"message|a|7"_s, u"message|b|"_s};
    QTest::newRow("id holding NUL ignored")
        << QByteArray("id: 1\ndata: a\n\nid: 2\0x\ndata: b\n\n", 32)
        << QStringList{u"message|a|1"_s, u"message|b|1"_s};
    QTest::newRow("blank lines between events") << "\n\n\ndata: x\n\n\n"_ba << QStringList{u"message|x|"_s};
    QTest::newRow("CRLF") << "event: e\r\ndata: x\r\n\r\n"_ba << QStringList{u"e|x|"_s};
    QTest::newRow("CR") << "event: e\rdata: x\r\r"_ba << QStringList{u"e|x|"_s};
    QTest::newRow("mixed endings") << "data: a\rdata: b\r\ndata: c\n\r\n"_ba << QStringList{u"message|a\nb\nc|"_s};
    QTest::newRow("LF CR is two line ends") << "data: x\n\r"_ba << QStringList{u"message|x|"_s};
    QTest::newRow("byte order mark at the start dropped")
        << "\xEF\xBB\xBF" "data: x\n\n"_ba << QStringList{u"message|x|"_s};
    QTest::newRow("byte order mark later is part of a name")
        << "data: x\n\n\xEF\xBB\xBF" "data: y\n\n"_ba << QStringList{u"message|x|"_s};
    QTest::newRow("event not ended by a blank line") << "data: x\n"_ba << QStringList{};
    QTest::newRow("line not ended") << "data: x"_ba << QStringList{};
    QTest::newRow("JSON text quoting framing stays data")
        << "data: {\"text\":\"event: message_stop\\n\\ndata: [DONE]\"}\n\n"_ba
        << QStringList{u"message|{\"text\":\"event: message_stop\\n\\ndata: [DONE]\"}|"_s};
}

void TestEventStream::parser_followsEachRuleOfTheGrammar()
{
    QFETCH(QByteArray, stream);
    QFETCH(QStringList, events);
    QCOMPARE(render(parse(stream)), events);
}

void TestEventStream::parser_keepsTheLastRetryTime()
{
    EventStreamParser parser;
    auto none = [](const ServerSentEvent &) {};
    QCOMPARE(parser.reconnectionTimeMs(), -1);
    parser.feed("retry: 1500\n", none);
    QCOMPARE(parser.reconnectionTimeMs(), 1500);
    parser.feed("retry: 2s\nretry:\nretry: -1\n", none);   // not digits only: ignored
    QCOMPARE(parser.reconnectionTimeMs(), 1500);
    parser.feed("retry:99999999999999999999999\n", none);   // beyond any real time: ignored
    QCOMPARE(parser.reconnectionTimeMs(), 1500);
    QCOMPARE(parser.dispatched(), 0);
}

void TestEventStream::sameBytes_giveTheSameEventsAndVerdictInEverySplit_data()
{
    QTest::addColumn<QByteArray>("stream");
    QTest::addColumn<State>("state");
    QTest::newRow("chat") << kChat << State::Complete;
    QTest::newRow("chat, CRLF") << withLineEnds(kChat, "\r\n") << State::Complete;
    QTest::newRow("chat, CR") << withLineEnds(kChat, "\r") << State::Complete;
    QTest::newRow("anthropic") << kAnthropic << State::Complete;
    QTest::newRow("anthropic, CRLF") << withLineEnds(kAnthropic, "\r\n") << State::Complete;
    QTest::newRow("anthropic error, CR") << withLineEnds(kAnthropicError, "\r") << State::Failed;
    QTest::newRow("responses") << kResponses << State::Complete;
    QTest::newRow("responses, CRLF, BOM") << "\xEF\xBB\xBF" + withLineEnds(kResponses, "\r\n") << State::Complete;
    QTest::newRow("anthropic cut") << kAnthropic.first(kAnthropic.size() - 20) << State::Open;
}

void TestEventStream::sameBytes_giveTheSameEventsAndVerdictInEverySplit()
{
    QFETCH(QByteArray, stream);
    QFETCH(State, state);
    const QList<ServerSentEvent> whole = parse(stream);
    QVERIFY(!whole.isEmpty());
    QCOMPARE(judge(stream).state(), state);
    for (qsizetype cut = 0; cut <= stream.size(); ++cut) {
        QCOMPARE(render(parse(stream, {cut})), render(whole));
        QCOMPARE(judge(stream, {cut}).state(), state);
    }
    QList<qsizetype> everyByte;
    for (qsizetype cut = 1; cut < stream.size(); ++cut)
        everyByte.append(cut);
    QCOMPARE(render(parse(stream, everyByte)), render(whole));
    const StreamVerdict byteByByte = judge(stream, everyByte);
    QCOMPARE(byteByByte.state(), state);
    QCOMPARE(byteByByte.error().what(), judge(stream).error().what());
}

void TestEventStream::crlfSplitBetweenCrAndLf_isOneLineEnd()
{
    // "data: a\r" | "\ndata: b\r\n\r\n": the LF opening the second piece ends nothing, so the
    // event has both lines; were it a blank line, "a" would be dispatched alone.
    QCOMPARE(render(parse("data: a\r\ndata: b\r\n\r\n", {8})), QStringList{u"message|a\nb|"_s});
    // An empty piece between the CR and the LF changes nothing.
    QCOMPARE(render(parse("data: a\r\ndata: b\r\n\r\n", {8, 8})), QStringList{u"message|a\nb|"_s});
}

void TestEventStream::verdict_judgesEachApisEnd_data()
{
    QTest::addColumn<QByteArray>("stream");
    QTest::addColumn<State>("state");
    QTest::addColumn<QByteArray>("event");   // with Failed: the event that said it
    QTest::addColumn<QByteArray>("what");
    QTest::addColumn<bool>("rateLimit");

    QTest::newRow("chat: [DONE]") << kChat << State::Complete << QByteArray() << QByteArray() << false;
    QTest::newRow("chat: [DONE] without the space") << "data:[DONE]\n\n"_ba << State::Complete
                                                     << QByteArray() << QByteArray() << false;
    QTest::newRow("chat: cut before [DONE]") << kChat.first(kChat.size() - 14) << State::Open
                                             << QByteArray() << QByteArray() << false;
    QTest::newRow("chat: [DONE] not ended by a blank line") << "data: [DONE]\n"_ba << State::Open
                                                             << QByteArray() << QByteArray() << false;
    QTest::newRow("chat: error chunk")
        << "data: {\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}\n\n"
           "data: {\"error\":{\"message\":\"overloaded\",\"type\":\"server_error\",\"param\":null,\"code\":null}}\n\n"_ba
        << State::Failed << "message"_ba << "server_error"_ba << false;
    QTest::newRow("chat: rate limit chunk")
        << "data: {\"error\":{\"message\":\"slow\",\"type\":\"requests\",\"code\":\"rate_limit_exceeded\"}}\n\n"_ba
        << State::Failed << "message"_ba << "rate_limit_exceeded"_ba << true;
    QTest::newRow("chat: \"error\": null is no error")
        << "data: {\"error\":null,\"choices\":[]}\n\ndata: [DONE]\n\n"_ba << State::Complete
        << QByteArray() << QByteArray() << false;
    QTest::newRow("chat: text quoting [DONE]")
        << "data: {\"choices\":[{\"delta\":{\"content\":\"data: [DONE]\\n\\n\"}}]}\n\n"_ba << State::Open
        << QByteArray() << QByteArray() << false;
    QTest::newRow("chat: text quoting an error")
        << "data: {\"choices\":[{\"delta\":{\"content\":\"{\\\"error\\\":{}}\"}}]}\n\n"_ba << State::Open
        << QByteArray() << QByteArray() << false;
    QTest::newRow("anthropic: message_stop") << kAnthropic << State::Complete << QByteArray() << QByteArray() << false;
    QTest::newRow("anthropic: pings only") << "event: ping\ndata: {\"type\": \"ping\"}\n\n"_ba << State::Open
                                           << QByteArray() << QByteArray() << false;
    QTest::newRow("anthropic: error event") << kAnthropicError << State::Failed << "error"_ba
                                            << "overloaded_error"_ba << false;
    QTest::newRow("anthropic: rate limit error")
        << "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\",\"message\":\"x\"}}\n\n"_ba
        << State::Failed << "error"_ba << "rate_limit_error"_ba << true;
    QTest::newRow("anthropic: text quoting message_stop, cut")
        << "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"delta\":"
           "{\"text\":\"event: message_stop\\ndata: {\\\"type\\\":\\\"message_stop\\\"}\\n\\n\"}}\n\n"_ba
        << State::Open << QByteArray() << QByteArray() << false;
    QTest::newRow("anthropic: events named only in their data")
        << "data: {\"type\":\"message_start\"}\n\ndata: {\"type\":\"message_stop\"}\n\n"_ba << State::Complete
        << QByteArray() << QByteArray() << false;
    QTest::newRow("anthropic: error named only in its data")
        << "data: {\"type\":\"error\",\"error\":{\"type\":\"api_error\",\"message\":\"x\"}}\n\n"_ba
        << State::Failed << "message"_ba << "api_error"_ba << false;
    QTest::newRow("responses: completed") << kResponses << State::Complete << QByteArray() << QByteArray() << false;
    QTest::newRow("responses: failed")
        << "event: response.failed\ndata: {\"type\":\"response.failed\",\"response\":{\"status\":\"failed\","
           "\"error\":{\"code\":\"server_error\",\"message\":\"The model is overloaded.\"}}}\n\n"_ba
        << State::Failed << "response.failed"_ba << "server_error"_ba << false;
    QTest::newRow("responses: incomplete")
        << "event: response.incomplete\ndata: {\"type\":\"response.incomplete\",\"response\":{\"status\":"
           "\"incomplete\",\"incomplete_details\":{\"reason\":\"max_output_tokens\"}}}\n\n"_ba
        << State::Failed << "response.incomplete"_ba << "max_output_tokens"_ba << false;
    QTest::newRow("responses: bare error event")
        << "event: error\ndata: {\"type\":\"error\",\"code\":\"server_is_overloaded\",\"message\":\"busy\","
           "\"param\":null,\"sequence_number\":3}\n\n"_ba
        << State::Failed << "error"_ba << "server_is_overloaded"_ba << false;
    QTest::newRow("responses: rate limit error event")
        << "event: error\ndata: {\"type\":\"error\",\"code\":\"rate_limit_exceeded\",\"message\":\"x\"}\n\n"_ba
        << State::Failed << "error"_ba << "rate_limit_exceeded"_ba << true;
    QTest::newRow("error event without JSON") << "event: error\ndata: oops\n\n"_ba << State::Failed << "error"_ba
                                              << "unknown"_ba << false;
}

void TestEventStream::verdict_judgesEachApisEnd()
{
    QFETCH(QByteArray, stream);
    QFETCH(State, state);
    QFETCH(QByteArray, event);
    QFETCH(QByteArray, what);
    QFETCH(bool, rateLimit);
    const StreamVerdict verdict = judge(stream);
    QCOMPARE(verdict.state(), state);
    if (state != State::Failed)
        return;
    QCOMPARE(verdict.error().event, event);
    QCOMPARE(verdict.error().what(), what);
    QCOMPARE(verdict.error().isRateLimit(), rateLimit);
    QCOMPARE(verdict.error().isIncomplete(), event == "response.incomplete");
}

void TestEventStream::verdict_firstDecidingEventWins()
{
    // An error chunk and then [DONE] is still a failure; a clean end followed by noise stays clean.
    const StreamVerdict failed = judge("data: {\"error\":{\"type\":\"server_error\"}}\n\ndata: [DONE]\n\n");
    QCOMPARE(failed.state(), State::Failed);
    const QByteArray endThenError = kAnthropic + kAnthropicError;
    QCOMPARE(judge(endThenError).state(), State::Complete);
    const StreamVerdict complete = judge(endThenError, {kAnthropic.size()});
    QCOMPARE(complete.state(), State::Complete);
    QCOMPARE(complete.events(), 5);   // the pieces after the end are not even parsed
}

void TestEventStream::verdict_seesTheFirstContentNotARoleOrAPing_data()
{
    QTest::addColumn<QByteArray>("stream");
    QTest::addColumn<bool>("content");
    QTest::newRow("openai role only") << "data: {\"choices\":[{\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}\n\n"_ba
                                      << false;
    QTest::newRow("openai text") << "data: {\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}\n\n"_ba << true;
    QTest::newRow("openai tool call")
        << "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0}]}}]}\n\n"_ba << true;
    QTest::newRow("completions text") << "data: {\"choices\":[{\"text\":\"Hi\"}]}\n\n"_ba << true;
    QTest::newRow("openai usage and done") << "data: {\"choices\":[],\"usage\":{}}\n\ndata: [DONE]\n\n"_ba << false;
    QTest::newRow("anthropic start and ping")
        << "event: message_start\ndata: {\"type\":\"message_start\"}\n\nevent: ping\ndata: {\"type\":\"ping\"}\n\n"
           "event: content_block_start\ndata: {\"type\":\"content_block_start\"}\n\n"_ba << false;
    QTest::newRow("anthropic delta") << "event: content_block_delta\ndata: {\"type\":\"content_block_delta\"}\n\n"_ba << true;
    QTest::newRow("responses created") << "event: response.created\ndata: {\"type\":\"response.created\"}\n\n"_ba << false;
    QTest::newRow("responses text delta")
        << "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\"}\n\n"_ba << true;
    QTest::newRow("responses delta named in data") << "data: {\"type\":\"response.output_text.delta\"}\n\n"_ba << true;
}

void TestEventStream::verdict_seesTheFirstContentNotARoleOrAPing()
{
    QFETCH(QByteArray, stream);
    QFETCH(bool, content);
    QCOMPARE(judge(stream).sawContent(), content);
}

void TestEventStream::verdict_keepsTheFailingEventsData()
{
    const QByteArray error = R"({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}})";
    const StreamVerdict failed = judge(QByteArray("event: message_start\ndata: {}\n\nevent: error\ndata: " + error + "\n\n"));
    QCOMPARE(failed.state(), State::Failed);
    QCOMPARE(failed.errorData(), error);
    QVERIFY(judge(kAnthropic).errorData().isEmpty());
}

QTEST_GUILESS_MAIN(TestEventStream)
#include "tst_eventstream.moc"
