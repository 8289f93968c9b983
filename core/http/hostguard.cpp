#include "http/hostguard.h"

#include <QHostAddress>
#include <QLoggingCategory>
#include <QSet>
#include <QUrl>

#include "http/responsewriter.h"

Q_LOGGING_CATEGORY(lcHostGuard, "breakwater.hostguard", QtInfoMsg)

using namespace Qt::StringLiterals;

namespace {

// Host: localhost, a loopback IP literal, the listen address or a public name, then nothing or this
// proxy's port.
bool namesThisProxy(const QByteArray &hostHeader, const HostGuard &guard)
{
    const quint16 port = guard.port;
    const QByteArray value = hostHeader.trimmed().toLower();
    QByteArray host = value;
    QByteArray portText;
    bool hasPort = false;
    if (value.startsWith('[')) {   // [v6] or [v6]:port
        const qsizetype close = value.indexOf(']');
        if (close < 0)
            return false;
        host = value.mid(1, close - 1);
        const QByteArray rest = value.mid(close + 1);
        if (!rest.isEmpty() && !rest.startsWith(':'))
            return false;
        hasPort = !rest.isEmpty();
        portText = rest.mid(1);
    } else if (const qsizetype colon = value.indexOf(':'); colon >= 0) {
        host = value.left(colon);   // a second colon (v6 without brackets) fails the port below
        hasPort = true;
        portText = value.mid(colon + 1);
    }
    if (hasPort) {
        bool ok = false;
        if (portText.toUInt(&ok) != port || !ok)
            return false;
    }
    if (host == "localhost" || guard.publicNames.contains(QString::fromLatin1(host)))
        return true;
    QHostAddress address;
    if (!address.setAddress(QString::fromLatin1(host)))
        return false;
    const bool wildcard = guard.listenAddress == QHostAddress::AnyIPv4 || guard.listenAddress == QHostAddress::AnyIPv6
                          || guard.listenAddress == QHostAddress::Any;
    return address.isLoopback() || (!guard.listenAddress.isNull() && !wildcard && address.isEqual(guard.listenAddress));
}

// Logged once per value (and thread), so a page that retries in a loop cannot flood the log.
bool firstSighting(const QByteArray &what)
{
    thread_local QSet<QByteArray> seen;
    if (seen.size() >= 64 || seen.contains(what))
        return false;
    seen.insert(what);
    return true;
}

QString shown(const QByteArray &value)
{
    return QString::fromLatin1(value.left(100));
}

} // namespace

std::optional<QString> normalizeOrigin(const QString &text)
{
    if (text == u"null"_s)   // sandboxed frames, file: pages
        return text;
    const QUrl url(text, QUrl::StrictMode);
    if (!url.isValid() || url.scheme().isEmpty() || url.host().isEmpty() || !url.userInfo().isEmpty()
        || !(url.path().isEmpty() || url.path() == u"/"_s) || url.hasQuery() || url.hasFragment())
        return std::nullopt;
    QUrl origin;
    origin.setScheme(url.scheme().toLower());
    origin.setHost(url.host().toLower());
    const int port = url.port();
    const bool defaultPort = (origin.scheme() == u"http"_s && port == 80) || (origin.scheme() == u"https"_s && port == 443);
    if (port >= 0 && !defaultPort)
        origin.setPort(port);
    return origin.toString(QUrl::FullyEncoded);
}

HostVerdict checkHostAndOrigin(const HostGuard &guard, const IncomingRequest &request)
{
    HostVerdict verdict;
    const QByteArray host = request.header("host");
    if (!host.isEmpty() && !namesThisProxy(host, guard)) {
        verdict.refusal = ApiError{421, "invalid_request_error", "misdirected_request",
            u"Breakwater answers only requests addressed to itself (Host localhost or a loopback address, "
            "port %1), not to '%2': a web page that points its own name at 127.0.0.1 (DNS rebinding) "
            "must not reach it."_s.arg(guard.port).arg(shown(host))};
        return verdict;
    }
    const QByteArray origin = request.header("origin").trimmed();
    if (origin.isEmpty())
        return verdict;   // not from a browser page
    const std::optional<QString> normalized = normalizeOrigin(QString::fromLatin1(origin));
    if (!normalized || !guard.allowedOrigins.contains(*normalized)) {
        verdict.refusal = ApiError{403, "invalid_request_error", "origin_not_allowed",
            u"Breakwater does not answer web pages: requests from origin '%1' are refused. "
            "To allow this one, start Breakwater with --allow-origin %1."_s.arg(shown(origin))};
        return verdict;
    }
    verdict.headers = {{"Access-Control-Allow-Origin", origin}, {"Vary", "Origin"}};
    verdict.preflight = request.method == "OPTIONS" && !request.header("access-control-request-method").isEmpty();
    if (verdict.preflight) {
        verdict.headers.append({"Access-Control-Allow-Methods"_ba, "GET, POST"_ba});
        if (const QByteArray asked = request.header("access-control-request-headers"); !asked.isEmpty())
            verdict.headers.append({"Access-Control-Allow-Headers"_ba, asked});
        // Chrome's Private Network Access: a public page asking for loopback says so in its preflight.
        if (request.header("access-control-request-private-network").toLower() == "true")
            verdict.headers.append({"Access-Control-Allow-Private-Network"_ba, "true"_ba});
        verdict.headers.append({"Access-Control-Max-Age"_ba, "600"_ba});
    } else {
        // What the SDKs read from an answer (their retry decisions, ids) and Breakwater's own headers.
        verdict.headers.append({"Access-Control-Expose-Headers"_ba,
                                "x-request-id, x-should-retry, retry-after, x-breakwater-dedup, x-breakwater-breaker"_ba});
    }
    return verdict;
}

bool admitRequest(const HostGuard &guard, const IncomingRequest &request, ResponseWriter &writer)
{
    const HostVerdict verdict = checkHostAndOrigin(guard, request);
    if (verdict.refusal) {
        const QByteArray seen = request.header("host") + ' ' + request.header("origin");
        if (firstSighting(seen)) {
            const QByteArray origin = request.header("origin");
            qCInfo(lcHostGuard).noquote()
                << u"refusing %1 %2 with %3 from Host '%4'%5"_s.arg(QString::fromLatin1(request.method),
                       QString::fromUtf8(request.path)).arg(verdict.refusal->status).arg(shown(request.header("host")),
                       origin.isEmpty() ? QString() : u" and Origin '%1'"_s.arg(shown(origin)));
        }
        const ApiStyle style = request.path.startsWith("/v1beta/") ? ApiStyle::Gemini
                             : request.path.startsWith("/v1/messages") ? ApiStyle::Anthropic
                                                                       : ApiStyle::OpenAI;
        writer.writeError(style, *verdict.refusal);
        return false;
    }
    if (verdict.preflight) {
        writer.writeComplete(200, verdict.headers, {});
        return false;
    }
    writer.addHeaders(verdict.headers);
    return true;
}
