#pragma once

#include <QByteArray>
#include <QJsonObject>
#include <QMetaType>
#include <QString>

#include <chrono>

#include "result.h"

// One fault-injection rule as a value: what goes wrong (kind), for which calls (scope) and how
// often (firing). Written and read in one compact text form, parsed here and nowhere else:
//
//   KIND[:OPTION=VALUE]...      e.g. 503   529:p=30   429:retry-after=2:count=5   cut=3:upstream=anthropic
//
// Kinds: 429 500 502 503 529 (the provider's own error answer), hang, delay=D, slow-stream=D, cut=N,
// error-event=N, reset, garbage. Options: upstream=openai|anthropic, route=PATH, model=NAME (exact;
// may contain ':'), p=PERCENT (0-100, default 100), count=N (the next N calls), for=D (expires),
// retry-after=D (status kinds; 429 always has one, 1 s unless given). D is seconds, fractional ok,
// or with a unit: 500ms, 2s, 1.5m. The README's "Fault injection" has the table.
//
// A rule becomes armed in a FaultInjector, which gives it its id and keeps its firing state
// (fired, left, expiry); until then those are unset.
struct FaultRule
{
    enum class Kind : quint8 { Status, Hang, Delay, SlowStream, Cut, ErrorEvent, Reset, Garbage };

    Kind kind = Kind::Status;
    int status = 503;                         // Status
    std::chrono::milliseconds duration{0};   // Delay: before the first byte; SlowStream: between events
    int events = 0;                           // Cut, ErrorEvent: after this many events of the answer
    std::chrono::milliseconds retryAfter{-1}; // Status: -1 = none (429: 1 s)

    // Scope: empty matches every value.
    QByteArray upstream;   // "openai" or "anthropic"
    QByteArray route;      // a route's path as in the route table, e.g. /v1/chat/completions
    QString model;         // the request body's model, exactly

    // Firing.
    double percent = 100;                   // chance per matching call
    int count = -1;                         // fires for the next N calls (fired counts them); -1 = no limit
    std::chrono::milliseconds lifetime{0};  // for=: expires this long after it was armed; 0 = never

    // Set when armed (FaultInjector).
    int id = 0;
    qint64 expiresAtMs = 0;   // Clock::steadyMs(); 0 = never
    int fired = 0;
    QByteArray fleetId;   // armed for the whole fleet (fleet/fleetfaults.h); empty: this instance's own
    bool operator==(const FaultRule &) const = default;

    static Expected<FaultRule> parse(const QString &text);
    // The JSON form of POST /breakwater/faults: {"rule": TEXT}, or the text's parts as fields
    // ({"kind": "cut", "value": 3, "upstream": "anthropic", "p": 50, ...}).
    static Expected<FaultRule> fromJson(const QJsonObject &object);

    // The canonical text form: parse(text()) gives the same rule.
    QString text() const;
    // "#ID TEXT": how an injected call names its rule (x-breakwater-fault, the call log).
    QString label() const;
    // The kind as a word: "503", "hang", "delay", "slow-stream", "cut", ... (the metric's label).
    QByteArray kindName() const;
    // For GET /breakwater/faults and the dashboard; `nowMs` is Clock::steadyMs(), for the expiry.
    QJsonObject toJson(qint64 nowMs) const;

    // The kinds that shape a real upstream answer; the others make no upstream call at all.
    bool shapesRealCall() const;
    // The kinds that act on a stream's events, and so fire only on requests that ask for a stream.
    bool needsStream() const;
    bool isExpired(qint64 nowMs) const { return expiresAtMs > 0 && nowMs >= expiresAtMs; }
    bool isSpent() const { return count >= 0 && fired >= count; }
};
Q_DECLARE_METATYPE(FaultRule)
