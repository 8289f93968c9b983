#include "mockanswers.h"

#include <QCryptographicHash>
#include <QDateTime>
#include <QJsonArray>
#include <QJsonObject>

#include "mockextras.h"
#include "mockgemini.h"
#include "mockrequest.h"
#include "mockresponses.h"
#include "mockstreams.h"

using namespace Qt::StringLiterals;

namespace mockanswers {
namespace {

QJsonObject openaiUsage(int prompt, int completion)
{
    return {{u"prompt_tokens"_s, prompt}, {u"completion_tokens"_s, completion},
            {u"total_tokens"_s, prompt + completion}};
}

// The variants that cut a stream short with an error event after its first piece of text.
bool failsMidStream(Variant variant)
{
    return variant == Variant::ErrorEvent || variant == Variant::BareErrorEvent;
}

// OpenAI chat and legacy completions share the stream's shape; only the choice differs.
Answer openaiAnswer(Route route, const Request &request, quint64 sequence, Variant variant)
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
    for (const QString &piece : pieces) {
        answer.events += dataEvent(chunk({choice({{u"content"_s, piece}}, piece, false)}));
        if (failsMidStream(variant)) {
            // OpenAI's failure inside a 200 stream: an `error` chunk, then the end without [DONE].
            answer.events += errorEvent(ApiStyle::OpenAI, overloadedError());
            return answer;
        }
    }
    answer.events += dataEvent(chunk({choice({}, {}, true)}));
    if (request.includeUsage) {
        QJsonObject last = chunk({});
        last[u"usage"_s] = openaiUsage(request.promptTokens, completionTokens);
        answer.events += dataEvent(last);
    }
    answer.events += QByteArrayLiteral("data: [DONE]\n\n");
    return answer;
}

Answer anthropicAnswer(const Request &request, quint64 sequence, Variant variant)
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
    answer.events += pingEvent();
    const QList<QString> pieces = streamPieces(request.reply);
    for (const QString &piece : pieces) {
        answer.events += namedEvent("content_block_delta", {
            {u"type"_s, u"content_block_delta"_s}, {u"index"_s, 0},
            {u"delta"_s, QJsonObject{{u"type"_s, u"text_delta"_s}, {u"text"_s, piece}}}});
        if (failsMidStream(variant)) {
            // The streaming form of a 529: `event: error` (overloaded_error), then the end.
            answer.events += errorEvent(ApiStyle::Anthropic, overloadedError());
            return answer;
        }
    }
    answer.events += namedEvent("content_block_stop", {{u"type"_s, u"content_block_stop"_s}, {u"index"_s, 0}});
    answer.events += namedEvent("message_delta", {
        {u"type"_s, u"message_delta"_s},
        {u"delta"_s, QJsonObject{{u"stop_reason"_s, u"end_turn"_s}, {u"stop_sequence"_s, QJsonValue::Null}}},
        {u"usage"_s, QJsonObject{{u"output_tokens"_s, outputTokens}}}});
    answer.events += namedEvent("message_stop", {{u"type"_s, u"message_stop"_s}});
    if (variant == Variant::Pings)
        answer.events = withPings(answer.events);
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

QJsonObject anthropicModel(const QString &id)
{
    return {{u"type"_s, u"model"_s}, {u"id"_s, id}, {u"display_name"_s, id},
            {u"created_at"_s, u"2025-01-01T00:00:00Z"_s}};
}

Answer anthropicModelsAnswer()
{
    const QStringList ids{u"mock-claude"_s, u"mock-claude-mini"_s};
    QJsonArray data;
    for (const QString &id : ids)
        data.append(anthropicModel(id));
    return jsonAnswer({{u"data"_s, data}, {u"has_more"_s, false},
                       {u"first_id"_s, ids.constFirst()}, {u"last_id"_s, ids.constLast()}});
}

// The mock takes any model name in a request, so every model id exists.
Answer modelAnswer(Route route, const QString &id)
{
    if (route == Route::AnthropicModel)
        return jsonAnswer(anthropicModel(id));
    return jsonAnswer({{u"id"_s, id}, {u"object"_s, u"model"_s}, {u"created"_s, 1700000000},
                       {u"owned_by"_s, u"breakwater-mock"_s}});
}

struct RoutePattern
{
    QByteArrayView method;
    QStringView path;   // `*` stands for one non-empty segment (an id)
    Route route;
};

constexpr RoutePattern kRoutes[] = {
    {"POST", u"/v1/chat/completions", Route::ChatCompletions},
    {"POST", u"/v1/completions", Route::Completions},
    {"POST", u"/v1/embeddings", Route::Embeddings},
    {"GET", u"/v1/models", Route::Models},
    {"GET", u"/v1/models/*", Route::Model},
    {"POST", u"/v1/responses", Route::Responses},
    {"GET", u"/v1/responses/*", Route::ResponseGet},
    {"DELETE", u"/v1/responses/*", Route::ResponseDelete},
    {"GET", u"/v1/responses/*/input_items", Route::ResponseInputItems},
    {"POST", u"/v1/responses/*/cancel", Route::ResponseCancel},
    {"POST", u"/v1/files", Route::Files},
    {"GET", u"/v1/files", Route::FileList},
    {"POST", u"/v1/images/edits", Route::ImageEdits},
    {"POST", u"/v1/audio/transcriptions", Route::AudioTranscriptions},
    {"POST", u"/v1/moderations", Route::Moderations},
    {"POST", u"/v1/images/generations", Route::ImageGenerations},
    {"POST", u"/v1/batches", Route::BatchCreate},
    {"GET", u"/v1/batches", Route::BatchList},
    {"GET", u"/v1/batches/*", Route::BatchGet},
    {"POST", u"/v1/messages", Route::Messages},
    {"POST", u"/v1/messages/count_tokens", Route::CountTokens},
    {"POST", u"/v1/messages/batches", Route::MessageBatchCreate},
    {"GET", u"/v1/messages/batches", Route::MessageBatchList},
    {"GET", u"/v1/messages/batches/*", Route::MessageBatchGet},
};

// `have` is the request path split at '/'.
bool matches(QStringView pattern, const QList<QStringView> &have)
{
    const QList<QStringView> want = pattern.split(u'/');
    if (want.size() != have.size())
        return false;
    for (qsizetype i = 0; i < want.size(); ++i) {
        if (want[i] == u"*" ? have[i].isEmpty() : want[i] != have[i])
            return false;
    }
    return true;
}

// Routes whose body is a JSON object (400 otherwise).
bool takesJson(Route route)
{
    switch (route) {
    case Route::ChatCompletions: case Route::Completions: case Route::Embeddings:
    case Route::Responses: case Route::Moderations: case Route::ImageGenerations:
    case Route::BatchCreate: case Route::Messages: case Route::CountTokens:
    case Route::MessageBatchCreate:
        return true;
    default:
        return false;
    }
}

} // namespace

