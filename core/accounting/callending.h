#pragma once

#include <QByteArray>

#include "accounting/callrecord.h"

// One vocabulary for what happened to a call, in two parts that the record's Outcome used to mix:
// how it was *served* (did it make the upstream call, ride on one, come from the cache, or was it
// refused before any call) and how it *ended* (ok, or which failure). Both are derived from the
// fields the proxy already fills (outcome, status, errorKind), so every reader (the call log's
// `ended` column, x-breakwater-dedup, /metrics, the dashboard) says the same thing, and rows
// written before this existed are read back with the same words.
enum class Served : quint8 {
    Miss,      // made the upstream call
    Joined,    // rode on an identical call in flight
    Hit,       // answered from the answer cache
    Bypass,    // not shared (Cache-Control: no-cache/no-store, a route never shared)
    Refused,   // no upstream call made: breaker, spend limit, queue full, bad input, paused
};
constexpr int kServedCount = 5;

enum class Ending : quint8 {
    Ok,
    UpstreamError,    // the upstream answered an error status (its 4xx/5xx, or a 2xx that was not JSON)
    Timeout,          // the upstream sent nothing for --timeout
    Unreachable,      // no connection, reset, refused
    Cut,              // a stream that stopped before its final event (or Breakwater shutting down)
    ErrorEvent,       // an error event inside a 200 stream
    BreakerRefused,
    SpendRefused,
    QueueFull,
    BadRequest,       // our own 4xx for bad input
    ClientClosed,     // the client hung up before anything was written to it, or every caller had
                      // and Breakwater cancelled the upstream call
    Paused,           // refused while admission was paused by hand (ProxyServer::setAdmissionPaused)
};
constexpr int kEndingCount = 12;

Served servedOf(Outcome outcome);
Ending endingOf(const CallRecord &record);

QByteArray servedName(Served served);   // miss, joined, hit, bypass, refused
QByteArray endingName(Ending ending);   // ok, upstream_error, timeout, ... (the `ended` column)

// Refused before any upstream call (served `refused`).
bool isRefusal(Ending ending);
// Served, but did not end well: what the dashboard counts and colours as a failure.
inline bool isFailure(Ending ending) { return ending != Ending::Ok && !isRefusal(ending); }

// The Outcome whose outcomeName() is `name` (the call log's `outcome` column); Error if none.
Outcome outcomeFromName(const QByteArray &name);
