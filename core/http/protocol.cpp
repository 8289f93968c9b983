#include "http/protocol.h"

#include <algorithm>

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

HeaderList combineRepeated(const HeaderList &headers)
{
    HeaderList combined;
    combined.reserve(headers.size());
    for (const auto &header : headers) {
        // Not a structured binding: clang 14 (the fuzz build) cannot capture one in a lambda.
        const QByteArray &name = header.first;
        const QByteArray &value = header.second;
        auto same = std::find_if(combined.begin(), combined.end(), [&name](const auto &kept) {
            return kept.first.compare(name, Qt::CaseInsensitive) == 0;
        });
        if (same == combined.end())
            combined.append({name, value});
        else
            same->second += (name.compare("cookie", Qt::CaseInsensitive) == 0 ? "; " : ", ") + value;
    }
    return combined;
}

bool isEventStream(const HeaderList &headers)
{
    return std::any_of(headers.cbegin(), headers.cend(), [](const auto &header) {
        return header.first.compare("content-type", Qt::CaseInsensitive) == 0
               && header.second.contains("text/event-stream");
    });
}
