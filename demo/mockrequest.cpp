#include "mockrequest.h"

#include <QJsonArray>
#include <QJsonDocument>

using namespace Qt::StringLiterals;

namespace mockanswers {
namespace {

// The last item of `list` whose role is user, as text ("" when there is none).
QString lastUserText(const QJsonArray &list)
{
    for (qsizetype i = list.size() - 1; i >= 0; --i) {
        if (list[i][u"role"_s].toString() == u"user")
            return textOf(list[i][u"content"_s]);
    }
    return {};
}

QString promptOf(Route route, const QJsonObject &json)
{
    if (route == Route::Completions)
        return textOf(json[u"prompt"_s]);
    if (route == Route::Responses) {
        const QJsonValue input = json[u"input"_s];
        return input.isString() ? input.toString() : lastUserText(input.toArray());
    }
    return lastUserText(json[u"messages"_s].toArray());
}

} // namespace

int tokenCount(const QString &text)
{
    return qMax<qsizetype>(1, text.simplified().split(QChar(u' '), Qt::SkipEmptyParts).size());
}

QString textOf(const QJsonValue &content)
{
    if (content.isString())
        return content.toString();
    QStringList parts;
    const QJsonArray array = content.toArray();
    for (const QJsonValue &part : array) {
        const QString type = part[u"type"_s].toString();
        if (part.isString())
            parts += part.toString();
        else if (type == u"text" || type == u"input_text" || type == u"output_text")
            parts += part[u"text"_s].toString();
    }
    return parts.join(u' ');
}

QString allText(const QJsonObject &json)
{
    QStringList texts{textOf(json[u"system"_s]), textOf(json[u"instructions"_s]),
                      textOf(json[u"prompt"_s]), textOf(json[u"input"_s])};
    // Chat messages, and the Responses API's input items, carry their text in `content`.
    for (const QString &list : {u"messages"_s, u"input"_s}) {
        const QJsonArray items = json[list].toArray();
        for (const QJsonValue &item : items)
            texts += textOf(item[u"content"_s]);
    }
    return texts.join(u' ');
}

bool parse(Route route, const QByteArray &body, Request *request)
{
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(body, &error);
    if (error.error != QJsonParseError::NoError || !document.isObject())
        return false;
    request->json = document.object();
    const QString fallbackModel = styleFor(route) == ApiStyle::Anthropic ? u"mock-claude"_s : u"mock-gpt"_s;
    request->model = request->json[u"model"_s].toString(fallbackModel);
    request->reply = u"echo: "_s + promptOf(route, request->json);
    request->promptTokens = tokenCount(allText(request->json));
    request->stream = request->json[u"stream"_s].toBool();
    request->includeUsage = request->json[u"stream_options"_s][u"include_usage"_s].toBool();
    return true;
}

QByteArray compact(const QJsonObject &object)
{
    return QJsonDocument(object).toJson(QJsonDocument::Compact);
}

QJsonValue orNull(const QJsonValue &value)
{
    return value.isUndefined() ? QJsonValue(QJsonValue::Null) : value;
}

QString mockId(const QString &prefix, quint64 sequence)
{
    return prefix + u"mock%1"_s.arg(sequence, 6, 10, QChar(u'0'));
}

QByteArray headerValue(const HeaderList &headers, const QByteArray &name)
{
    for (const auto &[key, value] : headers) {
        if (key.compare(name, Qt::CaseInsensitive) == 0)
            return value;
    }
    return {};
}

HeaderList jsonHeaders()
{
    return {{"Content-Type", "application/json"}};
}

HeaderList streamHeaders()
{
    return {{"Content-Type", "text/event-stream"}, {"Cache-Control", "no-cache"}};
}

Answer jsonAnswer(const QJsonObject &object)
{
    return {200, jsonHeaders(), compact(object), {}};
}

Answer errorOf(Route route, const ApiError &error)
{
    HeaderList headers = jsonHeaders();
    if (error.retryAfterSeconds >= 0)
        headers.append({"retry-after", QByteArray::number(error.retryAfterSeconds)});
    return {error.status, headers, errorBody(styleFor(route), error), {}};
}

} // namespace mockanswers
