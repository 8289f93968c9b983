#pragma once

#include <QByteArray>
#include <QJsonObject>
#include <QJsonValue>
#include <QString>

#include "http/apierror.h"
#include "mockanswers.h"

// What every mock answer reads from a request, and the small pieces they all write with: the parsed
// body with its echo reply and rough token count, compact JSON, the headers of a JSON or SSE answer
// and an error in the route's own shape. Pure functions, no state.
namespace mockanswers {

struct Request
{
    QJsonObject json;
    QString model;
    QString reply;            // "echo: <last user text>"
    int promptTokens = 1;     // every text of the request, counted as tokenCount() does
    bool stream = false;
    bool includeUsage = false;
};

// Parses the body; false when it is not a JSON object. The reply echoes the route's last user
// text: `prompt` for legacy completions, `input` (a string or the last user item) for the
// Responses API, the last user message otherwise.
bool parse(Route route, const QByteArray &body, Request *request);

// A rough token count (words), never 0 so usage always looks real.
int tokenCount(const QString &text);
// Content as a string or an array of parts, of which the text parts count (both APIs).
QString textOf(const QJsonValue &content);
// Every text a request carries (system, instructions, prompt, input, message contents).
QString allText(const QJsonObject &json);

QByteArray compact(const QJsonObject &object);
QJsonValue orNull(const QJsonValue &value);   // a missing field as JSON null
QString mockId(const QString &prefix, quint64 sequence);   // "resp_mock000001"
QByteArray headerValue(const HeaderList &headers, const QByteArray &name);   // first, any case

HeaderList jsonHeaders();
HeaderList streamHeaders();
Answer jsonAnswer(const QJsonObject &object);
Answer errorOf(Route route, const ApiError &error);

} // namespace mockanswers
