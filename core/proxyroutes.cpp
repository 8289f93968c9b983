#include "proxyroutes.h"

#include <algorithm>

#include <QList>

#include "http/incomingrequest.h"

using namespace Qt::StringLiterals;

namespace {

const QList<ProxyRoute> &routes()
{
    using Kind = ProxyRoute::Kind;
    using Call = ProxyRoute::Call;
    constexpr ApiStyle kOpenAI = ApiStyle::OpenAI;
    constexpr ApiStyle kAnthropic = ApiStyle::Anthropic;
    // In order: the first route whose method and path match is taken. A route ending in "**" is a
    // family's catch-all; a path that an earlier route names with another method gets a 405 there
    // instead (GET /v1/messages is no pass-through but a mistake).
    static const QList<ProxyRoute> table{
        {"POST", "/v1/chat/completions", Kind::Proxied, kOpenAI, Call::Model},
        // GET lists stored chat completions (OpenAI's `store: true`): OpenAI's, passed through.
        {"", "/v1/chat/completions", Kind::PassThrough, kOpenAI},
        {"POST", "/v1/completions", Kind::Proxied, kOpenAI, Call::Model},
        {"POST", "/v1/embeddings", Kind::Proxied, kOpenAI, Call::Model},
        {"POST", "/v1/responses", Kind::Proxied, kOpenAI, Call::Model},
        // GET and DELETE /v1/responses/{id}, GET .../input_items, POST .../cancel: stored state.
        {"", "/v1/responses/**", Kind::PassThrough, kOpenAI},
        {"POST", "/v1/messages", Kind::Proxied, kAnthropic, Call::Model},
        {"POST", "/v1/messages/count_tokens", Kind::Proxied, kAnthropic, Call::Free},
        {"", "/v1/messages/batches", Kind::PassThrough, kAnthropic},
        {"", "/v1/messages/batches/**", Kind::PassThrough, kAnthropic},
        // Nothing else of OpenAI's lives under /v1/messages: whatever Anthropic adds there is its.
        {"", "/v1/messages/**", Kind::PassThrough, kAnthropic},
        // The same paths for both providers' SDKs, told apart by their headers.
        {"GET", "/v1/models", Kind::PassThrough, kOpenAI, Call::Other, true},
        {"GET", "/v1/models/*", Kind::PassThrough, kOpenAI, Call::Other, true},
        {"DELETE", "/v1/models/*", Kind::PassThrough, kOpenAI},   // a fine-tuned model
        {"GET", "/healthz", Kind::Health, kOpenAI},
        {"GET", "/metrics", Kind::Stats, kOpenAI},
        {"GET", "/breakwater/stats", Kind::Stats, kOpenAI},
        // Live control (controlapi.h): the settings are read with GET, changed with PUT or PATCH.
        {"", "/breakwater/settings", Kind::Control, kOpenAI},
        {"POST", "/breakwater/breaker/*/*", Kind::Control, kOpenAI},
        {"POST", "/breakwater/admission/*", Kind::Control, kOpenAI},
        // Fault injection's control API; the handler answers each method (faults/faultroute.h).
        {"", "/breakwater/faults", Kind::Faults, kOpenAI},
        {"", "/breakwater/faults/*", Kind::Faults, kOpenAI},
        // Files, uploads, audio, images, moderations, batches, fine-tuning, vector stores, ...
        {"", "/v1/**", Kind::PassThrough, kOpenAI},
    };
    return table;
}

bool isDotSegment(const QByteArray &segment)
{
    const QByteArray decoded = QByteArray::fromPercentEncoding(segment);
    return decoded == "." || decoded == "..";
}

bool matches(const QByteArray &pattern, const QList<QByteArray> &have)
{
    const QList<QByteArray> want = pattern.split('/');
    const bool tail = want.last() == "**";
    if (tail ? have.size() < want.size() : have.size() != want.size())
        return false;
    for (qsizetype i = 0; i < want.size(); ++i) {
        if (tail && i == want.size() - 1)
            return true;
        if (want[i] == "*" ? have[i].isEmpty() : want[i] != have[i])
            return false;
    }
    return true;
}

bool carriesAnthropicHeaders(const IncomingRequest &request)
{
    return !request.header("anthropic-version").isEmpty() || !request.header("x-api-key").isEmpty();
}

} // namespace

QUrl upstreamUrl(const QUrl &base, ApiStyle style, const QByteArray &path, const QByteArray &query)
{
    QUrl url = base;
    QString basePath = url.path(QUrl::FullyEncoded);
    if (basePath.endsWith(u'/'))
        basePath.chop(1);
    QByteArray suffix = path;
    if (style == ApiStyle::OpenAI && basePath.endsWith(u"/v1"_s) && suffix.startsWith("/v1/"))
        suffix = suffix.mid(3);
    // The client's path as it came (an id such as openai%2Fgpt-4o stays encoded).
    url.setPath(basePath + QString::fromUtf8(suffix), QUrl::TolerantMode);
    if (!query.isEmpty())
        url.setQuery(QString::fromUtf8(query), QUrl::StrictMode);
    return url;
}

RouteMatch findRoute(const IncomingRequest &request)
{
    RouteMatch match;
    const QList<QByteArray> segments = request.path.split('/');
    // A dot segment would let a path climb out of /v1/ at the upstream: no route has one.
    if (std::any_of(segments.begin(), segments.end(), isDotSegment))
        return match;
    for (const ProxyRoute &route : routes()) {
        if (!matches(route.path, segments))
            continue;
        if (route.path.endsWith("/**") && !match.allowedMethod.isEmpty())
            return match;
        if (!route.method.isEmpty() && route.method != request.method) {
            if (match.allowedMethod.isEmpty())
                match.allowedMethod = route.method;
            continue;
        }
        match.route = route;
        match.found = true;
        match.allowedMethod.clear();
        if (route.styleByHeaders && carriesAnthropicHeaders(request))
            match.route.style = ApiStyle::Anthropic;
        return match;
    }
    return match;
}

bool changesServerState(const ProxyRoute &route, const QJsonObject &body)
{
    if (route.path != "/v1/responses")
        return false;
    const QJsonValue conversation = body.value(u"conversation"_s);
    return body.value(u"background"_s).toBool() || !(conversation.isUndefined() || conversation.isNull());
}

bool isWebSocketUpgrade(const IncomingRequest &request)
{
    return request.header("upgrade").toLower().contains("websocket");
}

ApiError webSocketRefusal()
{
    // 426 makes Codex CLI fall back to HTTPS after one try (404/405/500 cost it seven, 400 stops it).
    return {426, "invalid_request_error", "websocket_not_supported",
            u"Breakwater does not carry WebSocket connections; use HTTP (the Responses API streams over "
            "HTTP too)."_s};
}

ApiStyle styleOfPath(const QByteArray &path)
{
    return path.startsWith("/v1/messages") ? ApiStyle::Anthropic : ApiStyle::OpenAI;
}
