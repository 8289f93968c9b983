#include "http/apierror.h"

#include <QJsonDocument>
#include <QJsonObject>

using namespace Qt::StringLiterals;

ApiError ApiError::badRequest(const QString &message)
{
    return {400, "invalid_request_error", "invalid_json", message};
}

ApiError ApiError::notFound(const QString &message)
{
    return {404, "invalid_request_error", "unknown_url", message};
}

ApiError ApiError::bodyTooLarge(qint64 limit)
{
    return {413, "invalid_request_error", "request_too_large",
            u"Request body exceeds Breakwater's limit of %1 bytes."_s.arg(limit)};
}

ApiError ApiError::headersTooLarge(qint64 limit)
{
    return {431, "invalid_request_error", "headers_too_large",
            u"Request headers exceed Breakwater's limit of %1 bytes."_s.arg(limit)};
}

ApiError ApiError::upstreamUnreachable(const QString &detail)
{
    return {502, "upstream_error", "upstream_unreachable",
            u"Breakwater could not reach the upstream: %1"_s.arg(detail)};
}

ApiError ApiError::upstreamTimeout(double seconds)
{
    return {504, "timeout_error", "upstream_timeout",
            u"The upstream sent nothing for %1 s (Breakwater --timeout)."_s.arg(seconds)};
}

ApiError ApiError::upstreamCut(const QString &detail)
{
    return {502, "upstream_error", "stream_cut",
            u"The upstream stream ended before it was complete: %1"_s.arg(detail)};
}

ApiError ApiError::queueFull(int limit)
{
    return {429, "rate_limit_error", "queue_full",
            u"Breakwater's upstream queue is full (%1 waiting calls)."_s.arg(limit)};
}

QByteArray anthropicErrorType(int status)
{
    switch (status) {
    case 400: return "invalid_request_error";
    case 401: return "authentication_error";
    case 403: return "permission_error";
    case 404: return "not_found_error";
    case 413: return "request_too_large";
    case 429: return "rate_limit_error";
    case 503:
    case 529: return "overloaded_error";
    case 504: return "timeout_error";
    default: return status < 500 ? "invalid_request_error" : "api_error";
    }
}

QByteArray geminiErrorStatus(int status)
{
    switch (status) {
    case 400: case 413: case 431: return "INVALID_ARGUMENT";
    case 401: return "UNAUTHENTICATED";
    case 403: return "PERMISSION_DENIED";
    case 404: return "NOT_FOUND";
    case 405: case 426: return "UNIMPLEMENTED";
    case 409: return "ABORTED";
    case 429: return "RESOURCE_EXHAUSTED";
    case 499: return "CANCELLED";
    case 502: case 503: case 529: return "UNAVAILABLE";
    case 504: return "DEADLINE_EXCEEDED";
    default: return status < 500 ? "FAILED_PRECONDITION" : "INTERNAL";
    }
}

static QJsonObject errorObject(ApiStyle style, const ApiError &error)
{
    if (style == ApiStyle::Gemini) {
        return QJsonObject{{u"error"_s, QJsonObject{{u"code"_s, error.status},
                                                    {u"message"_s, error.message.english()},
                                                    {u"status"_s, QString::fromLatin1(geminiErrorStatus(error.status))}}}};
    }
    if (style == ApiStyle::Anthropic) {
        return QJsonObject{{u"type"_s, u"error"_s},
                           {u"error"_s, QJsonObject{{u"type"_s, QString::fromLatin1(anthropicErrorType(error.status))},
                                                    {u"message"_s, error.message.english()}}},
                           {u"request_id"_s, QJsonValue::Null}};
    }
    QJsonObject object{
        {u"type"_s, QString::fromLatin1(error.type)},
        {u"param"_s, QJsonValue::Null},
        {u"code"_s, error.code.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(QString::fromLatin1(error.code))}};
    insertMessage(object, u"message"_s, error.message, kSentenceField);
    return QJsonObject{{u"error"_s, object}};
}

QByteArray errorBody(ApiStyle style, const ApiError &error)
{
    return QJsonDocument(errorObject(style, error)).toJson(QJsonDocument::Compact);
}

QByteArray errorEvent(ApiStyle style, const ApiError &error)
{
    const QByteArray data = errorBody(style, error);
    if (style == ApiStyle::Anthropic)
        return "event: error\ndata: " + data + "\n\n";
    return "data: " + data + "\n\n";
}

HeaderList errorHeaders(const ApiError &error)
{
    HeaderList headers{{"x-should-retry", "false"}};
    if (error.retryAfterSeconds >= 0)
        headers.append({"retry-after", QByteArray::number(error.retryAfterSeconds)});
    return headers;
}
