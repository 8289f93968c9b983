#include "http/protocol.h"

#include <algorithm>

QByteArray familyName(ApiFamily family)
{
    switch (family) {
    case ApiFamily::OpenAI: return "OpenAI";
    case ApiFamily::Anthropic: return "Anthropic";
    case ApiFamily::Gemini: return "Gemini";
    }
    return {};
}

bool CredentialHeader::carries(ApiFamily family) const
{
    return std::any_of(uses.cbegin(), uses.cend(), [family](const Use &use) { return use.family == family; });
}

QByteArray CredentialHeader::variable(ApiFamily family) const
{
    for (const Use &use : uses) {
        if (use.family == family)
            return use.variable;
    }
    return uses.first().variable;
}

const QList<CredentialHeader> &credentialHeaders()
{
    using F = ApiFamily;
    // The SDKs' own variable names. Anthropic's SDKs send an auth token (ANTHROPIC_AUTH_TOKEN) as a
    // Bearer token, and always with anthropic-version, which is how a request tells them apart.
    static const QList<CredentialHeader> table{
        {"authorization", "Bearer ", {{F::OpenAI, "OPENAI_API_KEY"}, {F::Anthropic, "ANTHROPIC_AUTH_TOKEN"}}},
        {"x-api-key", "", {{F::Anthropic, "ANTHROPIC_API_KEY"}}},
        {"api-key", "", {{F::OpenAI, "AZURE_OPENAI_API_KEY"}}},
        {"x-goog-api-key", "", {{F::Gemini, "GEMINI_API_KEY"}}},
    };
    return table;
}

const CredentialHeader *credentialHeader(QByteArrayView lowerName)
{
    for (const CredentialHeader &header : credentialHeaders()) {
        if (header.name == lowerName)
            return &header;
    }
    return nullptr;
}

bool isCredentialHeader(QByteArrayView lowerName)
{
    return credentialHeader(lowerName) != nullptr;
}

const CredentialHeader &usualCredentialHeader(ApiFamily family)
{
    for (const CredentialHeader &header : credentialHeaders()) {
        if (header.uses.first().family == family)
            return header;
    }
    return credentialHeaders().first();
}

bool isCredentialParameter(QByteArrayView encodedName)
{
    static const QList<QByteArray> names{"key", "api-key", "api_key", "apikey", "token", "access_token"};
    QByteArray name = QByteArray::fromPercentEncoding(encodedName.toByteArray().replace('+', ' ')).toLower();
    return names.contains(name) || isCredentialHeader(name);
}

QByteArray redactQuery(const QByteArray &query, HeaderList *removed)
{
    QList<QByteArray> parameters = query.split('&');
    bool changed = false;
    for (QByteArray &parameter : parameters) {
        const qsizetype equals = parameter.indexOf('=');
        const QByteArray name = equals < 0 ? parameter : parameter.left(equals);
        if (!isCredentialParameter(name))
            continue;
        if (removed)
            removed->append({name, equals < 0 ? QByteArray() : parameter.mid(equals + 1)});
        parameter = name + '=' + kRedactedInUrl;
        changed = true;
    }
    return changed ? parameters.join('&') : query;
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
