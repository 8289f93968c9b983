#include "proxyroutes.h"

#include <algorithm>

#include <QList>

#include "http/incomingrequest.h"
#include "http/protocol.h"

using namespace Qt::StringLiterals;

namespace {

const QList<ProxyRoute> &routes()
{
    using Kind = ProxyRoute::Kind;
    using Call = ProxyRoute::Call;
    constexpr ApiStyle kOpenAI = ApiStyle::OpenAI;
    constexpr ApiStyle kAnthropic = ApiStyle::Anthropic;
    constexpr ApiStyle kGemini = ApiStyle::Gemini;
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
        // Anthropic's legacy Text Completions; OpenAI's is /v1/completions.
        {"POST", "/v1/complete", Kind::PassThrough, kAnthropic},
        // The same paths for both providers' SDKs, told apart by their headers.
        {"GET", "/v1/models", Kind::PassThrough, kOpenAI, Call::Other, true},
        {"GET", "/v1/models/*", Kind::PassThrough, kOpenAI, Call::Other, true},
        {"DELETE", "/v1/models/*", Kind::PassThrough, kOpenAI},   // a fine-tuned model
        // Gemini's own API: the model and the method in one segment ("gemini-2.5-flash:generateContent").
        {"POST", "/v1beta/models/*:generateContent", Kind::Proxied, kGemini, Call::Model},
        {"POST", "/v1beta/models/*:streamGenerateContent", Kind::Proxied, kGemini, Call::Model},
        {"POST", "/v1beta/models/*:countTokens", Kind::Proxied, kGemini, Call::Free},
        {"GET", "/v1beta/models", Kind::PassThrough, kGemini},
        {"GET", "/v1beta/models/*", Kind::PassThrough, kGemini},
        // Files, cached contents, embeddings and whatever Gemini adds: its own, passed through.
        {"", "/v1beta/**", Kind::PassThrough, kGemini},
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
        // The live events, for a dashboard attached from elsewhere (attach/eventfeed.h).
        {"GET", "/breakwater/events", Kind::Events, kOpenAI},
        // Everything else under /v1/, for whoever the call is for. OpenAI's: files, uploads, audio,
        // images, moderations, batches, fine-tuning, vector stores, ... Anthropic's: files, skills,
        // the Admin API (/v1/organizations/...) and whatever it adds next (agents, sessions, ...):
        // its credential goes to its own upstream, which answers a path it does not have itself.
        {"", "/v1/**", Kind::PassThrough, kOpenAI, Call::Other, true},
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
        // "*:method": any one segment ending in ":method" (Gemini's models/{model}:generateContent).
        if (want[i].startsWith("*:")) {
            const QByteArray method = want[i].mid(1);
            if (have[i].size() <= method.size() || !have[i].endsWith(method))
                return false;
            continue;
        }
        if (want[i] == "*" ? have[i].isEmpty() : want[i] != have[i])
            return false;
    }
    return true;
}

bool isUpstreamRoute(const ProxyRoute &route)
{
    return route.kind == ProxyRoute::Kind::Proxied || route.kind == ProxyRoute::Kind::PassThrough;
}

// Anthropic's own paths, which OpenAI's API does not have.
bool isAnthropicPath(const QByteArray &path)
{
    return path == "/v1/messages" || path.startsWith("/v1/messages/") || path == "/v1/complete";
}

// Who a request is for by its headers: the families that every credential header it carries may
// belong to (Authorization: OpenAI's or Anthropic's), narrowed by anthropic-version (Anthropic's
// SDKs send it with every call, also when their key goes as a Bearer token).
struct Caller
{
    std::optional<ApiFamily> family;   // unset: no credential header and no anthropic-version
    bool conflicting = false;          // headers of two APIs (x-api-key beside api-key)
    QList<QByteArray> headers;         // the names that decided, for messages
};

Caller callerOf(const IncomingRequest &request)
{
    Caller caller;
    QList<ApiFamily> possible{ApiFamily::OpenAI, ApiFamily::Anthropic, ApiFamily::Gemini};   // the first wins a tie
    for (const CredentialHeader &header : credentialHeaders()) {
        if (request.header(header.name).isEmpty())
            continue;
        caller.headers.append(header.name);
        possible.removeIf([&header](ApiFamily family) { return !header.carries(family); });
    }
    if (!request.header("anthropic-version").isEmpty()) {
        caller.headers.append("anthropic-version");
        possible.removeIf([](ApiFamily family) { return family != ApiFamily::Anthropic; });
    }
    if (caller.headers.isEmpty())
        return caller;
    if (possible.isEmpty())
        caller.conflicting = true;
    else
        caller.family = possible.first();
    return caller;
}

QString headerNames(const Caller &caller)
{
    return QString::fromLatin1(caller.headers.join(", "));
}

QString callName(const IncomingRequest &request)
{
    return QString::fromLatin1(request.method) + u' ' + QString::fromUtf8(request.path);
}

