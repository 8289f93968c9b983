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
};

QByteArray outcomeName(Outcome outcome);   // miss, joined, hit, bypass, breaker_refused, ...

struct CallRecord
{
    QByteArray requestId;
    QByteArray route;            // "/v1/chat/completions"
    QByteArray upstream;         // "openai" or "anthropic"
    QString model;
    bool stream = false;
    QByteArray keyFingerprint;   // first 12 hex digits of the request key
    QByteArray credentialFingerprint;  // first 12 hex digits of SHA-256(credential); never the credential
    QString clientAddress;
    Outcome outcome = Outcome::Miss;
    int status = 0;
    QByteArray errorKind;        // "", "timeout", "unreachable", "stream_cut", "invalid_json", ...
    QByteArray breakerState;     // at admission: closed, open, half-open
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

    qint64 totalMs() const { return endAtMs > 0 ? endAtMs - receivedAtMs : 0; }
};

Q_DECLARE_METATYPE(CallRecord)
