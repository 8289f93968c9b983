#pragma once

#include <QByteArray>
#include <QList>
#include <QMap>
#include <QPair>
#include <QMetaType>
#include <QString>

#include "livesettings.h"
#include "message.h"
#include "faults/faultrule.h"
#include "fleet/fleetview.h"
#include "sharing/inflight.h"
#include "upstream/circuitbreaker.h"

// Live figures of the proxy, made by ProxyServer::snapshot() on the proxy thread: published a few
// times a second for the dashboard and the tray, and read by /metrics and /breakwater/stats when a
// page is rendered. Values only, so the GUI thread never reaches into the proxy's state; the breaker
// state stays an enum here and becomes a name only where text is written (breakerStateName()).
struct UpstreamSnapshot
{
    QByteArray name;             // openai, anthropic
    BreakerState breakerState = BreakerState::Closed;
    int running = 0;             // upstream calls in progress
    int queued = 0;              // calls waiting for a pool slot
    int concurrency = 0;
    // The breaker's health, for the dashboard: failures in a row toward the threshold that opens it,
    // the cool-down left while open, and the newest failure ("timeout", "503", ...) with its time.
    int consecutiveFailures = 0;
    int failureThreshold = 0;
    qint64 cooldownLeftMs = 0;
    Message lastFailure = {};
    qint64 lastFailureAtMs = 0;   // wall clock; 0 = none yet
    // The health probe's newest answer while the breaker was open: when, what it saw ("200",
    // "503", "timeout", "unreachable") and whether that meant the provider was back.
    qint64 lastProbeAtMs = 0;     // wall clock; 0 = no probe yet
    QString lastProbeResult = {};
    bool lastProbeAlive = false;
    QByteArray protocol = {};     // what its latest answer came over: "HTTP/2", "HTTP/1.1"; empty before any
    QString url = {};             // its base URL, without any user:password (an attached dashboard shows it)
    bool operator==(const UpstreamSnapshot &) const = default;
};

struct ProxySnapshot
{
    qint64 atMs = 0;             // wall clock
    QList<UpstreamSnapshot> upstreams;
    int flightsInProgress = 0;
    int cacheEntries = 0;
    qint64 cacheBytes = 0;
    double spentTodayUsd = 0;
    double reservedUsd = 0;
    double spendCapUsd = 0;      // 0 = no cap
    LiveSettings settings;       // the values in use now, changed live or not
    bool admissionPaused = false;
    // --shared-state: "shared" or "degraded" (empty: off), and how often it went degraded.
    QByteArray sharedState;
    int sharedStateDegradations = 0;
    FleetView fleet;             // the live instances and their figures (enabled with --shared-state)
    // Fault injection: the armed rules in firing order (FaultRule::toJson wants `steadyMs` for their
    // expiry), and the faults injected since start by upstream and kind.
    qint64 steadyMs = 0;         // Clock::steadyMs() when taken
    QList<FaultRule> faults;
    QMap<QPair<QByteArray, QByteArray>, quint64> faultsInjected;
    // The flights in progress, oldest first, at most InFlight::kMaxListed; `flightsOmitted` newer
    // ones were left out.
    QList<InFlight> flights;
    int flightsOmitted = 0;
    bool operator==(const ProxySnapshot &) const = default;
    // The same figures, whenever each was taken: an idle proxy's snapshots differ only in their
    // times, and a dashboard that redrew for those would never rest (issue 26).
    bool sameFigures(const ProxySnapshot &other) const
    {
        ProxySnapshot stamped = other;
        stamped.atMs = atMs;
        stamped.steadyMs = steadyMs;
        return stamped == *this;
    }
    // The same but for what counts with the clock alone (a breaker's cool-down left, the flights'
    // ages): a countdown needs showing once a second, not four times.
    bool sameBesidesAges(const ProxySnapshot &other) const
    {
        ProxySnapshot aged = other;
        aged.atMs = atMs;
        aged.steadyMs = steadyMs;
        for (qsizetype i = 0; i < aged.upstreams.size() && i < upstreams.size(); ++i)
            aged.upstreams[i].cooldownLeftMs = upstreams[i].cooldownLeftMs;
        for (qsizetype i = 0; i < aged.flights.size() && i < flights.size(); ++i)
            aged.flights[i].ageMs = flights[i].ageMs;
        for (qsizetype i = 0; i < aged.fleet.instances.size() && i < fleet.instances.size(); ++i)
            aged.fleet.instances[i].ageMs = fleet.instances[i].ageMs;
        return aged == *this;
    }
};
Q_DECLARE_METATYPE(ProxySnapshot)