// Why no upstream of the call's API may take it on `route`, or nothing when one may.
std::optional<ApiError> familyRefusal(const ProxyRoute &route, const Caller &caller, const IncomingRequest &request)
{
    if (!isUpstreamRoute(route) || (!caller.family && !caller.conflicting))
        return std::nullopt;
    if (caller.conflicting) {
        return ApiError{400, "invalid_request_error", "credentials_of_two_apis",
                        u"The request carries the headers of more than one API (%1). Breakwater sends a credential "
                        "only to an upstream of its own API, so it cannot tell where this call goes: send one "
                        "API's headers."_s.arg(headerNames(caller))};
    }
    if (*caller.family == ApiFamily::Gemini && route.style != ApiStyle::Gemini) {
        return ApiError{400, "invalid_request_error", "no_upstream_for_credential",
                        u"The request carries a Gemini API key (%1) on %2, which is not Gemini's API (under "
                        "/v1beta/); Breakwater sends a credential only to an upstream of its own API."_s
                            .arg(headerNames(caller), callName(request))};
    }
    if (route.style == ApiStyle::Gemini && *caller.family != ApiFamily::Gemini) {
        return ApiError{400, "invalid_request_error", "credential_of_another_api",
                        u"%1 is Gemini's API, which takes its key as x-goog-api-key or ?key=; the request carries "
                        "%2, so Breakwater does not send it to the Gemini upstream."_s
                            .arg(callName(request), headerNames(caller))};
    }
    const ApiFamily routeFamily = familyOf(route.style);
    if (route.styleByHeaders || *caller.family == routeFamily)
        return std::nullopt;
    if (*caller.family == ApiFamily::Anthropic) {
        // What Anthropic answers for a path it does not have; the call never reaches OpenAI's upstream.
        return ApiError::notFound(u"Anthropic's API has no route %1. The request carries Anthropic's headers (%2), "
                                  "so Breakwater sends it only to the Anthropic upstream; this route is OpenAI's, "
                                  "which takes an OpenAI key as Authorization: Bearer, without anthropic-version."_s
                                      .arg(callName(request), headerNames(caller)));
    }
    // Anthropic's API requires the header of every call; without it the credential may be an OpenAI key.
    return ApiError{400, "invalid_request_error", "anthropic_version_required",
                    u"%1 is Anthropic's API, which requires the anthropic-version header (anthropic-version: "
                    "2023-06-01). The request carries %2 without it, so Breakwater takes its credential for an "
                    "OpenAI one and does not send it to the Anthropic upstream."_s
                        .arg(callName(request), headerNames(caller))};
}

// A path with an empty segment (a trailing slash, a doubled one). No route has one, and an upstream
// that tolerated it would run /v1/chat/completions/ as a billable call that Breakwater had passed
// through unpriced and unshared; OpenAI and Anthropic answer 404 for paths they do not have.
std::optional<ApiError> emptySegmentRefusal(const IncomingRequest &request, const QList<QByteArray> &segments)
{
    QList<QByteArray> named = segments.mid(1);
    if (!named.removeAll(QByteArray()))
        return std::nullopt;
    const QByteArray canonical = '/' + named.join('/');
    QString message = u"Unknown route %1: a route's path has no empty segment and no trailing slash."_s.arg(callName(request));
    if (named.size() > 0)
        message += u" Did you mean %1?"_s.arg(QString::fromUtf8(canonical));
    return ApiError::notFound(message);
}

} // namespace

GeminiCall geminiCall(const QByteArray &path)
{
    constexpr QByteArrayView prefix = "/v1beta/models/";
    if (!path.startsWith(prefix))
        return {};
    const QByteArray segment = path.mid(prefix.size());
    const qsizetype colon = segment.lastIndexOf(':');
    if (colon <= 0 || segment.contains('/'))
        return {};
    return {QString::fromUtf8(QByteArray::fromPercentEncoding(segment.left(colon))), segment.mid(colon + 1)};
}

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
    const Caller caller = callerOf(request);
    const bool anthropic = caller.family == ApiFamily::Anthropic || isAnthropicPath(request.path);
    const bool gemini = request.path.startsWith("/v1beta/") || request.path == "/v1beta";
    match.errorStyle = gemini ? ApiStyle::Gemini : anthropic ? ApiStyle::Anthropic : ApiStyle::OpenAI;
    const QList<QByteArray> segments = request.path.split('/');
    // A dot segment would let a path climb out of /v1/ at the upstream: no route has one.
    if (std::any_of(segments.begin(), segments.end(), isDotSegment))
        return match;
    if ((match.refusal = emptySegmentRefusal(request, segments)))
        return match;
    for (const ProxyRoute &route : routes()) {
        if (!matches(route.path, segments))
            continue;
        if (route.path.endsWith("/**") && !match.allowedMethod.isEmpty())
            return match;
        // Before the method: a call of the other API is refused whatever it asks of the path.
        if ((match.refusal = familyRefusal(route, caller, request))) {
            match.allowedMethod.clear();
            return match;
        }
        if (!route.method.isEmpty() && route.method != request.method) {
            if (match.allowedMethod.isEmpty())
                match.allowedMethod = route.method;
            continue;
        }
        match.route = route;
        match.found = true;
        match.allowedMethod.clear();
        if (route.styleByHeaders)
            match.route.style = caller.family == ApiFamily::Anthropic ? ApiStyle::Anthropic : ApiStyle::OpenAI;
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
