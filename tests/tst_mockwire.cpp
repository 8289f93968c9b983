// The mock provider's routes beyond chat completions: the Responses API with its id routes (and a
// turn as Codex CLI sends it), Anthropic's count_tokens, models and message batches, and the
// pass-through targets, whose answers describe the exact bytes they received. Asserted on what the
// raw client saw, so the proxy's tests can build on these cases knowing what the far end sends.

#include <algorithm>

#include <QCryptographicHash>
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
const HeaderList kAnthropic{{"Content-Type", "application/json"}, {"anthropic-version", "2023-06-01"}};

QJsonObject objectOf(const QByteArray &bytes)
{
    return QJsonDocument::fromJson(bytes).object();
}

QByteArray jsonOf(const QJsonObject &object)
{
    return QJsonDocument(object).toJson(QJsonDocument::Compact);
}

QByteArray sha256Hex(const QByteArray &bytes)
{
    return QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex();
}

// A multipart/form-data body as the SDKs send uploads: text fields, then one file.
QByteArray multipartBody(const QByteArray &boundary, const QList<std::pair<QByteArray, QByteArray>> &fields,
                         const QByteArray &filename, const QByteArray &fileType, const QByteArray &content)
{
    QByteArray body;
    for (const auto &[name, value] : fields)
        body += "--" + boundary + "\r\nContent-Disposition: form-data; name=\"" + name + "\"\r\n\r\n" + value + "\r\n";
    body += "--" + boundary + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"" + filename
            + "\"\r\nContent-Type: " + fileType + "\r\n\r\n" + content + "\r\n--" + boundary + "--\r\n";
    return body;
}

// Bytes a text-minded pass-through would damage: every byte value, CRLFs, NULs, dashes.
QByteArray binaryContent()
{
    QByteArray content;
    for (int i = 0; i < 4096; ++i)
        content += char(i % 256);
    return content + "\r\n--not-the-boundary\r\n\0\0\r\n"_ba;
}

} // namespace

class tst_MockWire final : public MockTest
{
    Q_OBJECT

private slots:
    void responses_json_isAResponseObjectWithUsage();
    void responses_input_echoesLastUserText_data();
    void responses_input_echoesLastUserText();
    void responses_stream_namedEventsInOrderWithSequenceNumbers();
    void responses_createdIds_areFoundUntilDeleted();
    void responses_cancel_onlyForBackgroundResponses();
    void responses_unknownOrUnstoredId_is404InOpenAIShape_data();
    void responses_unknownOrUnstoredId_is404InOpenAIShape();
    void responses_codexStyleStream_parsesAsCodexExpects();

    void countTokens_isDeterministicAndMatchesMessagesUsage();
    void models_answerInTheShapeOfTheCallersApi_data();
    void models_answerInTheShapeOfTheCallersApi();
    void messageBatches_createListAndGetInAnthropicShape();

    void upload_multipart_describesTheExactBytes_data();
    void upload_multipart_describesTheExactBytes();
    void upload_anyBody_describesItsBytes();
    void simpleRoutes_answerPlausibleJson_data();
    void simpleRoutes_answerPlausibleJson();
    void unknownRoutes_stay404_data();
    void unknownRoutes_stay404();
};

void tst_MockWire::responses_json_isAResponseObjectWithUsage()
{
    const LoopbackResponse response = post(kResponses, responsesBody(u"hello there"_s));
    QCOMPARE(response.status, 200);
    QCOMPARE(response.header("Content-Type"), "application/json");
    const QJsonObject answer = objectOf(response.body);
    QCOMPARE(answer[u"object"_s].toString(), u"response"_s);
    QVERIFY(answer[u"id"_s].toString().startsWith(u"resp_"_s));
    QCOMPARE(answer[u"status"_s].toString(), u"completed"_s);
    QCOMPARE(answer[u"model"_s].toString(), u"gpt-test"_s);
    const QJsonObject item = answer[u"output"_s][0].toObject();
    QCOMPARE(item[u"type"_s].toString(), u"message"_s);
    QCOMPARE(item[u"role"_s].toString(), u"assistant"_s);
    QCOMPARE(item[u"content"_s][0][u"type"_s].toString(), u"output_text"_s);
    QCOMPARE(item[u"content"_s][0][u"text"_s].toString(), u"echo: hello there"_s);
    const QJsonObject usage = answer[u"usage"_s].toObject();
    QCOMPARE(usage[u"input_tokens"_s].toInt(), 2);
    QCOMPARE(usage[u"output_tokens"_s].toInt(), 3);
    QCOMPARE(usage[u"total_tokens"_s].toInt(), 5);
    QVERIFY(usage[u"input_tokens_details"_s][u"cached_tokens"_s].isDouble());
    QVERIFY(usage[u"output_tokens_details"_s][u"reasoning_tokens"_s].isDouble());
    // A fresh call has a fresh id.
    QVERIFY(objectOf(post(kResponses, responsesBody(u"hello there"_s)).body)[u"id"_s] != answer[u"id"_s]);
}

