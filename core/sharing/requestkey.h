#pragma once

#include "http/apierror.h"

#include <QByteArray>
#include <QJsonObject>
#include <QList>

class QUrl;
struct IncomingRequest;

// The de-dup key of a request: SHA-256 over a canonical form of everything that can change the
// answer. Two requests share a key only if they would get the same answer from the same account:
// same route, query string and upstream, the same credentials (every credential header of
// http/protocol.h's table present, every credential query parameter such as ?key=, the upstream
// URL's userinfo; each value hashed), the same API version/beta/organisation/project headers (every value of a
// repeated one, in order, as the upstream gets them all), and the same JSON body once object keys
// are sorted and whitespace removed. Per-attempt headers (X-Stainless-*, retry counts, timeouts,
// Codex's turn metadata) never enter it, and the raw credential is never kept in the key. Which
// parts of a request those are is decided here, in `from`, and nowhere else.

struct RequestKeyInput
{
    // The inputs of `request` on `route`, bound for the upstream at `upstreamBase`; `body` is the
    // request's body, already parsed.
    static RequestKeyInput from(const QByteArray &route, const QUrl &upstreamBase, const IncomingRequest &request,
                                const QJsonObject &body);
    // The request headers that change the answer besides the credentials, in the order they are keyed.
    static const QList<QByteArray> &keyedHeaders();

    QByteArray route;
    QByteArray query;             // the query string (api-version=, beta=true), keys as REDACTED
    QByteArray upstream;          // the upstream's base URL without its userinfo
    // Lower-case name and raw value of each credential header present, then "?name" of each key in
    // the query and "upstream userinfo" (hashed when keyed, only fingerprinted when described).
    HeaderList credentials;
    HeaderList apiHeaders;        // lower-case name and value of each keyedHeaders() value present
    QJsonObject body;
};

// 32 raw bytes.
QByteArray requestKey(const RequestKeyInput &input);

// What went into the key, for a person (the dashboard's key inspector): one "what: value" line for
// the route, query, upstream, each credential as "sha256 <fingerprint>" (never the credential),
// each API header, the body's top-level fields and the canonical body's fingerprint.
QByteArray describeKeyInput(const RequestKeyInput &input);

// Both of the above, the body made canonical once (the proxy wants both for every keyed request).
struct DescribedKey
{
    QByteArray key;
    QByteArray description;
};
DescribedKey describedKey(const RequestKeyInput &input);

// The body in canonical form: keys sorted (QJsonObject keeps them sorted), compact. Canonical for a
// body parsed from text, as the proxy's are: Qt 6.4 orders keys holding characters beyond U+FFFF
// differently in an object built with insert() (found by fuzz/fuzz_requestkey).
QByteArray canonicalJson(const QJsonObject &body);

// A short, non-reversible fingerprint for logs and the dashboard: 12 hex digits.
QByteArray fingerprint(const QByteArray &bytes);
