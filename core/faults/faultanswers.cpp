#include "faults/faultanswers.h"

#include <QDateTime>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRandomGenerator>

#include "faults/faultrule.h"

using namespace Qt::StringLiterals;

namespace {

QByteArray requestId()
{
    return "req_injected_" + QByteArray::number(QRandomGenerator::global()->generate64(), 16);
}

// The providers' own words for each status (OpenAI's type, Anthropic's comes from the status).
ApiError providerError(int status)
{
    switch (status) {
    case 429:
        return {429, "requests", "rate_limit_exceeded", u"Rate limit reached for requests."_s};
    case 500:
        return {500, "server_error", {}, u"The server had an error while processing your request. Sorry about that!"_s};
    case 502:
        return {502, "server_error", {}, u"Bad gateway."_s};
    case 529:
        return {529, "overloaded_error", {}, u"Overloaded"_s};
    default:
        return {status, "server_error", {}, u"The server is overloaded or not ready yet."_s};
    }
}

QByteArray seconds(qint64 ms)
{
    return QByteArray::number((ms + 999) / 1000);   // retry-after is whole seconds: never early
}

} // namespace

FaultAnswer statusAnswer(const FaultRule &rule, ApiStyle style, qint64 wallMs)
{
    ApiError error = providerError(rule.status);
    error.message = QString(error.message.english() + u" (fault injected by Breakwater, rule #%1)"_s.arg(rule.id));
    FaultAnswer answer{rule.status, {{"Content-Type", "application/json"}}, errorBody(style, error)};
    answer.headers.append({style == ApiStyle::Anthropic ? "request-id" : "x-request-id", requestId()});
    const qint64 retryMs = rule.retryAfter.count();
    if (retryMs >= 0) {
        answer.headers.append({"retry-after", seconds(retryMs)});
        answer.headers.append({"retry-after-ms", QByteArray::number(retryMs)});
    }
    if (rule.status == 429) {
        if (style == ApiStyle::Anthropic) {
            const QByteArray reset = QDateTime::fromMSecsSinceEpoch(wallMs + qMax<qint64>(retryMs, 0), Qt::UTC)
                                         .toString(Qt::ISODate).toLatin1();
            answer.headers += HeaderList{{"anthropic-ratelimit-requests-limit", "50"},
                                         {"anthropic-ratelimit-requests-remaining", "0"},
                                         {"anthropic-ratelimit-requests-reset", reset}};
        } else {
            answer.headers += HeaderList{{"x-ratelimit-limit-requests", "500"},
                                         {"x-ratelimit-remaining-requests", "0"},
                                         {"x-ratelimit-reset-requests", QByteArray::number(qMax<qint64>(retryMs, 0)) + "ms"}};
        }
    }
    return answer;
}

FaultAnswer garbageAnswer(bool passThrough)
{
    const QByteArray page = "<html><body>502 Bad Gateway (fault injected by Breakwater)</body></html>";
    // A pass-through answer is relayed as it comes and judged by its status alone, so a 200 that
    // claims JSON would reach the client as a success: there it is the gateway's page as it is sent.
    if (passThrough)
        return {502, {{"Content-Type", "text/html"}, {"x-request-id", requestId()}}, page};
    return {200, {{"Content-Type", "application/json"}, {"x-request-id", requestId()}}, page};
}

QByteArray streamErrorEvent(ApiStyle style, const QByteArray &route, qint64 sequence)
{
    if (style == ApiStyle::Anthropic || style == ApiStyle::Gemini)
        return errorEvent(style, providerError(style == ApiStyle::Gemini ? 503 : 529));
    const QString message = u"The server had an error while processing your request (fault injected by Breakwater)."_s;
    if (route == "/v1/responses") {
        const QJsonObject response{{u"id"_s, u"resp_injected"_s}, {u"object"_s, u"response"_s},
                                   {u"status"_s, u"failed"_s},
                                   {u"error"_s, QJsonObject{{u"code"_s, u"server_error"_s}, {u"message"_s, message}}}};
        const QJsonObject event{{u"type"_s, u"response.failed"_s}, {u"sequence_number"_s, sequence},
                                {u"response"_s, response}};
        return "event: response.failed\ndata: " + QJsonDocument(event).toJson(QJsonDocument::Compact) + "\n\n";
    }
    return errorEvent(style, {500, "server_error", {}, message});
}
