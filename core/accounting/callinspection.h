#pragma once

#include <QByteArray>

#include "http/apierror.h"

// What a call record keeps of the inside of a call besides its timings: the request's and the
// response's headers and the upstream's error body, recorded always (not only with --log-bodies),
// so each is small, bounded, and redacted as it is recorded, before any record leaves the proxy
// thread. Redaction is the call log's (CallLog::redactCredentials and CallLog::isSecretName): a
// credential header (http/protocol.h's table: Authorization, x-api-key, api-key, x-goog-api-key), a
// cookie, or a header named like a secret keeps its name and loses its whole value; any other value
// loses only what has a key's shape. A target's credential query parameters (?key=, ?api_key=, ...)
// keep their name and lose their value; an upstream URL's userinfo is never recorded.
namespace CallInspection {

// `target` (a path and its query, as the client sent it) with each credential query parameter's
// value as REDACTED (http/protocol.h: redactQuery). Idempotent: a recorded target comes out the same.
QByteArray redactTarget(const QByteArray &target);
// A key's inputs as describeKeyInput wrote them (sharing/requestkey.h), with the query's keys and
// the upstream's userinfo taken out, for rows recorded before they were left out there.
QByteArray redactKeyInputs(const QByteArray &text);

// One "Name: value" line per header, in order (a repeated name stays repeated), each value
// redacted; at most CallRecord::kMaxHeaderBytes, the headers past that bound left out and counted.
QByteArray recordHeaders(const HeaderList &headers);
// The headers of recordHeaders' text (the "... left out" line is not a header).
HeaderList parseHeaders(const QByteArray &recorded);
// Whether a header's value is dropped whole; `name` in any case.
bool isSecretHeader(QByteArrayView name);

// The upstream's error body, redacted and cut at CallRecord::kMaxErrorBodyBytes.
QByteArray recordErrorBody(const QByteArray &body);

// What stands in place of a removed value.
inline constexpr char kRedacted[] = "[redacted]";

} // namespace CallInspection
