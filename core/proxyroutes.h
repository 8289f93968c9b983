#pragma once

#include <optional>

#include <QByteArray>
#include <QJsonObject>
#include <QUrl>

#include "http/apierror.h"

struct IncomingRequest;

// Which route a request is on, and so what Breakwater does with it: a model call shared through
// the flights and the cache (Proxied), a call passed through to one upstream unshared
// (PassThrough), or one of Breakwater's own answers (Control: the live control API, controlapi.h).
// The table is in proxyroutes.cpp and in the README's route table; the two must agree. Pure
// functions, no state.
struct ProxyRoute
{
    enum class Kind { Proxied, PassThrough, Health, Stats, Control, Faults, Events };
    // What a call on the route may tell its upstream's breaker and what it costs.
    enum class Call {
        Model,   // a model call: may be the half-open trial, and its success closes the breaker
        Free,    // no model call and nothing billed (count_tokens): no spend reserved, no price needed
        Other,   // anything else: refused while open, never the trial, reports only failures
    };
    QByteArray method;   // empty: any method
    // The path; a segment "*" stands for one segment, a last "**" for one or more. The pattern is
    // also the route's name in the call log and in /metrics, so a client's ids never become labels.
    QByteArray path;
    Kind kind = Kind::PassThrough;
    ApiStyle style = ApiStyle::OpenAI;   // the upstream called and the shape of our errors
    Call call = Call::Other;
    // A path both APIs have: Anthropic's when the request is Anthropic's by its headers (findRoute),
    // else OpenAI's. Any other upstream route is only `style`'s, and refuses a call of the other API.
    bool styleByHeaders = false;

    bool isModelCall() const { return call == Call::Model; }
};

// What a request's method, path and headers find in the table. Who a call is for is told by its
// headers before its path: a request with anthropic-version or x-api-key is Anthropic's, one with
// only Authorization (or api-key, Azure's) is OpenAI's, one with x-goog-api-key is Gemini's (the
// credential table in http/protocol.h says which header is whose). A credential never goes to an
// upstream of another API: such a call is refused here, before anything is sent.
struct RouteMatch
{
    ProxyRoute route;      // valid when `found`, with `style` already resolved for this request
    bool found = false;
    // Not found, but a route has this path with another method (405, with this as Allow).
    QByteArray allowedMethod;
    // Not found because no upstream of the call's API may take it (a route of the other API, the
    // credentials of two APIs) or the path has an empty segment: the error to answer.
    std::optional<ApiError> refusal;
    // The shape of Breakwater's own errors for this request (404, 405, the refusal, 426, 503 while
    // draining): Anthropic's when the request is Anthropic's by its headers or is on one of
    // Anthropic's own paths (/v1/messages and under it, /v1/complete), else OpenAI's.
    ApiStyle errorStyle = ApiStyle::OpenAI;
};

RouteMatch findRoute(const IncomingRequest &request);

// Whether the request must never be shared nor cached although its route is: a Responses call
// with `background: true` (it starts a server-side job; a cached "queued" object would lie) or
// with a `conversation` (each turn must really be added to the conversation).
bool changesServerState(const ProxyRoute &route, const QJsonObject &body);

// Where a request for `path` (and `query`, both as the client sent them, percent-encoding kept)
// goes on an upstream whose base URL is `base`. An OpenAI base already ends in /v1, as the SDKs'
// base URLs do, so the path's /v1 is not repeated; Anthropic's base has none.
// Gemini's /v1beta/models/{model}:{method} taken apart: "gemini-2.5-flash", "generateContent"
// (the model percent-decoded; both empty for another path).
struct GeminiCall
{
    QString model;
    QByteArray method;
};
GeminiCall geminiCall(const QByteArray &path);

QUrl upstreamUrl(const QUrl &base, ApiStyle style, const QByteArray &path, const QByteArray &query);

// A WebSocket upgrade (`Upgrade: websocket`), which Breakwater refuses at once (426) so the client
// falls back to HTTP.
bool isWebSocketUpgrade(const IncomingRequest &request);
ApiError webSocketRefusal();
