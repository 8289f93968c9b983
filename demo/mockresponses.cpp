#include "mockresponses.h"

#include <QDateTime>

#include "mockrequest.h"
#include "mockstreams.h"

using namespace Qt::StringLiterals;

namespace mockanswers {
namespace {

QJsonObject usageOf(int input, int output)
{
    return {{u"input_tokens"_s, input},
            {u"input_tokens_details"_s, QJsonObject{{u"cached_tokens"_s, 0}}},
            {u"output_tokens"_s, output},
            {u"output_tokens_details"_s, QJsonObject{{u"reasoning_tokens"_s, 0}}},
            {u"total_tokens"_s, input + output}};
}

QJsonObject textPart(const QString &text)
{
    return {{u"type"_s, u"output_text"_s}, {u"text"_s, text}, {u"annotations"_s, QJsonArray{}},
            {u"logprobs"_s, QJsonArray{}}};
}

QJsonObject messageItem(const QString &id, const QString &status, const QJsonArray &content)
{
    return {{u"id"_s, id}, {u"type"_s, u"message"_s}, {u"status"_s, status},
            {u"role"_s, u"assistant"_s}, {u"content"_s, content}};
}

// The response as it is while it runs (status in_progress, no output, no usage), echoing the
// request's settings the way the API does.
QJsonObject startedResponse(const Request &request, const QString &id)
{
    const QJsonObject &json = request.json;
    const QJsonValue metadata = json[u"metadata"_s];
    const QJsonValue toolChoice = json[u"tool_choice"_s];
    return {{u"id"_s, id}, {u"object"_s, u"response"_s},
            {u"created_at"_s, QDateTime::currentSecsSinceEpoch()}, {u"status"_s, u"in_progress"_s},
            {u"background"_s, json[u"background"_s].toBool()}, {u"error"_s, QJsonValue::Null},
            {u"incomplete_details"_s, QJsonValue::Null},
            {u"instructions"_s, orNull(json[u"instructions"_s])},
            {u"max_output_tokens"_s, orNull(json[u"max_output_tokens"_s])},
            {u"metadata"_s, metadata.isObject() ? metadata : QJsonValue(QJsonObject{})},
            {u"model"_s, request.model}, {u"output"_s, QJsonArray{}},
            {u"parallel_tool_calls"_s, json[u"parallel_tool_calls"_s].toBool(true)},
            {u"previous_response_id"_s, orNull(json[u"previous_response_id"_s])},
            {u"store"_s, json[u"store"_s].toBool(true)},
            {u"temperature"_s, json[u"temperature"_s].toDouble(1.0)},
            {u"text"_s, QJsonObject{{u"format"_s, QJsonObject{{u"type"_s, u"text"_s}}}}},
            {u"tool_choice"_s, toolChoice.isUndefined() ? QJsonValue(u"auto"_s) : toolChoice},
            {u"tools"_s, json[u"tools"_s].toArray()}, {u"top_p"_s, json[u"top_p"_s].toDouble(1.0)},
            {u"truncation"_s, u"disabled"_s}, {u"usage"_s, QJsonValue::Null},
            {u"user"_s, QJsonValue::Null}};
}

// Completed with the whole reply, or incomplete (max_output_tokens) with the part that was written.
QJsonObject finishedResponse(QJsonObject response, const QString &itemId, const QString &text,
                             bool incomplete, int inputTokens)
{
    const QString status = incomplete ? u"incomplete"_s : u"completed"_s;
    response[u"status"_s] = status;
    if (incomplete)
        response[u"incomplete_details"_s] = QJsonObject{{u"reason"_s, u"max_output_tokens"_s}};
    response[u"output"_s] = QJsonArray{messageItem(itemId, status, {textPart(text)})};
    response[u"usage"_s] = usageOf(inputTokens, tokenCount(text));
    return response;
}

QJsonObject failedResponse(QJsonObject response)
{
    response[u"status"_s] = u"failed"_s;
    response[u"error"_s] = QJsonObject{{u"code"_s, u"server_error"_s},
                                       {u"message"_s, overloadedError().message.english()}};
    return response;
}

// The input as the API keeps it: a list of items, each a message with content parts and an id.
QJsonArray inputItemsOf(const QJsonObject &json, quint64 sequence)
{
    const QJsonValue input = json[u"input"_s];
    const QJsonArray given = input.isString()
        ? QJsonArray{QJsonObject{{u"role"_s, u"user"_s}, {u"content"_s, input}}}
        : input.toArray();
    QJsonArray items;
    for (qsizetype i = 0; i < given.size(); ++i) {
        QJsonObject item = given[i].toObject();
        if (item.isEmpty())
            continue;
        if (!item.contains(u"type"_s))
            item[u"type"_s] = u"message"_s;
        if (const QJsonValue content = item[u"content"_s]; content.isString())
            item[u"content"_s] = QJsonArray{QJsonObject{{u"type"_s, u"input_text"_s}, {u"text"_s, content}}};
        if (!item.contains(u"id"_s))
            item[u"id"_s] = QString(mockId(u"msg_"_s, sequence) + u"_in%1"_s.arg(i));
        items.append(item);
    }
    return items;
}

// The stream: every event named, every data object with its type and a sequence_number from 0.
Answer responsesStream(const QJsonObject &started, const QJsonObject &finished, const QString &itemId,
                       const QList<QString> &pieces, Variant variant)
{
    Answer answer{200, streamHeaders(), {}, {}};
    int sequenceNumber = 0;
    const auto add = [&](const QByteArray &type, QJsonObject data) {
        data[u"type"_s] = QString::fromLatin1(type);
        data[u"sequence_number"_s] = sequenceNumber++;
        answer.events += namedEvent(type, data);
    };
    // Events about the text carry where it is: the one message's one output_text part.
    const auto located = [&itemId](const QString &key, const QJsonValue &value) {
        return QJsonObject{{u"item_id"_s, itemId}, {u"output_index"_s, 0}, {u"content_index"_s, 0},
                           {key, value}};
    };

    add("response.created", {{u"response"_s, started}});
    add("response.in_progress", {{u"response"_s, started}});
    add("response.output_item.added",
        {{u"output_index"_s, 0}, {u"item"_s, messageItem(itemId, u"in_progress"_s, {})}});
    add("response.content_part.added", located(u"part"_s, textPart({})));
    for (const QString &piece : pieces) {
        QJsonObject delta = located(u"delta"_s, piece);
        delta[u"logprobs"_s] = QJsonArray{};
        add("response.output_text.delta", delta);
        if (variant == Variant::ErrorEvent) {
            add("response.failed", {{u"response"_s, failedResponse(started)}});
            return answer;
        }
        if (variant == Variant::BareErrorEvent) {
            add("error", {{u"code"_s, u"server_is_overloaded"_s}, {u"param"_s, QJsonValue::Null},
                          {u"message"_s, overloadedError().message.english()}});
            return answer;
        }
    }
    const QJsonObject item = finished[u"output"_s][0].toObject();
    const QString text = item[u"content"_s][0][u"text"_s].toString();
    QJsonObject textDone = located(u"text"_s, text);
    textDone[u"logprobs"_s] = QJsonArray{};
    add("response.output_text.done", textDone);
    add("response.content_part.done", located(u"part"_s, textPart(text)));
    add("response.output_item.done", {{u"output_index"_s, 0}, {u"item"_s, item}});
    const bool incomplete = finished[u"status"_s].toString() == u"incomplete";
    add(incomplete ? "response.incomplete" : "response.completed", {{u"response"_s, finished}});
    return answer;
}

} // namespace

void ResponseStore::remember(const QJsonObject &response, const QJsonArray &inputItems)
{
    const QString id = response[u"id"_s].toString();
    if (!m_entries.contains(id))
        m_order.append(id);
    m_entries.insert(id, {response, inputItems});
    while (m_order.size() > kCapacity)
        m_entries.remove(m_order.takeFirst());
}

const ResponseStore::Entry *ResponseStore::find(const QString &id) const
{
    const auto found = m_entries.constFind(id);
    return found == m_entries.cend() ? nullptr : &found.value();
}

bool ResponseStore::forget(const QString &id)
{
    if (!m_entries.remove(id))
        return false;
    m_order.removeOne(id);
    return true;
}

Answer responsesAnswer(const Request &request, quint64 sequence, Variant variant, ResponseStore *store)
{
    const QString id = mockId(u"resp_"_s, sequence);
    const QString itemId = mockId(u"msg_"_s, sequence);
    const QJsonObject started = startedResponse(request, id);
    const bool incomplete = variant == Variant::Incomplete;
    QList<QString> pieces = streamPieces(request.reply);
    if (incomplete)
        pieces = pieces.first(qMax<qsizetype>(1, pieces.size() / 2));
    const QJsonObject finished = finishedResponse(started, itemId, pieces.join(QString()), incomplete,
                                                  request.promptTokens);

    // Only a stream can fail after it began; a JSON request gets the finished response.
    const bool failed = request.stream && (variant == Variant::ErrorEvent || variant == Variant::BareErrorEvent);
    if (store && request.json[u"store"_s].toBool(true))
        store->remember(failed ? failedResponse(started) : finished, inputItemsOf(request.json, sequence));
    if (request.stream)
        return responsesStream(started, finished, itemId, pieces, variant);
    return jsonAnswer(finished);
}

Answer storedResponseAnswer(const Call &call, ResponseStore *store)
{
    const QString id = call.path.section(u'/', 3, 3);   // /v1/responses/{id}[/...]
    const ResponseStore::Entry *entry = store ? store->find(id) : nullptr;
    if (!entry) {
        return errorOf(call.route, {404, "invalid_request_error", {},
                                    u"Response with id '%1' not found."_s.arg(id)});
    }
    switch (call.route) {
    case Route::ResponseInputItems: {
        QJsonArray newestFirst;
        for (qsizetype i = entry->inputItems.size() - 1; i >= 0; --i)
            newestFirst.append(entry->inputItems[i]);
        const auto idAt = [&newestFirst](qsizetype i) {
            return newestFirst.isEmpty() ? QJsonValue(QJsonValue::Null) : newestFirst[i][u"id"_s];
        };
        return jsonAnswer({{u"object"_s, u"list"_s}, {u"data"_s, newestFirst},
                           {u"first_id"_s, idAt(0)}, {u"last_id"_s, idAt(newestFirst.size() - 1)},
                           {u"has_more"_s, false}});
    }
    case Route::ResponseCancel:
        if (!entry->response[u"background"_s].toBool()) {
            return errorOf(call.route, {400, "invalid_request_error", {},
                                        u"Only responses created with background=true can be cancelled."_s});
        }
        return jsonAnswer(entry->response);
    case Route::ResponseDelete:
        store->forget(id);   // `entry` is gone with it
        return jsonAnswer({{u"id"_s, id}, {u"object"_s, u"response"_s}, {u"deleted"_s, true}});
    default:
        return jsonAnswer(entry->response);
    }
}

} // namespace mockanswers
