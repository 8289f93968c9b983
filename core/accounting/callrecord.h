#pragma once

#include <QByteArray>
#include <QMetaType>
#include <QString>

// What happened to one client request, from arrival to its last byte. The proxy thread fills one per
// request and publishes it when the response is done; the call log stores it and the dashboard
// draws it (the latency staircase is these records' timings side by side).
enum class Outcome : quint8 {
    Miss,            // started an upstream call
    Joined,          // rode along on an identical call already in flight
    Hit,             // answered from the answer cache
    Bypass,          // Cache-Control: no-cache/no-store, or a route that is never shared
    BreakerRefused,  // refused because the upstream's breaker is open
    SpendRefused,    // refused by the spend limit
    Error,           // Breakwater answered with an error of its own (bad input, timeout, queue full, ...)
    // An upstream call its upstream refused before a byte (429/5xx, unreachable, no headers in
    // time), whose callers went to the upstream's fallback: a row of its own that answered nobody.
    // The client's answer is the fallback's row, with the same request id. Not a client request:
    // counted as an upstream call, never as a request (isClientRequest).
    FellBack,
};

QByteArray outcomeName(Outcome outcome);   // miss, joined, hit, bypass, breaker_refused, ..., fell_back

struct CallRecord
{
    QByteArray requestId;
    QByteArray route;            // "/v1/chat/completions"
    QByteArray upstream;         // "openai", "anthropic" or a routed upstream's name (the one called)
    // Set when the call went to `upstream` as the fallback of this one (its breaker was open, or it
    // refused the call before a byte reached the client); answered as x-breakwater-fallback:
    // <upstream> (routing/upstreamroutes.h). Schema 6's fallback_from.
    QByteArray fallbackFrom;
    // On a FellBack row: the fallback its callers went to (schema 7's fallback_to).
    QByteArray fallbackTo;
    QString model;
    bool stream = false;
    QByteArray keyFingerprint;   // first 12 hex digits of the request key
    QByteArray credentialFingerprint;  // first 12 hex digits of SHA-256(credential); never the credential
    QString clientAddress;
    Outcome outcome = Outcome::Miss;
    int status = 0;
    QByteArray errorKind;        // "", "timeout", "unreachable", "stream_cut", "invalid_json", ...
    QByteArray breakerState;     // at admission: closed, open, half-open
    QString member;              // the team member who made the call (--access-tokens); empty: no team
    QString injected;            // the fault rule that made this answer ("#1 503:count=2"); empty: none

    // Wall-clock milliseconds since the epoch; 0 = did not happen.
    qint64 receivedAtMs = 0;
    qint64 upstreamStartAtMs = 0;   // the pool thread began the exchange (after any queue wait)
    qint64 firstByteAtMs = 0;
    qint64 endAtMs = 0;
    qint64 queueWaitMs = 0;

    // Token usage and cost of the upstream call this answer came from.
    qint64 inputTokens = -1;        // -1 = unknown
    qint64 outputTokens = -1;
    qint64 cachedTokens = -1;
    double costUsd = -1;            // cost of the upstream call (miss/bypass); -1 = unknown
    double costSavedUsd = 0;        // a joined or cached answer saves what the shared call cost

    // Filled only with --log-bodies (the call log redacts credentials before storing them).
    QByteArray requestBody;
    QByteArray responseBody;

    // Inside the call (schema 4), recorded always: small, bounded, and credentials redacted when
    // recorded (accounting/recordedheaders.h), so no record ever holds a secret.
    QByteArray method;           // "POST"
    QByteArray target;           // the path and query as the client sent them ("/v1/files/f-1?limit=2")
    QByteArray requestHeaders;   // the client's request, one "Name: value" line each, at most kMaxHeaderBytes
    QByteArray responseHeaders;  // the response Breakwater sent, the same way
    QByteArray keyInputs;        // what made the dedup key, one "what: value" line each (sharing/requestkey.h)
    int retryAttempt = -1;       // the client's X-Stainless-Retry-Count (0 = first try); -1 = not sent
    // The upstream's error body of a failed call (status >= 400, or the error event of a stream),
    // redacted and cut at kMaxErrorBodyBytes: kept without --log-bodies too.
    QByteArray errorBody;
    // A streamed answer's events (http/streamtiming.h); -1 / 0 / empty for an answer that is no stream.
    qint64 firstTokenAtMs = 0;   // wall clock of the first event carrying content (not just the first byte)
    qint64 maxEventGapMs = -1;   // the largest gap between two events
    qint64 eventCount = -1;
    QByteArray streamVerdict;    // complete, cut, error_event, buffered

    static constexpr qsizetype kMaxHeaderBytes = 16 * 1024;
    static constexpr qsizetype kMaxErrorBodyBytes = 8 * 1024;

    qint64 totalMs() const { return endAtMs > 0 ? endAtMs - receivedAtMs : 0; }
    // Every row but a fallback's refused attempt answers one client request: only those count as
    // requests, so a request that fell back is one request (the answer's row), never two misses.
    bool isClientRequest() const { return outcome != Outcome::FellBack; }
};

Q_DECLARE_METATYPE(CallRecord)
