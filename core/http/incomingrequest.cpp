#include "http/incomingrequest.h"

#include <QRandomGenerator>

#include "http/protocol.h"

namespace {

// Request headers that describe this hop (Host and Content-Length are the engine's to write).
bool isForwardable(const QByteArray &lowerName, const QList<QByteArray> &connectionListed)
{
    static const QList<QByteArray> dropped{"host", "content-length", "expect"};
    return !isHopByHopHeader(lowerName) && !dropped.contains(lowerName) && !connectionListed.contains(lowerName)
           && !lowerName.startsWith("x-breakwater-");
}

} // namespace

HeaderList forwardHeaders(const IncomingRequest &request)
{
    QList<QByteArray> connectionListed;
    for (const QByteArray &name : request.header("connection").split(','))
        connectionListed.append(name.trimmed().toLower());
    HeaderList headers;
    for (const auto &[name, value] : request.headers) {
        if (isForwardable(name.toLower(), connectionListed))
            headers.append({name, value});
    }
    return headers;
}

QByteArray methodName(QHttpServerRequest::Method method)
{
    using M = QHttpServerRequest::Method;
    switch (method) {
    case M::Get: return "GET";
    case M::Post: return "POST";
    case M::Put: return "PUT";
    case M::Delete: return "DELETE";
    case M::Head: return "HEAD";
    case M::Options: return "OPTIONS";
    case M::Patch: return "PATCH";
    case M::Connect: return "CONNECT";
    case M::Trace: return "TRACE";
    default: return "UNKNOWN";
    }
}

QByteArray newRequestId()
{
    const quint64 bits = QRandomGenerator::global()->generate64();
    return "bw-" + QByteArray::number(bits, 16).rightJustified(16, '0');
}

bool wantsNoSharing(const IncomingRequest &request)
{
    const QByteArray cacheControl = request.header("cache-control").toLower();
    return cacheControl.contains("no-cache") || cacheControl.contains("no-store");
}

QByteArray credentialOf(const IncomingRequest &request)
{
    for (const CredentialHeader &credential : credentialHeaders()) {
        const QByteArray value = request.header(credential.name);
        if (!value.isEmpty())
            return value;
    }
    return {};
}

QByteArray IncomingRequest::header(const QByteArray &name) const
{
    for (const auto &[key, value] : headers) {
        if (key.compare(name, Qt::CaseInsensitive) == 0)
            return value;
    }
    return {};
}

QList<QByteArray> IncomingRequest::headerValues(const QByteArray &name) const
{
    QList<QByteArray> values;
    for (const auto &[key, value] : headers) {
        if (key.compare(name, Qt::CaseInsensitive) == 0)
            values.append(value);
    }
    return values;
}
