#include "http/protocol.h"

const QList<QByteArray> &credentialHeaders()
{
    static const QList<QByteArray> names{"authorization", "x-api-key", "api-key"};
    return names;
}

bool isCredentialHeader(const QByteArray &lowerName)
{
    return credentialHeaders().contains(lowerName);
}

bool isHopByHopHeader(const QByteArray &lowerName)
{
    static const QList<QByteArray> names{"connection", "keep-alive", "proxy-connection", "proxy-authenticate",
                                         "proxy-authorization", "te", "trailer", "transfer-encoding", "upgrade"};
    return names.contains(lowerName);
}
