#pragma once

#include <optional>

#include <QHostAddress>
#include <QString>
#include <QStringList>

#include "http/apierror.h"
#include "http/incomingrequest.h"

class ResponseWriter;

// Who may talk to the proxy, checked on every request before it is routed. Breakwater listens on
// loopback only, but a web page in the user's browser can still reach loopback: by DNS rebinding
// (its own host name re-resolved to 127.0.0.1, so its requests are "same-origin" and carry no
// Origin) or by plain cross-origin requests. So:
// - the Host header must name this proxy: `localhost` or a loopback IP literal (a literal cannot be
//   rebound), the listen address's literal, or a name given with --public-name, with this proxy's port
//   if it names one. A rebinding page's Host is its own name: 421.
// - a request with an Origin header comes from a browser page: 403, unless the origin was allowed
//   with --allow-origin; then it gets the CORS headers (and its preflight an answer) so the page can
//   read what it is sent. A request without a Host (HTTP/1.0 tools) is let through: browsers always
//   send one.
struct HostGuard
{
    quint16 port = 0;                 // the bound port (not 0 once listening)
    QStringList allowedOrigins;       // normalised by normalizeOrigin()
    // A team's Breakwater beyond loopback: the names members reach it by (--public-name, lower
    // case), and the address it is bound to (an IP literal cannot be rebound; a wildcard names nothing).
    QStringList publicNames;
    QHostAddress listenAddress;
};

struct HostVerdict
{
    std::optional<ApiError> refusal;  // answer it, and nothing else
    bool preflight = false;           // an allowed origin's CORS preflight: answer 200 with `headers`
    HeaderList headers;               // CORS headers for every answer to an allowed origin
};

// Pure: the verdict on one request (its method, Host, Origin and, for a preflight, its
// Access-Control-Request-* headers).
HostVerdict checkHostAndOrigin(const HostGuard &guard, const IncomingRequest &request);

// "scheme://host[:port]" in the form browsers send it (lower case, default port left out), or
// "null"; nullopt when `text` is not an origin (a path, a query, a user, no host, "*").
std::optional<QString> normalizeOrigin(const QString &text);

// The check at the top of ProxyServer::handleRequest: answers a refusal or a preflight itself and
// returns false, or gives `writer` the CORS headers (if any) and returns true.
bool admitRequest(const HostGuard &guard, const IncomingRequest &request, ResponseWriter &writer);
