#include "mockanswers.h"

#include <algorithm>

#include <QCryptographicHash>
#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

using namespace Qt::StringLiterals;

namespace mockanswers {
namespace {

struct Request
{
    QJsonObject json;
    QString model;
    QString reply;
    int promptTokens = 1;
    bool stream = false;
    bool includeUsage = false;
};

QByteArray compact(const QJsonObject &object)
{
    return QJsonDocument(object).toJson(QJsonDocument::Compact);
}

// A rough token count (words), never 0 so usage always looks real.
int tokenCount(const QString &text)
{
    return qMax<qsizetype>(1, text.simplified().split(QChar(u' '), Qt::SkipEmptyParts).size());
}

// Message content is a string, or (both APIs) an array of parts of which the text parts count.
QString textOf(const QJsonValue &content)
{
    if (content.isString())
        return content.toString();
    QStringList parts;
    const QJsonArray array = content.toArray();
    for (const QJsonValue &part : array) {
        if (part.isString())
            parts += part.toString();
        else if (part[u"type"_s].toString() == u"text")
            parts += part[u"text"_s].toString();
    }
    return parts.join(u' ');
}

QString allText(const QJsonObject &json)
{
    QStringList texts{textOf(json[u"system"_s]), textOf(json[u"prompt"_s]), textOf(json[u"input"_s])};
    const QJsonArray messages = json[u"messages"_s].toArray();
    for (const QJsonValue &message : messages)
        texts += textOf(message[u"content"_s]);
    return texts.join(u' ');
}

QString promptOf(Route route, const QJsonObject &json)
{
    if (route == Route::Completions)
        return textOf(json[u"prompt"_s]);
    const QJsonArray messages = json[u"messages"_s].toArray();
    for (qsizetype i = messages.size() - 1; i >= 0; --i) {
        if (messages[i][u"role"_s].toString() == u"user")
            return textOf(messages[i][u"content"_s]);
    }
    return {};
}

// Parses the body; false when it is not a JSON object.
bool parse(Route route, const QByteArray &body, Request *request)
{
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(body, &error);
    if (error.error != QJsonParseError::NoError || !document.isObject())
        return false;
    request->json = document.object();
    const QString fallbackModel = route == Route::Messages ? u"mock-claude"_s : u"mock-gpt"_s;
    request->model = request->json[u"model"_s].toString(fallbackModel);
    request->reply = u"echo: "_s + promptOf(route, request->json);
    request->promptTokens = tokenCount(allText(request->json));
    request->stream = request->json[u"stream"_s].toBool();
    request->includeUsage = request->json[u"stream_options"_s][u"include_usage"_s].toBool();
    return true;
}

HeaderList jsonHeaders()
{
    return {{"Content-Type", "application/json"}};
}

HeaderList streamHeaders()
{
    return {{"Content-Type", "text/event-stream"}, {"Cache-Control", "no-cache"}};
}

Answer errorOf(Route route, const ApiError &error)
{
    HeaderList headers = jsonHeaders();
    if (error.retryAfterSeconds >= 0)
        headers.append({"retry-after", QByteArray::number(error.retryAfterSeconds)});
    return {error.status, headers, errorBody(styleFor(route), error), {}};
}

QJsonObject openaiUsage(int prompt, int completion)
{
    return {{u"prompt_tokens"_s, prompt}, {u"completion_tokens"_s, completion},
            {u"total_tokens"_s, prompt + completion}};
}

QByteArray dataEvent(const QJsonObject &object)
{
    return "data: " + compact(object) + "\n\n";
}

QByteArray namedEvent(const QByteArray &name, const QJsonObject &object)
{
    return "event: " + name + "\ndata: " + compact(object) + "\n\n";
}

// Splits a reply into at least three non-empty pieces at word starts; joined they give the reply.
QList<QString> streamPieces(const QString &reply)
{
    // Cut before each word that follows a space: "echo: a b" -> "echo:", " a", " b".
    QList<QString> pieces;
    qsizetype start = 0;
    for (qsizetype i = 1; i < reply.size(); ++i) {
        if (reply[i - 1].isSpace() && !reply[i].isSpace()) {
            pieces += reply.mid(start, i - start);
            start = i;
        }
    }
    if (start < reply.size())
        pieces += reply.mid(start);
    // Short replies are cut further, so every stream has at least three content events.
    while (pieces.size() < 3) {
        const auto longest = std::max_element(pieces.begin(), pieces.end(),
            [](const QString &a, const QString &b) { return a.size() < b.size(); });
        if (longest == pieces.end() || longest->size() < 2)
            break;
        const QString whole = *longest;
        const qsizetype half = whole.size() / 2;
        *longest = whole.left(half);
        pieces.insert(longest - pieces.begin() + 1, whole.mid(half));
    }
    return pieces;
}

// OpenAI chat and legacy completions share the stream's shape; only the choice differs.
Answer openaiAnswer(Route route, const Request &request, quint64 sequence)
{
    const bool chat = route == Route::ChatCompletions;
    const QString id = (chat ? u"chatcmpl-mock%1"_s : u"cmpl-mock%1"_s).arg(sequence, 6, 10, QChar(u'0'));
    const qint64 created = QDateTime::currentSecsSinceEpoch();
    const int completionTokens = tokenCount(request.reply);
    // Chat choices carry `message` (complete) or `delta` (stream); legacy completions carry `text`.
    const auto choice = [&](const QJsonObject &content, const QString &text, bool finished) {
        QJsonObject choice{{u"index"_s, 0}, {u"logprobs"_s, QJsonValue::Null},
                           {u"finish_reason"_s, finished ? QJsonValue(u"stop"_s) : QJsonValue::Null}};
        if (chat)
            choice[request.stream ? u"delta"_s : u"message"_s] = content;
        else
            choice[u"text"_s] = text;
        return choice;
    };

    if (!request.stream) {
        const QJsonObject message{{u"role"_s, u"assistant"_s}, {u"content"_s, request.reply}};
        const QJsonObject object{
            {u"id"_s, id}, {u"object"_s, chat ? u"chat.completion"_s : u"text_completion"_s},
            {u"created"_s, created}, {u"model"_s, request.model},
            {u"system_fingerprint"_s, u"fp_mock"_s},
            {u"choices"_s, QJsonArray{choice(message, request.reply, true)}},
            {u"usage"_s, openaiUsage(request.promptTokens, completionTokens)}};
        return {200, jsonHeaders(), compact(object), {}};
    }

    const auto chunk = [&](const QJsonArray &choices) {
        QJsonObject object{{u"id"_s, id},
                           {u"object"_s, chat ? u"chat.completion.chunk"_s : u"text_completion"_s},
                           {u"created"_s, created}, {u"model"_s, request.model},
                           {u"system_fingerprint"_s, u"fp_mock"_s}, {u"choices"_s, choices}};
        if (request.includeUsage)
            object[u"usage"_s] = QJsonValue::Null;  // as OpenAI does on every chunk but the last
        return object;
    };
    Answer answer{200, streamHeaders(), {}, {}};
    if (chat) {
        const QJsonObject role{{u"role"_s, u"assistant"_s}, {u"content"_s, u""_s}};
        answer.events += dataEvent(chunk({choice(role, {}, false)}));
    }
    const QList<QString> pieces = streamPieces(request.reply);
    for (const QString &piece : pieces)
        answer.events += dataEvent(chunk({choice({{u"content"_s, piece}}, piece, false)}));
    answer.events += dataEvent(chunk({choice({}, {}, true)}));
    if (request.includeUsage) {
        QJsonObject last = chunk({});
        last[u"usage"_s] = openaiUsage(request.promptTokens, completionTokens);
        answer.events += dataEvent(last);
    }
    answer.events += QByteArrayLiteral("data: [DONE]\n\n");
    return answer;
}

Answer anthropicAnswer(const Request &request, quint64 sequence)
{
    const QString id = u"msg_mock%1"_s.arg(sequence, 6, 10, QChar(u'0'));
    const int outputTokens = tokenCount(request.reply);
    if (!request.stream) {
        const QJsonObject object{
            {u"id"_s, id}, {u"type"_s, u"message"_s}, {u"role"_s, u"assistant"_s},
            {u"model"_s, request.model},
            {u"content"_s, QJsonArray{QJsonObject{{u"type"_s, u"text"_s}, {u"text"_s, request.reply}}}},
            {u"stop_reason"_s, u"end_turn"_s}, {u"stop_sequence"_s, QJsonValue::Null},
            {u"usage"_s, QJsonObject{{u"input_tokens"_s, request.promptTokens},
                                     {u"output_tokens"_s, outputTokens}}}};
        return {200, jsonHeaders(), compact(object), {}};
    }

    Answer answer{200, streamHeaders(), {}, {}};
    const QJsonObject message{
        {u"id"_s, id}, {u"type"_s, u"message"_s}, {u"role"_s, u"assistant"_s},
        {u"model"_s, request.model}, {u"content"_s, QJsonArray{}},
        {u"stop_reason"_s, QJsonValue::Null}, {u"stop_sequence"_s, QJsonValue::Null},
        {u"usage"_s, QJsonObject{{u"input_tokens"_s, request.promptTokens}, {u"output_tokens"_s, 1}}}};
    answer.events += namedEvent("message_start", {{u"type"_s, u"message_start"_s}, {u"message"_s, message}});
    answer.events += namedEvent("content_block_start", {
        {u"type"_s, u"content_block_start"_s}, {u"index"_s, 0},
        {u"content_block"_s, QJsonObject{{u"type"_s, u"text"_s}, {u"text"_s, u""_s}}}});
    answer.events += namedEvent("ping", {{u"type"_s, u"ping"_s}});
    const QList<QString> pieces = streamPieces(request.reply);
    for (const QString &piece : pieces) {
        answer.events += namedEvent("content_block_delta", {
            {u"type"_s, u"content_block_delta"_s}, {u"index"_s, 0},
            {u"delta"_s, QJsonObject{{u"type"_s, u"text_delta"_s}, {u"text"_s, piece}}}});
    }
    answer.events += namedEvent("content_block_stop", {{u"type"_s, u"content_block_stop"_s}, {u"index"_s, 0}});
    answer.events += namedEvent("message_delta", {
        {u"type"_s, u"message_delta"_s},
        {u"delta"_s, QJsonObject{{u"stop_reason"_s, u"end_turn"_s}, {u"stop_sequence"_s, QJsonValue::Null}}},
        {u"usage"_s, QJsonObject{{u"output_tokens"_s, outputTokens}}}});
    answer.events += namedEvent("message_stop", {{u"type"_s, u"message_stop"_s}});
    return answer;
}

// A small, deterministic vector per input text (the same text always maps to the same vector).
QJsonArray embeddingOf(const QString &text)
{
    const QByteArray digest = QCryptographicHash::hash(text.toUtf8(), QCryptographicHash::Sha256);
    QJsonArray vector;
    for (int i = 0; i < 8; ++i)
        vector.append(qRound(static_cast<quint8>(digest[i]) / 255.0 * 2000 - 1000) / 1000.0);
    return vector;
}

Answer embeddingsAnswer(const Request &request)
{
    const QJsonValue input = request.json[u"input"_s];
    QStringList inputs;
    if (input.isArray()) {
        for (const QJsonValue &item : input.toArray())
            inputs += item.isString() ? item.toString() : QString::number(item.toDouble());
    } else {
        inputs += input.toString();
    }
    QJsonArray data;
    for (qsizetype i = 0; i < inputs.size(); ++i) {
        data.append(QJsonObject{{u"object"_s, u"embedding"_s}, {u"index"_s, i},
                                {u"embedding"_s, embeddingOf(inputs[i])}});
    }
    const QJsonObject object{
        {u"object"_s, u"list"_s}, {u"data"_s, data}, {u"model"_s, request.model},
        {u"usage"_s, QJsonObject{{u"prompt_tokens"_s, request.promptTokens},
                                 {u"total_tokens"_s, request.promptTokens}}}};
    return {200, jsonHeaders(), compact(object), {}};
}

Answer modelsAnswer()
{
    QJsonArray data;
    for (const QString &id : {u"mock-gpt"_s, u"mock-gpt-mini"_s, u"mock-claude"_s}) {
        data.append(QJsonObject{{u"id"_s, id}, {u"object"_s, u"model"_s},
                                {u"created"_s, 1700000000}, {u"owned_by"_s, u"breakwater-mock"_s}});
    }
    return {200, jsonHeaders(), compact({{u"object"_s, u"list"_s}, {u"data"_s, data}}), {}};
}

} // namespace

Route routeFor(const QByteArray &method, const QString &path)
{
    if (method == "GET")
        return path == u"/v1/models" ? Route::Models : Route::Unknown;
    if (method != "POST")
        return Route::Unknown;
    if (path == u"/v1/chat/completions")
        return Route::ChatCompletions;
    if (path == u"/v1/completions")
        return Route::Completions;
    if (path == u"/v1/embeddings")
        return Route::Embeddings;
    if (path == u"/v1/messages")
        return Route::Messages;
    return Route::Unknown;
}

ApiStyle styleFor(Route route)
{
    return route == Route::Messages ? ApiStyle::Anthropic : ApiStyle::OpenAI;
}

Answer normalAnswer(Route route, const QByteArray &body, quint64 sequence)
{
    if (route == Route::Unknown)
        return errorOf(route, ApiError::notFound(u"The mock provider has no route for this URL."_s));
    if (route == Route::Models)
        return modelsAnswer();
    Request request;
    if (!parse(route, body, &request))
        return errorOf(route, ApiError::badRequest(u"The request body is not a JSON object."_s));
    switch (route) {
    case Route::ChatCompletions:
    case Route::Completions:
        return openaiAnswer(route, request, sequence);
    case Route::Messages:
        return anthropicAnswer(request, sequence);
    case Route::Embeddings:
        return embeddingsAnswer(request);
    default:
        return modelsAnswer();
    }
}

Answer errorAnswer(Route route, int status)
{
    if (status == 429) {
        ApiError error{429, "requests", "rate_limit_exceeded",
                       u"Rate limit reached for the mock provider; try again in 1s."_s, 1};
        return errorOf(route, error);
    }
    return errorOf(route, {status, "server_error", {}, u"The mock provider is overloaded."_s});
}

Answer garbageAnswer()
{
    return {200, jsonHeaders(), QByteArrayLiteral("<<garbage>>"), {}};
}

} // namespace mockanswers