void tst_MockWire::responses_input_echoesLastUserText_data()
{
    const auto message = [](const QString &role, const QJsonValue &content) {
        return QJsonObject{{u"type"_s, u"message"_s}, {u"role"_s, role}, {u"content"_s, content}};
    };
    const auto parts = [](const QString &text) {
        return QJsonArray{QJsonObject{{u"type"_s, u"input_text"_s}, {u"text"_s, text}}};
    };
    QTest::addColumn<QJsonValue>("input");
    QTest::addColumn<QString>("reply");
    QTest::newRow("string") << QJsonValue(u"just a string"_s) << u"echo: just a string"_s;
    QTest::newRow("messages with string content")
        << QJsonValue(QJsonArray{message(u"user"_s, u"first"_s), message(u"assistant"_s, u"answer"_s),
                                 message(u"user"_s, u"second"_s)})
        << u"echo: second"_s;
    // The way Codex CLI sends a turn: developer instructions, environment context, then the prompt.
    QTest::newRow("input_text parts")
        << QJsonValue(QJsonArray{message(u"developer"_s, parts(u"<permissions>"_s)),
                                 message(u"user"_s, parts(u"<environment_context>"_s)),
                                 message(u"user"_s, parts(u"fix the bug"_s))})
        << u"echo: fix the bug"_s;
}

void tst_MockWire::responses_input_echoesLastUserText()
{
    QFETCH(QJsonValue, input);
    QFETCH(QString, reply);
    const QJsonObject answer = objectOf(post(kResponses, responsesBody(input)).body);
    QCOMPARE(answer[u"output"_s][0][u"content"_s][0][u"text"_s].toString(), reply);
}

void tst_MockWire::responses_stream_namedEventsInOrderWithSequenceNumbers()
{
    const LoopbackResponse response = post(kResponses, responsesBody(u"one two three"_s, true));
    QCOMPARE(response.status, 200);
    QVERIFY(response.complete && response.chunked);
    QCOMPARE(response.header("Content-Type"), "text/event-stream");
    QVERIFY(response.header("Content-Length").isEmpty());
    QVERIFY(!response.body.contains("[DONE]"));

    const QList<SseEvent> events = sseEvents(response);
    for (qsizetype i = 0; i < events.size(); ++i) {
        const QByteArray &chunk = response.chunks[i];
        QVERIFY2(chunk.startsWith(QByteArray("event: " + events[i].name + "\ndata: {")) && chunk.endsWith("}\n\n"),
                 chunk.constData());
        QCOMPARE(events[i].json[u"type"_s].toString(), QString::fromLatin1(events[i].name));
        QCOMPARE(events[i].json[u"sequence_number"_s].toInt(-1), int(i));
    }
    const QList<QByteArray> expected{
        "response.created", "response.in_progress", "response.output_item.added",
        "response.content_part.added", "response.output_text.delta", "response.output_text.done",
        "response.content_part.done", "response.output_item.done", "response.completed"};
    QCOMPARE(eventNames(events), expected);
    QVERIFY(events.size() >= expected.size() + 2);   // at least three deltas

    QCOMPARE(streamedText(events), u"echo: one two three"_s);
    QCOMPARE(events[events.size() - 4].json[u"text"_s].toString(), u"echo: one two three"_s);
    const QJsonObject created = events.first().json[u"response"_s].toObject();
    const QJsonObject completed = events.constLast().json[u"response"_s].toObject();
    QCOMPARE(created[u"status"_s].toString(), u"in_progress"_s);
    QCOMPARE(completed[u"status"_s].toString(), u"completed"_s);
    QCOMPARE(completed[u"id"_s], created[u"id"_s]);
    QCOMPARE(completed[u"output"_s][0][u"content"_s][0][u"text"_s].toString(), u"echo: one two three"_s);
    QCOMPARE(completed[u"usage"_s][u"input_tokens"_s].toInt(), 3);
    QCOMPARE(completed[u"usage"_s][u"output_tokens"_s].toInt(), 4);
    QCOMPARE(completed[u"usage"_s][u"total_tokens"_s].toInt(), 7);
}

