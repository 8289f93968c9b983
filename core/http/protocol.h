#pragma once

#include "http/apierror.h"

#include <QByteArray>
#include <QList>

// What HTTP's words mean to Breakwater, each written down once: which statuses are a success, which
// request headers and query parameters carry the account's credential (and for which API), and
// which headers describe only one hop of the connection (RFC 9110 7.6.1) and so never pass through
// a proxy. Header names are compared in lower case.

// A 2xx status.
constexpr bool isSuccess(int status)
{
    return status >= 200 && status < 300;
}

// Whose API a credential belongs to. Wider than ApiStyle (the upstreams Breakwater calls and the
// error shapes it speaks): a Gemini key is known, so that it is kept, redacted and never sent to
// an upstream of another API, before Breakwater has a Gemini upstream.
enum class ApiFamily { OpenAI, Anthropic, Gemini };

constexpr ApiFamily familyOf(ApiStyle style)
{
    switch (style) {
    case ApiStyle::Anthropic: return ApiFamily::Anthropic;
    case ApiStyle::Gemini: return ApiFamily::Gemini;
    case ApiStyle::OpenAI: break;
    }
    return ApiFamily::OpenAI;
}
// "OpenAI", "Anthropic", "Gemini", for messages.
QByteArray familyName(ApiFamily family);

// One header an SDK sends its API key in: the one table that the de-dup key, the call log's
// redaction, the breaker probe, replay, Copy as curl and the routing by API all read.
struct CredentialHeader
{
    // A family that sends its key in this header, and the environment variable its SDKs (and so a
    // curl command or a replay) read that key from.
    struct Use
    {
        ApiFamily family;
        QByteArray variable;
    };

    QByteArray name;     // lower case
    QByteArray scheme;   // what the value holds before the key ("Bearer "), or empty
    QList<Use> uses;     // the family that usually sends it first

    bool carries(ApiFamily family) const;
    // The variable of `family`'s use, else of the first.
    QByteArray variable(ApiFamily family) const;
};

// In the order a request's credential is looked for: Authorization (OpenAI's key, or Anthropic's
// beside anthropic-version), x-api-key (Anthropic), api-key (Azure OpenAI), x-goog-api-key (Gemini).
const QList<CredentialHeader> &credentialHeaders();
// The table's entry for a header, or null when it carries no credential.
const CredentialHeader *credentialHeader(QByteArrayView lowerName);
bool isCredentialHeader(QByteArrayView lowerName);
// The header `family`'s own SDKs send their key in: Authorization (OpenAI), x-api-key (Anthropic).
const CredentialHeader &usualCredentialHeader(ApiFamily family);

// A query parameter that carries a key: key (Gemini's ?key=), api-key, api_key, apikey, token,
// access_token, and any credential header's name; case-insensitive, percent-encoding decoded.
bool isCredentialParameter(QByteArrayView encodedName);
// What stands in a URL in place of a removed value: no brackets, which a URL would have to encode
// and which curl reads as a glob.
inline constexpr char kRedactedInUrl[] = "REDACTED";
// `query` (percent-encoding kept, without the '?') with each credential parameter's value replaced
// by kRedactedInUrl, everything else as it was. `removed`, when given, receives each such
// parameter's encoded name and value, in order.
QByteArray redactQuery(const QByteArray &query, HeaderList *removed = nullptr);

// Connection, Keep-Alive, Transfer-Encoding, Upgrade and the other headers of one hop.
bool isHopByHopHeader(const QByteArray &lowerName);

// Whether an answer's Content-Type is an event stream (text/event-stream), in any of its headers.
bool isEventStream(const HeaderList &headers);

// One entry per name (case-insensitive, at its first place, with its first spelling): the values
// of a repeated name joined in order with ", " (RFC 9110 5.3), Cookie's with "; " (RFC 6265 5.4).
// For QNetworkRequest, whose setRawHeader keeps only the last value of a name.
HeaderList combineRepeated(const HeaderList &headers);
