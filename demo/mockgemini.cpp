#include "mockgemini.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include "mockrequest.h"
#include "mockstreams.h"

using namespace Qt::StringLiterals;

namespace mockanswers {
namespace {

constexpr QStringView kModels = u"/v1beta/models";

// The text parts of one Content ({"role", "parts": [{"text"}]}).
QString partsText(const QJsonValue &content)
{
    QStringList texts;
    for (const QJsonValue &part : content[u"parts"_s].toArray()) {
        if (part[u"text"_s].isString())
            texts += part[u"text"_s].toString();
    }
    return texts.join(u' ');
}

// The model of .../models/{model}:method.
QString modelOf(const QString &path)
{
    const QString segment = path.mid(kModels.size() + 1);
    return segment.left(segment.lastIndexOf(u':'));
}

QJsonObject usageMetadata(int prompt, int candidates)
{
    QJsonObject usage{{u"promptTokenCount"_s, prompt}, {u"totalTokenCount"_s, prompt + candidates}};
    if (candidates > 0)
        usage[u"candidatesTokenCount"_s] = candidates;
    return usage;
}

QJsonObject candidate(const QString &text, bool finished)
{
    QJsonObject object{{u"content"_s, QJsonObject{{u"parts"_s, QJsonArray{QJsonObject{{u"text"_s, text}}}},
                                                  {u"role"_s, u"model"_s}}},
                       {u"index"_s, 0}};
    if (finished)
        object[u"finishReason"_s] = u"STOP"_s;
    return object;
}

QJsonObject geminiModel(const QString &id)
{
    return {{u"name"_s, QString(u"models/"_s + id)}, {u"version"_s, u"001"_s}, {u"displayName"_s, id},
            {u"inputTokenLimit"_s, 1048576}, {u"outputTokenLimit"_s, 8192},
            {u"supportedGenerationMethods"_s, QJsonArray{u"generateContent"_s, u"countTokens"_s}}};
}

} // namespace

Route geminiRoute(const QByteArray &method, const QString &path)
{
    if (path == kModels)
        return method == "GET" ? Route::GeminiModels : Route::Unknown;
    if (!path.startsWith(u"/v1beta/models/") || path.count(u'/') != 3)
        return Route::Unknown;
    if (method == "GET")
        return Route::GeminiModel;
    if (method != "POST")
        return Route::Unknown;
    if (path.endsWith(u":generateContent"))
        return Route::GeminiGenerate;
    if (path.endsWith(u":streamGenerateContent"))
        return Route::GeminiStream;
    if (path.endsWith(u":countTokens"))
        return Route::GeminiCountTokens;
    return Route::Unknown;
}

bool isGeminiRoute(Route route)
{
    switch (route) {
    case Route::GeminiGenerate: case Route::GeminiStream: case Route::GeminiCountTokens:
    case Route::GeminiModels: case Route::GeminiModel:
        return true;
    default:
        return false;
    }
}

bool parseGemini(const Call &call, Request *request)
{
    const QJsonDocument document = QJsonDocument::fromJson(call.body);
    if (!document.isObject())
        return false;
    request->json = document.object();
    // countTokens may wrap the request: {"generateContentRequest": {...}}.
    QJsonObject json = request->json;
    if (json.value(u"generateContentRequest"_s).isObject())
        json = json.value(u"generateContentRequest"_s).toObject();
    const QJsonArray contents = json.value(u"contents"_s).toArray();
    QString last;
    QStringList all{partsText(json.value(u"systemInstruction"_s))};
    for (const QJsonValue &content : contents) {
        all += partsText(content);
        if (content[u"role"_s].toString(u"user"_s) == u"user")
            last = partsText(content);
    }
    request->model = modelOf(call.path);
    request->reply = u"echo: "_s + last;
    request->promptTokens = tokenCount(all.join(u' '));
    request->stream = call.route == Route::GeminiStream;
    return true;
}

Answer geminiAnswer(const Call &call, const Request &request, Variant variant)
{
    const QString id = mockId(u"gemini-"_s, call.sequence);
    const int candidates = tokenCount(request.reply);
    switch (call.route) {
    case Route::GeminiModels: {
        QJsonArray models;
        for (const QString &model : {u"mock-gemini"_s, u"mock-gemini-flash"_s})
            models.append(geminiModel(model));
        return jsonAnswer({{u"models"_s, models}});
    }
    case Route::GeminiModel:
        return jsonAnswer(geminiModel(call.path.mid(kModels.size() + 1)));
    case Route::GeminiCountTokens:
        return jsonAnswer({{u"totalTokens"_s, request.promptTokens}});
    case Route::GeminiGenerate:
        return jsonAnswer({{u"candidates"_s, QJsonArray{candidate(request.reply, true)}},
                           {u"usageMetadata"_s, usageMetadata(request.promptTokens, candidates)},
                           {u"modelVersion"_s, request.model}, {u"responseId"_s, id}});
    default:
        break;
    }
    // A stream: the text in pieces, then a last chunk with the finishReason and the whole usage.
    Answer answer{200, streamHeaders(), {}, {}};
    const auto chunk = [&](const QJsonObject &candidateObject, int soFar) {
        return dataEvent({{u"candidates"_s, QJsonArray{candidateObject}},
                          {u"usageMetadata"_s, usageMetadata(request.promptTokens, soFar)},
                          {u"modelVersion"_s, request.model}, {u"responseId"_s, id}});
    };
    int soFar = 0;
    for (const QString &piece : streamPieces(request.reply)) {
        soFar += tokenCount(piece);
        answer.events += chunk(candidate(piece, false), qMin(soFar, candidates));
        if (variant == Variant::ErrorEvent || variant == Variant::BareErrorEvent) {
            answer.events += errorEvent(ApiStyle::Gemini, overloadedError(503));
            return answer;
        }
    }
    answer.events += chunk(candidate(QString(), true), candidates);
    return answer;
}

} // namespace mockanswers