void tst_MockWire::responses_createdIds_areFoundUntilDeleted()
{
    const QJsonArray input{QJsonObject{{u"role"_s, u"user"_s}, {u"content"_s, u"older"_s}},
                           QJsonObject{{u"role"_s, u"user"_s}, {u"content"_s, u"newer"_s}}};
    const QJsonObject created = objectOf(post(kResponses, responsesBody(input)).body);
    const QByteArray id = created[u"id"_s].toString().toLatin1();
    const QByteArray path = "/v1/responses/" + id;

    const LoopbackResponse found = get(path);
    QCOMPARE(found.status, 200);
    QCOMPARE(objectOf(found.body), created);

    const QJsonObject items = objectOf(get(path + "/input_items").body);
    QCOMPARE(items[u"object"_s].toString(), u"list"_s);
    const QJsonArray data = items[u"data"_s].toArray();
    QCOMPARE(data.size(), 2);
    QCOMPARE(data[0][u"content"_s][0][u"text"_s].toString(), u"newer"_s);   // newest first
    QCOMPARE(data[0][u"content"_s][0][u"type"_s].toString(), u"input_text"_s);
    QCOMPARE(items[u"first_id"_s], data[0][u"id"_s]);
    QCOMPARE(items[u"last_id"_s], data[1][u"id"_s]);
    QCOMPARE(items[u"has_more"_s].toBool(true), false);

    const LoopbackResponse deleted = fetch(port(), "DELETE", path);
    QCOMPARE(deleted.status, 200);
    QCOMPARE(objectOf(deleted.body), (QJsonObject{{u"id"_s, created[u"id"_s]}, {u"object"_s, u"response"_s},
                                                  {u"deleted"_s, true}}));
    QCOMPARE(get(path).status, 404);

    // A streamed response is kept too, under the id its events carried.
    const QList<SseEvent> events = sseEvents(post(kResponses, responsesBody(u"streamed"_s, true)));
    const QByteArray streamedId = events.first().json[u"response"_s][u"id"_s].toString().toLatin1();
    const QJsonObject streamed = objectOf(get("/v1/responses/" + streamedId).body);
    QCOMPARE(streamed[u"status"_s].toString(), u"completed"_s);
    QCOMPARE(streamed[u"output"_s][0][u"content"_s][0][u"text"_s].toString(), u"echo: streamed"_s);
}

void tst_MockWire::responses_cancel_onlyForBackgroundResponses()
{
    const QByteArray plain = objectOf(post(kResponses, responsesBody(u"x"_s)).body)[u"id"_s].toString().toLatin1();
    const LoopbackResponse refused = post("/v1/responses/" + plain + "/cancel", {});
    QCOMPARE(refused.status, 400);
    QCOMPARE(errorTypeOf(refused.body, ApiStyle::OpenAI), u"invalid_request_error"_s);

    const QJsonObject background{{u"background"_s, true}};
    const QJsonObject made = objectOf(post(kResponses, responsesBody(u"x"_s, false, background)).body);
    QCOMPARE(made[u"background"_s].toBool(), true);
    const LoopbackResponse cancelled = post("/v1/responses/" + made[u"id"_s].toString().toLatin1() + "/cancel", {});
    QCOMPARE(cancelled.status, 200);
    QCOMPARE(objectOf(cancelled.body)[u"id"_s], made[u"id"_s]);
}

