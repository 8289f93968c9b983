#include "sharing/requestkey.h"

#include <QCryptographicHash>
#include <QJsonDocument>
#include <QUrl>

#include "http/incomingrequest.h"
#include "http/protocol.h"

RequestKeyInput RequestKeyInput::from(const QByteArray &route, const QUrl &upstreamBase,
                                      const IncomingRequest &request, const QJsonObject &body)
{
    // The upstream without its userinfo and the query without its keys: those go in as credentials,
    // hashed like the headers, so that the input never holds a secret outside `credentials`.
    HeaderList queryKeys;
    RequestKeyInput input{route, redactQuery(request.query, &queryKeys),
                          upstreamBase.adjusted(QUrl::RemoveUserInfo).toEncoded(), {}, {}, body};
    // Names in a fixed order and each name's values in the client's order: the same headers sent
    // in another interleaving are the same request; the same values in another order are not.
    // Every credential counts, not the first found: an SDK may send Authorization (Anthropic's 1.x
    // sends its key as a Bearer token) beside an x-api-key, and the upstream may honour either.
    for (const CredentialHeader &header : credentialHeaders()) {
        for (const QByteArray &value : request.headerValues(header.name))
            input.credentials.append({header.name, value});
    }
    for (const auto &[name, value] : queryKeys)
        input.credentials.append({"?" + name, value});
    if (const QString userInfo = upstreamBase.userInfo(QUrl::FullyEncoded); !userInfo.isEmpty())
        input.credentials.append({"upstream userinfo", userInfo.toUtf8()});
    for (const QByteArray &name : keyedHeaders()) {
        for (const QByteArray &value : request.headerValues(name))
            input.apiHeaders.append({name, value});
    }
    return input;
}

const QList<QByteArray> &RequestKeyInput::keyedHeaders()
{
    static const QList<QByteArray> names{"anthropic-version", "anthropic-beta", "openai-beta",
                                         "openai-organization", "openai-project"};
    return names;
}

QByteArray canonicalJson(const QJsonObject &body)
{
    return QJsonDocument(body).toJson(QJsonDocument::Compact);
}

namespace {

// Both take the body's canonical form, made once per request by describedKey.
QByteArray keyOf(const RequestKeyInput &input, const QByteArray &canonicalBody)
{
    QCryptographicHash hash(QCryptographicHash::Sha256);
    // Each field is length-prefixed so that no two different inputs can produce the same stream.
    auto field = [&hash](const QByteArray &value) {
        const QByteArray length = QByteArray::number(value.size()) + ':';
        hash.addData(length);
        hash.addData(value);
    };
    auto headers = [&field](const HeaderList &list, bool hashValues) {
        field(QByteArray::number(list.size()));
        for (const auto &[name, value] : list) {
            field(name);
            field(hashValues ? QCryptographicHash::hash(value, QCryptographicHash::Sha256) : value);
        }
    };
    field(input.route);
    field(input.query);
    field(input.upstream);
    headers(input.credentials, true);
    headers(input.apiHeaders, false);
    field(canonicalBody);
    return hash.result();
}

QByteArray describe(const RequestKeyInput &input, const QByteArray &canonical)
{
    QByteArray text;
    text += "route: " + input.route + '\n';
    text += "query: " + (input.query.isEmpty() ? QByteArray("(none)") : input.query) + '\n';
    text += "upstream: " + input.upstream + '\n';
    if (input.credentials.isEmpty())
        text += "credential: (none)\n";
    for (const auto &[name, value] : input.credentials)
        text += "credential " + name + ": sha256 " + fingerprint(value) + '\n';
    for (const auto &[name, value] : input.apiHeaders)
        text += "header " + name + ": " + value + '\n';
    text += "body fields: " + input.body.keys().join(u", ").toUtf8() + '\n';
    text += "body: sha256 " + fingerprint(canonical) + " of " + QByteArray::number(canonical.size())
          + " canonical bytes (keys sorted, no whitespace)\n";
    return text;
}

} // namespace

QByteArray requestKey(const RequestKeyInput &input)
{
    return keyOf(input, canonicalJson(input.body));
}

QByteArray describeKeyInput(const RequestKeyInput &input)
{
    return describe(input, canonicalJson(input.body));
}

DescribedKey describedKey(const RequestKeyInput &input)
{
    const QByteArray canonical = canonicalJson(input.body);
    return {keyOf(input, canonical), describe(input, canonical)};
}

QByteArray fingerprint(const QByteArray &bytes)
{
    return QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex().left(12);
}