Route routeFor(const QByteArray &method, const QString &path, const HeaderList &headers)
{
    if (path.startsWith(u"/v1beta/"))
        return geminiRoute(method, path);
    const QList<QStringView> segments = QStringView(path).split(u'/');
    for (const RoutePattern &pattern : kRoutes) {
        if (pattern.method != method || !matches(pattern.path, segments))
            continue;
        // Anthropic's SDK lists models on the same path as OpenAI's; its headers tell them apart.
        if (!headerValue(headers, "anthropic-version").isEmpty()) {
            if (pattern.route == Route::Models)
                return Route::AnthropicModels;
            if (pattern.route == Route::Model)
                return Route::AnthropicModel;
            if (pattern.route == Route::Files)
                return Route::AnthropicFiles;
            if (pattern.route == Route::FileList)
                return Route::AnthropicFileList;
        }
        return pattern.route;
    }
    return Route::Unknown;
}

ApiStyle styleFor(Route route)
{
    switch (route) {
    case Route::Messages: case Route::CountTokens: case Route::AnthropicModels: case Route::AnthropicModel:
    case Route::MessageBatchCreate: case Route::MessageBatchList: case Route::MessageBatchGet:
    case Route::AnthropicFiles: case Route::AnthropicFileList:
        return ApiStyle::Anthropic;
    case Route::GeminiGenerate: case Route::GeminiStream: case Route::GeminiCountTokens:
    case Route::GeminiModels: case Route::GeminiModel:
        return ApiStyle::Gemini;
    default:
        return ApiStyle::OpenAI;
    }
}