void tst_MockWire::responses_unknownOrUnstoredId_is404InOpenAIShape_data()
{
    QTest::addColumn<QByteArray>("method");
    QTest::addColumn<QByteArray>("suffix");
    QTest::addColumn<bool>("storeFalse");   // the id was made with store: false
    QTest::newRow("get") << "GET"_ba << ""_ba << false;
    QTest::newRow("delete") << "DELETE"_ba << ""_ba << false;
    QTest::newRow("input_items") << "GET"_ba << "/input_items"_ba << false;
    QTest::newRow("cancel") << "POST"_ba << "/cancel"_ba << false;
    QTest::newRow("get, store false") << "GET"_ba << ""_ba << true;
}

void tst_MockWire::responses_unknownOrUnstoredId_is404InOpenAIShape()
{
    QFETCH(QByteArray, method);
    QFETCH(QByteArray, suffix);
    QFETCH(bool, storeFalse);
    QByteArray id = "resp_never_made";
    if (storeFalse) {
        const QByteArray body = responsesBody(u"x"_s, false, {{u"store"_s, false}});
        id = objectOf(post(kResponses, body).body)[u"id"_s].toString().toLatin1();
    }
    const LoopbackResponse response = fetch(port(), method, "/v1/responses/" + id + suffix);
    QCOMPARE(response.status, 404);
    QCOMPARE(errorTypeOf(response.body, ApiStyle::OpenAI), u"invalid_request_error"_s);
    QVERIFY(objectOf(response.body)[u"error"_s][u"message"_s].toString().contains(QString::fromLatin1(id)));
}

void tst_MockWire::responses_codexStyleStream_parsesAsCodexExpects()
{
    // A turn as Codex CLI 0.171 posts it (wire_api = "responses"): always streamed, store false.
    const QJsonArray input{
        QJsonObject{{u"type"_s, u"message"_s}, {u"role"_s, u"user"_s},
                    {u"content"_s, QJsonArray{QJsonObject{{u"type"_s, u"input_text"_s},
                                                          {u"text"_s, u"say hi"_s}}}}}};
    const QJsonObject settings{
        {u"instructions"_s, u"You are Codex."_s}, {u"tools"_s, QJsonArray{}}, {u"tool_choice"_s, u"auto"_s},
        {u"parallel_tool_calls"_s, false}, {u"store"_s, false},
        {u"reasoning"_s, QJsonObject{{u"effort"_s, u"medium"_s}}},
        {u"include"_s, QJsonArray{u"reasoning.encrypted_content"_s}}, {u"prompt_cache_key"_s, u"abc"_s}};
    const HeaderList headers{{"Content-Type", "application/json"}, {"Accept", "text/event-stream"},
                             {"Authorization", "Bearer sk-test"}, {"originator", "codex_exec"},
                             {"session_id", "0199-session"}};
    const LoopbackResponse response = post(kResponses, responsesBody(input, true, settings), headers);
    QCOMPARE(response.status, 200);
    QVERIFY(response.complete);

    // Codex reads each event's data as JSON with a string `type`, takes the message from
    // response.output_item.done and needs response.completed with an id and integer usage.
    const QList<SseEvent> events = sseEvents(response);
    for (const SseEvent &event : events)
        QVERIFY2(event.json[u"type"_s].isString(), event.data.constData());
    QVERIFY(events.first().json[u"response"_s].isObject());
    const auto itemDone = std::find_if(events.cbegin(), events.cend(),
                                       [](const SseEvent &e) { return e.name == "response.output_item.done"; });
    QVERIFY(itemDone != events.cend());
    const QJsonObject item = itemDone->json[u"item"_s].toObject();
    QCOMPARE(item[u"type"_s].toString(), u"message"_s);
    QCOMPARE(item[u"role"_s].toString(), u"assistant"_s);
    QCOMPARE(item[u"content"_s][0][u"type"_s].toString(), u"output_text"_s);
    QCOMPARE(item[u"content"_s][0][u"text"_s].toString(), u"echo: say hi"_s);
    QCOMPARE(events.constLast().name, "response.completed");
    const QJsonObject completed = events.constLast().json[u"response"_s].toObject();
    QVERIFY(completed[u"id"_s].isString());
    QCOMPARE(completed[u"store"_s].toBool(true), false);
    QCOMPARE(completed[u"instructions"_s].toString(), u"You are Codex."_s);
    const QJsonObject usage = completed[u"usage"_s].toObject();
    for (const QString &field : {u"input_tokens"_s, u"output_tokens"_s, u"total_tokens"_s})
        QVERIFY2(usage[field].isDouble(), qPrintable(field));
    QVERIFY(usage[u"input_tokens_details"_s][u"cached_tokens"_s].isDouble());
    QVERIFY(usage[u"output_tokens_details"_s][u"reasoning_tokens"_s].isDouble());
    // store: false is not kept, as the real API does not keep it.
    QCOMPARE(get("/v1/responses/" + completed[u"id"_s].toString().toLatin1()).status, 404);
}

