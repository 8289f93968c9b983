#pragma once

#include <QByteArray>
#include <QByteArrayView>

class ResponseWriter;
struct IncomingRequest;

// Who may use Breakwater's own routes under /breakwater/: the one gate in front of all of them
// (the stats and their flights, live control, fault injection, and whatever is added there later),
// so none of their handlers checks anything itself. ProxyServer::handleRequest asks it before the
// route table is read, so an unknown path or a wrong method under /breakwater/ is no answer to a
// stranger either.
//   - A request that may change state (any method but GET and HEAD) from a web page (an Origin
//     header) is refused 403 `origin_not_allowed`, even from an origin --allow-origin lets through:
//     a page never steers the proxy. A page of an allowed origin may read, with the token.
//   - Every request must carry the owner's control token (controltoken.h) as
//     `Authorization: Bearer TOKEN`: without one it is refused 401 `control_token_required`, with
//     another 401 `control_token_invalid` (type `authentication_error`, `WWW-Authenticate: Bearer`).
//     A proxy given no token (an empty one) answers these routes to nobody.
// Refusals are in OpenAI's error shape with x-should-retry: false, like every error Breakwater makes.
// /healthz and /metrics are not under /breakwater/ and stay open (README, Threat model).

bool isControlPath(const QByteArray &path);

// True when the request may go on to its route; otherwise it has been answered and is over.
bool admitControl(QByteArrayView token, const IncomingRequest &request, ResponseWriter &writer);

// `sent` and `token` are the same, compared in a time that does not depend on where they differ.
bool sameControlToken(QByteArrayView sent, QByteArrayView token);
