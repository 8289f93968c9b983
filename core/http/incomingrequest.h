#pragma once

#include "http/apierror.h"

#include <QByteArray>
#include <QHostAddress>
#include <QHttpServerRequest>

// One client request, copied out of Qt's request object at once: in Qt 6.4 that object belongs to
// the connection (one per socket,
// https://code.qt.io/cgit/qt/qthttpserver.git/tree/src/httpserver/qabstracthttpserver.cpp?h=v6.4.2#n42,
// cleared for the next request,
// https://code.qt.io/cgit/qt/qthttpserver.git/tree/src/httpserver/qhttpserverrequest.cpp?h=v6.4.2#n279)
// and must not be referenced after the handler returns.
struct IncomingRequest
{
    QByteArray method;
    QByteArray path;
    QByteArray query;
    HeaderList headers;
    QByteArray body;
    QHostAddress peer;
    // The team member the call was admitted for (team/membergate.h); empty without --access-tokens.
    QString member;
    // The first value of a header (case-insensitive name); empty if missing.
    QByteArray header(const QByteArray &name) const;
    // Every value of a header, in the order the client sent them (a name may be repeated).
    QList<QByteArray> headerValues(const QByteArray &name) const;
};

// The request's method as its name ("GET", "POST", ...).
QByteArray methodName(QHttpServerRequest::Method method);
// The client's headers as they go upstream: credentials and API headers kept; hop-by-hop headers,
// those the Connection header names, Host, Content-Length, Accept-Encoding (the network manager sets
// and decodes it) and our own x-breakwater-* dropped.
HeaderList forwardHeaders(const IncomingRequest &request);
// The credential that identifies the account: the first credential header present
// (http/protocol.h's table), raw.
QByteArray credentialOf(const IncomingRequest &request);
// Cache-Control: no-cache or no-store opts out of sharing.
bool wantsNoSharing(const IncomingRequest &request);
// Breakwater's id for one request: "bw-" and 16 hex digits.
QByteArray newRequestId();