void tst_MockWire::countTokens_isDeterministicAndMatchesMessagesUsage()
{
    const QByteArray body = messagesBody(u"count these four words"_s);
    const LoopbackResponse counted = post("/v1/messages/count_tokens", body, kAnthropic);
    QCOMPARE(counted.status, 200);
    const QJsonObject answer = objectOf(counted.body);
    QCOMPARE(answer.keys(), QStringList{u"input_tokens"_s});
    const int tokens = answer[u"input_tokens"_s].toInt();
    QCOMPARE(tokens, 4);
    QCOMPARE(objectOf(post("/v1/messages/count_tokens", body, kAnthropic).body), answer);
    QCOMPARE(objectOf(post(kMessages, body, kAnthropic).body)[u"usage"_s][u"input_tokens"_s].toInt(), tokens);

    const LoopbackResponse bad = post("/v1/messages/count_tokens", "{oops", kAnthropic);
    QCOMPARE(bad.status, 400);
    QCOMPARE(errorTypeOf(bad.body, ApiStyle::Anthropic), u"invalid_request_error"_s);
}

void tst_MockWire::models_answerInTheShapeOfTheCallersApi_data()
{
    QTest::addColumn<QByteArray>("path");
    QTest::addColumn<bool>("anthropic");
    QTest::newRow("openai list") << "/v1/models"_ba << false;
    QTest::newRow("anthropic list") << "/v1/models"_ba << true;
    QTest::newRow("openai by id") << "/v1/models/gpt-x"_ba << false;
    QTest::newRow("anthropic by id") << "/v1/models/claude-x"_ba << true;
}

void tst_MockWire::models_answerInTheShapeOfTheCallersApi()
{
    QFETCH(QByteArray, path);
    QFETCH(bool, anthropic);
    const HeaderList headers = anthropic ? HeaderList{{"x-api-key", "sk-ant"}, {"anthropic-version", "2023-06-01"}}
                                         : HeaderList{{"Authorization", "Bearer sk"}};
    const LoopbackResponse response = get(path, headers);
    QCOMPARE(response.status, 200);
    const QJsonObject answer = objectOf(response.body);
    const bool list = path == "/v1/models";
    const QJsonObject model = list ? answer[u"data"_s][0].toObject() : answer;
    QVERIFY(!model[u"id"_s].toString().isEmpty());
    if (!list)
        QCOMPARE(model[u"id"_s].toString(), QString::fromLatin1(path.mid(11)));
    if (anthropic) {
        QCOMPARE(model[u"type"_s].toString(), u"model"_s);
        QVERIFY(model[u"display_name"_s].isString() && model[u"created_at"_s].isString());
        QVERIFY(!model.contains(u"object"_s));
        if (list)
            QVERIFY(answer[u"has_more"_s].isBool() && answer[u"first_id"_s].isString());
    } else {
        QCOMPARE(model[u"object"_s].toString(), u"model"_s);
        QVERIFY(model[u"owned_by"_s].isString());
        if (list)
            QCOMPARE(answer[u"object"_s].toString(), u"list"_s);
    }
}