Answer normalAnswer(const Call &call, ResponseStore *store, Variant variant)
{
    const Route route = call.route;
    Request request;
    if (isGeminiRoute(route)) {
        if (route != Route::GeminiModels && route != Route::GeminiModel && !parseGemini(call, &request))
            return errorOf(route, ApiError::badRequest(u"The request body is not a JSON object."_s));
        return geminiAnswer(call, request, variant);
    }
    if (takesJson(route) && !parse(route, call.body, &request))
        return errorOf(route, ApiError::badRequest(u"The request body is not a JSON object."_s));
    // As the providers do: a conversation that is not a list is refused, not echoed.
    const bool takesMessages = route == Route::ChatCompletions || route == Route::Messages || route == Route::CountTokens;
    const QJsonValue messages = request.json[u"messages"_s];
    if (takesMessages && !messages.isUndefined() && !messages.isArray())
        return errorOf(route, ApiError::badRequest(u"Invalid type for 'messages': expected an array."_s));
    switch (route) {
    case Route::ChatCompletions:
    case Route::Completions:
        return openaiAnswer(route, request, call.sequence, variant);
    case Route::Messages:
        return anthropicAnswer(request, call.sequence, variant);
    case Route::Embeddings:
        return embeddingsAnswer(request);
    case Route::Models:
        return modelsAnswer();
    case Route::AnthropicModels:
        return anthropicModelsAnswer();
    case Route::Model:
    case Route::AnthropicModel:
        return modelAnswer(route, call.path.section(u'/', 3));
    case Route::Responses:
        return responsesAnswer(request, call.sequence, variant, store);
    case Route::ResponseGet:
    case Route::ResponseDelete:
    case Route::ResponseInputItems:
    case Route::ResponseCancel:
        return storedResponseAnswer(call, store);
    case Route::Unknown:
        return errorOf(route, ApiError::notFound(u"The mock provider has no route for this URL."_s));
    default:
        return extraAnswer(call, request);
    }
}

Answer errorAnswer(Route route, int status)
{
    if (status == 429) {
        ApiError error{429, "requests", "rate_limit_exceeded",
                       u"Rate limit reached for the mock provider; try again in 1s."_s, 1};
        return errorOf(route, error);
    }
    return errorOf(route, overloadedError(status));
}

Answer rateLimitedMsAnswer(Route route)
{
    const ApiError error{429, "requests", "rate_limit_exceeded",
                         u"Rate limit reached for the mock provider; try again in 1.5s."_s, 2};
    Answer answer = errorOf(route, error);
    answer.headers += HeaderList{{"retry-after-ms", "1500"}};
    if (styleFor(route) == ApiStyle::Anthropic) {
        answer.headers += HeaderList{{"anthropic-ratelimit-requests-limit", "60"},
                                     {"anthropic-ratelimit-requests-remaining", "0"}};
    } else {
        answer.headers += HeaderList{{"x-ratelimit-limit-requests", "60"},
                                     {"x-ratelimit-remaining-requests", "0"},
                                     {"x-ratelimit-reset-requests", "1.5s"}};
    }
    return answer;
}

Answer garbageAnswer()
{
    return {200, jsonHeaders(), QByteArrayLiteral("<<garbage>>"), {}};
}

} // namespace mockanswers
