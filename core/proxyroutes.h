#pragma once

#include "http/apierror.h"

#include <QByteArray>
#include <QJsonObject>
#include <QUrl>

struct IncomingRequest;

// Which route a request is on, and so what Breakwater does with it: a model call shared through
// the flights and the cache (Proxied), a call passed through to one upstream unshared
// (PassThrough), or one of Breakwater's own answers (Control: the live control API, controlapi.h).
// The table is in proxyroutes.cpp and in the README's route table; the two must agree. Pure
// functions, no state.
struct ProxyRoute
{
    enum class Kind { Proxied, PassThrough, Health, Stats, Control, Faults };
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
    bool styleByHeaders = false;   // Anthropic's when the request carries Anthropic's headers

    bool isModelCall() const { return call == Call::Model; }
};

// What a request's method and path find in the table.
struct RouteMatch
{
    ProxyRoute route;      // valid when `found`, with `style` already resolved for this request
    bool found = false;
    // Not found, but a route has this path with another method (405, with this as Allow).
    QByteArray allowedMethod;
};

RouteMatch findRoute(const IncomingRequest &request);

// Whether the request must never be shared nor cached although its route is: a Responses call
// with `background: true` (it starts a server-side job; a cached "queued" object would lie) or
// with a `conversation` (each turn must really be added to the conversation).
bool changesServerState(const ProxyRoute &route, const QJsonObject &body);

// Where a request for `path` (and `query`, both as the client sent them, percent-encoding kept)
// goes on an upstream whose base URL is `base`. An OpenAI base already ends in /v1, as the SDKs'
// base URLs do, so the path's /v1 is not repeated; Anthropic's base has none.
QUrl upstreamUrl(const QUrl &base, ApiStyle style, const QByteArray &path, const QByteArray &query);

// A WebSocket upgrade (`Upgrade: websocket`), which Breakwater refuses at once (426) so the client
// falls back to HTTP.
bool isWebSocketUpgrade(const IncomingRequest &request);
ApiError webSocketRefusal();

// The error shape of a path no route knows (Anthropic's under /v1/messages, OpenAI's elsewhere).
ApiStyle styleOfPath(const QByteArray &path);