void tst_MockWire::messageBatches_createListAndGetInAnthropicShape()
{
    const QJsonObject params = objectOf(messagesBody(u"in a batch"_s));
    const QJsonArray requests{QJsonObject{{u"custom_id"_s, u"a"_s}, {u"params"_s, params}},
                              QJsonObject{{u"custom_id"_s, u"b"_s}, {u"params"_s, params}}};
    const LoopbackResponse created = post("/v1/messages/batches", jsonOf({{u"requests"_s, requests}}), kAnthropic);
    QCOMPARE(created.status, 200);
    const QJsonObject batch = objectOf(created.body);
    QCOMPARE(batch[u"type"_s].toString(), u"message_batch"_s);
    QVERIFY(batch[u"id"_s].toString().startsWith(u"msgbatch_"_s));
    QCOMPARE(batch[u"processing_status"_s].toString(), u"in_progress"_s);
    QCOMPARE(batch[u"request_counts"_s][u"processing"_s].toInt(), 2);

    const QJsonObject list = objectOf(get("/v1/messages/batches", kAnthropic).body);
    QVERIFY(list[u"data"_s].isArray() && list[u"has_more"_s].isBool());
    const QJsonObject one = objectOf(get("/v1/messages/batches/" + batch[u"id"_s].toString().toLatin1()).body);
    QCOMPARE(one[u"id"_s], batch[u"id"_s]);
    QCOMPARE(one[u"type"_s].toString(), u"message_batch"_s);
}

void tst_MockWire::upload_multipart_describesTheExactBytes_data()
{
    QTest::addColumn<QByteArray>("path");
    QTest::addColumn<QByteArray>("field");   // the text field the route's SDK call sends
    QTest::addColumn<QByteArray>("fileType");
    QTest::newRow("files") << "/v1/files"_ba << "purpose"_ba << "application/jsonl"_ba;
    QTest::newRow("image edits") << "/v1/images/edits"_ba << "prompt"_ba << "image/png"_ba;
    QTest::newRow("transcriptions") << "/v1/audio/transcriptions"_ba << "model"_ba << "audio/mpeg"_ba;
}

void tst_MockWire::upload_multipart_describesTheExactBytes()
{
    QFETCH(QByteArray, path);
    QFETCH(QByteArray, field);
    QFETCH(QByteArray, fileType);
    const QByteArray boundary = "----breakwater7MA4YWxkTrZu0gW";
    const QByteArray content = binaryContent();
    const QByteArray body = multipartBody(boundary, {{field, "a value"}}, "upload.bin", fileType, content);
    const QByteArray contentType = "multipart/form-data; boundary=" + boundary;
    const LoopbackResponse response = post(path, body, {{"Content-Type", contentType}});
    QCOMPARE(response.status, 200);
    const QJsonObject answer = objectOf(response.body);
    const QJsonObject received = answer[u"received"_s].toObject();
    QCOMPARE(received[u"bytes"_s].toInteger(), qint64(body.size()));
    QCOMPARE(received[u"content_type"_s].toString().toLatin1(), contentType);
    QCOMPARE(received[u"sha256"_s].toString().toLatin1(), sha256Hex(body));
    QCOMPARE(received[u"fields"_s][QString::fromLatin1(field)].toString(), u"a value"_s);
    const QJsonObject file = received[u"files"_s][0].toObject();
    QCOMPARE(file[u"name"_s].toString(), u"file"_s);
    QCOMPARE(file[u"filename"_s].toString(), u"upload.bin"_s);
    QCOMPARE(file[u"content_type"_s].toString().toLatin1(), fileType);
    QCOMPARE(file[u"bytes"_s].toInteger(), qint64(content.size()));
    QCOMPARE(file[u"sha256"_s].toString().toLatin1(), sha256Hex(content));

    // Each answers in its own API's shape too.
    if (path == "/v1/files") {
        QCOMPARE(answer[u"object"_s].toString(), u"file"_s);
        QCOMPARE(answer[u"purpose"_s].toString(), u"a value"_s);
        QCOMPARE(answer[u"bytes"_s].toInteger(), qint64(content.size()));
    } else if (path == "/v1/images/edits") {
        QVERIFY(!answer[u"data"_s][0][u"b64_json"_s].toString().isEmpty());
    } else {
        QVERIFY(answer[u"text"_s].toString().contains(u"upload.bin"_s));
    }
}

