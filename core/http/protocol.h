#pragma once

#include "http/apierror.h"

#include <QByteArray>
#include <QList>

// What HTTP's words mean to Breakwater, each written down once: which statuses are a success, which
// request headers carry the account's credential, and which headers describe only one hop of the
// connection (RFC 9110 7.6.1) and so never pass through a proxy. Header names are compared in lower
// case.

// A 2xx status.
constexpr bool isSuccess(int status)
{
    return status >= 200 && status < 300;
}

// The headers an SDK sends its API key in, in the order the key is looked for: Authorization
// (OpenAI), x-api-key (Anthropic), api-key (Azure OpenAI).
const QList<QByteArray> &credentialHeaders();
bool isCredentialHeader(const QByteArray &lowerName);

// Connection, Keep-Alive, Transfer-Encoding, Upgrade and the other headers of one hop.
bool isHopByHopHeader(const QByteArray &lowerName);

// Whether an answer's Content-Type is an event stream (text/event-stream), in any of its headers.
bool isEventStream(const HeaderList &headers);

// One entry per name (case-insensitive, at its first place, with its first spelling): the values
// of a repeated name joined in order with ", " (RFC 9110 5.3), Cookie's with "; " (RFC 6265 5.4).
// For QNetworkRequest, whose setRawHeader keeps only the last value of a name.
HeaderList combineRepeated(const HeaderList &headers);
