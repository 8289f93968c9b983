#include "sharing/requestkey.h"

#include <charconv>

#include <openssl/evp.h>
#include <openssl/sha.h>

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

// OpenSSL's SHA-256, not QCryptographicHash: Qt 6.4's own is about three times slower on a key's
// few hundred bytes, and every request is keyed (a quarter of a cache hit's instructions, measured
// with callgrind). The digest is fetched once: OpenSSL 3's one-shot SHA256() looks it up in its
// provider tables on every call, half of each hash's time (perf, on the proxy thread). 32 raw bytes.
QByteArray sha256(QByteArrayView bytes)
{
    static EVP_MD *const method = EVP_MD_fetch(nullptr, "SHA256", nullptr);
    QByteArray digest(SHA256_DIGEST_LENGTH, Qt::Uninitialized);
    EVP_Digest(bytes.data(), size_t(bytes.size()), reinterpret_cast<unsigned char *>(digest.data()), nullptr,
               method, nullptr);
    return digest;
}

// Each credential's SHA-256, made once per request by describedKey: the key takes the hash, the
// description its fingerprint (fingerprint()'s first 12 hex digits of the same hash).
QList<QByteArray> credentialHashes(const RequestKeyInput &input)
{
    QList<QByteArray> hashes;
    hashes.reserve(input.credentials.size());
    for (const auto &[name, value] : input.credentials)
        hashes.append(sha256(value));
    return hashes;
}

// Both take the body's canonical form and the credentials' hashes, made once per request by describedKey.
QByteArray keyOf(const RequestKeyInput &input, const QByteArray &canonicalBody, const QList<QByteArray> &credentialHashes)
{
    QByteArray stream;
    stream.reserve(canonicalBody.size() + 512);
    // Each field is length-prefixed so that no two different inputs can produce the same stream.
    auto field = [&stream](QByteArrayView value) {
        char length[24];
        stream.append(length, std::to_chars(length, length + sizeof length, value.size()).ptr - length);
        stream.append(':');
        stream.append(value);
    };
    auto count = [&field](qsizetype n) {
        char digits[24];
        field(QByteArrayView(digits, std::to_chars(digits, digits + sizeof digits, n).ptr - digits));
    };
    field(input.route);
    field(input.query);
    field(input.upstream);
    count(input.credentials.size());
    for (qsizetype i = 0; i < input.credentials.size(); ++i) {
        field(input.credentials[i].first);
        field(credentialHashes[i]);
    }
    count(input.apiHeaders.size());
    for (const auto &[name, value] : input.apiHeaders) {
        field(name);
        field(value);
    }
    field(canonicalBody);
    return sha256(stream);
}

QByteArray describe(const RequestKeyInput &input, const QByteArray &canonical, const QList<QByteArray> &credentialHashes)
{
    QByteArray text;
    text.reserve(512);
    text += "route: " + input.route + '\n';
    text += "query: " + (input.query.isEmpty() ? QByteArray("(none)") : input.query) + '\n';
    text += "upstream: " + input.upstream + '\n';
    if (input.credentials.isEmpty())
        text += "credential: (none)\n";
    for (qsizetype i = 0; i < input.credentials.size(); ++i)
        text += "credential " + input.credentials[i].first + ": sha256 " + credentialHashes[i].toHex().left(12) + '\n';
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
    return keyOf(input, canonicalJson(input.body), credentialHashes(input));
}

QByteArray describeKeyInput(const RequestKeyInput &input)
{
    return describe(input, canonicalJson(input.body), credentialHashes(input));
}

DescribedKey describedKey(const RequestKeyInput &input)
{
    const QByteArray canonical = canonicalJson(input.body);
    const QList<QByteArray> hashes = credentialHashes(input);
    return {keyOf(input, canonical, hashes), describe(input, canonical, hashes)};
}

QByteArray fingerprint(const QByteArray &bytes)
{
    return sha256(bytes).toHex().left(12);
}