void tst_MockWire::upload_anyBody_describesItsBytes()
{
    const QByteArray audio = binaryContent().repeated(64);
    const LoopbackResponse response = post("/v1/audio/transcriptions", audio, {{"Content-Type", "audio/wav"}});
    QCOMPARE(response.status, 200);
    const QJsonObject received = objectOf(response.body)[u"received"_s].toObject();
    QCOMPARE(received[u"bytes"_s].toInteger(), qint64(audio.size()));
    QCOMPARE(received[u"content_type"_s].toString(), u"audio/wav"_s);
    QCOMPARE(received[u"sha256"_s].toString().toLatin1(), sha256Hex(audio));
    QVERIFY(!received.contains(u"files"_s));

    const QJsonObject empty = objectOf(post("/v1/files", {}, {}).body)[u"received"_s].toObject();
    QCOMPARE(empty[u"bytes"_s].toInteger(), qint64(0));
    QCOMPARE(empty[u"sha256"_s].toString().toLatin1(), sha256Hex({}));
}

void tst_MockWire::simpleRoutes_answerPlausibleJson_data()
{
    QTest::addColumn<QByteArray>("method");
    QTest::addColumn<QByteArray>("path");
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<QString>("field");      // a field the answer has
    QTest::addColumn<QJsonValue>("value");   // its value (Undefined: only that it is there)
    QTest::newRow("moderations")
        << "POST"_ba << "/v1/moderations"_ba << jsonOf({{u"input"_s, QJsonArray{u"a"_s, u"b"_s}}})
        << u"results"_s << QJsonValue(QJsonValue::Undefined);
    QTest::newRow("image generations")
        << "POST"_ba << "/v1/images/generations"_ba << jsonOf({{u"prompt"_s, u"a cat"_s}, {u"n"_s, 2}})
        << u"data"_s << QJsonValue(QJsonValue::Undefined);
    QTest::newRow("batch create")
        << "POST"_ba << "/v1/batches"_ba
        << jsonOf({{u"input_file_id"_s, u"file-1"_s}, {u"endpoint"_s, u"/v1/chat/completions"_s},
                   {u"completion_window"_s, u"24h"_s}})
        << u"object"_s << QJsonValue(u"batch"_s);
    QTest::newRow("batch list") << "GET"_ba << "/v1/batches"_ba << QByteArray() << u"object"_s << QJsonValue(u"list"_s);
    QTest::newRow("batch get") << "GET"_ba << "/v1/batches/batch_42"_ba << QByteArray() << u"id"_s
                               << QJsonValue(u"batch_42"_s);
}

void tst_MockWire::simpleRoutes_answerPlausibleJson()
{
    QFETCH(QByteArray, method);
    QFETCH(QByteArray, path);
    QFETCH(QByteArray, body);
    QFETCH(QString, field);
    QFETCH(QJsonValue, value);
    const LoopbackResponse response = fetch(port(), method, path, kJsonContentType, body);
    QCOMPARE(response.status, 200);
    QCOMPARE(response.header("Content-Type"), "application/json");
    const QJsonObject answer = objectOf(response.body);
    QVERIFY2(answer.contains(field), response.body.constData());
    if (!value.isUndefined())
        QCOMPARE(answer[field], value);
    if (field == u"results" || field == u"data")
        QCOMPARE(answer[field].toArray().size(), 2);   // one per input, or n images
}

void tst_MockWire::unknownRoutes_stay404_data()
{
    QTest::addColumn<QByteArray>("method");
    QTest::addColumn<QByteArray>("path");
    QTest::newRow("unknown under v1") << "POST"_ba << "/v1/nothing-here"_ba;
    QTest::newRow("outside v1") << "POST"_ba << "/v2/responses"_ba;
    QTest::newRow("under a prefix") << "POST"_ba << "/no-such-prefix/v1/responses"_ba;
    QTest::newRow("wrong method") << "GET"_ba << "/v1/responses"_ba;
    QTest::newRow("empty id") << "GET"_ba << "/v1/responses/"_ba;
    QTest::newRow("put on an id") << "PUT"_ba << "/v1/responses/resp_1"_ba;
    QTest::newRow("get files") << "GET"_ba << "/v1/files/file-1/content"_ba;
}

void tst_MockWire::unknownRoutes_stay404()
{
    QFETCH(QByteArray, method);
    QFETCH(QByteArray, path);
    const LoopbackResponse response = fetch(port(), method, path, kJsonContentType, "{}");
    QCOMPARE(response.status, 404);
    QCOMPARE(errorTypeOf(response.body, ApiStyle::OpenAI), u"invalid_request_error"_s);
}

QTEST_GUILESS_MAIN(tst_MockWire)
#include "tst_mockwire.moc"
