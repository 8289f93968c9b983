#pragma once

#include <QByteArray>
#include <QHostAddress>
#include <QString>
#include <QStringList>
#include <QUrl>

#include <chrono>
#include <memory>

#include "faults/faultrule.h"
#include "fleet/redistarget.h"
#include "routing/upstreamroutes.h"
#include "team/teamfiles.h"

#include <optional>

// Every tunable of the proxy in one place, with its default. Command-line options (commandline.h)
// override these; tests set them directly.
namespace defaults {
using namespace std::chrono_literals;
inline constexpr quint16 kListenPort = 8080;
inline constexpr std::chrono::milliseconds kUpstreamTimeout = 60s;   // first byte and stream gaps
inline constexpr int kConcurrency = 64;       // per upstream: 20 different prompts never queue
inline constexpr int kMaxQueued = 1024;       // calls waiting for admission before 429
inline constexpr int kMaxEngineLoops = 4;     // upstream event loops at most, the proxy thread's home loop among them (never more than cores)
inline constexpr qint64 kMaxBodyBytes = 32 * 1024 * 1024;
inline constexpr qint64 kMaxHeaderBytes = 64 * 1024;
inline constexpr int kMaxConnections = 1024;   // client connections at once (http/frontdoor.h)
inline constexpr std::chrono::milliseconds kRequestReadTimeout = 30s;  // slow clients
inline constexpr std::chrono::milliseconds kIdleTimeout = 120s;        // idle keep-alive
inline constexpr std::chrono::milliseconds kDedupWindow = 300s;
inline constexpr qint64 kCacheBytes = 64 * 1024 * 1024;
inline constexpr int kBreakerFailures = 5;
inline constexpr std::chrono::milliseconds kBreakerCooldown = 60s;
inline constexpr std::chrono::milliseconds kBreakerProbeInterval = 1s;
inline constexpr std::chrono::milliseconds kDrainTimeout = 10s;      // calls in flight at shutdown
inline constexpr std::chrono::milliseconds kAbandonGrace = 5s;       // a reusable call nobody waits for
inline constexpr int kMaxRetryAfterSeconds = 60;
inline constexpr std::chrono::milliseconds kSnapshotInterval = 250ms;   // live figures for the UI
} // namespace defaults

struct ProxyConfig
{
    QHostAddress listenAddress = QHostAddress::LocalHost;
    quint16 listenPort = defaults::kListenPort;
    QUrl openaiUpstream = QUrl(QStringLiteral("https://api.openai.com/v1"));
    QUrl anthropicUpstream = QUrl(QStringLiteral("https://api.anthropic.com"));
    QUrl geminiUpstream = QUrl(QStringLiteral("https://generativelanguage.googleapis.com"));
    // The user chose the Gemini upstream (--gemini-upstream, on the command line or in the
    // configuration file): its lane is listed from the start, as it is for a Gemini route. The
    // demo points geminiUpstream at its mock without choosing it (a lane from its first call).
    bool geminiUpstreamChosen = false;
    // --route and the configuration file's "upstreams": upstreams chosen by a call's model, tried in
    // order before the family's default above (routing/upstreamroutes.h).
    QList<UpstreamRoute> upstreamRoutes;
    std::chrono::milliseconds upstreamTimeout = defaults::kUpstreamTimeout;
    int concurrency = defaults::kConcurrency;
    int maxQueued = defaults::kMaxQueued;
    qint64 maxBodyBytes = defaults::kMaxBodyBytes;
    qint64 maxHeaderBytes = defaults::kMaxHeaderBytes;
    std::chrono::milliseconds requestReadTimeout = defaults::kRequestReadTimeout;
    std::chrono::milliseconds idleTimeout = defaults::kIdleTimeout;
    std::chrono::milliseconds dedupWindow = defaults::kDedupWindow;
    std::chrono::milliseconds drainTimeout = defaults::kDrainTimeout;
    std::chrono::milliseconds abandonGrace = defaults::kAbandonGrace;
    qint64 cacheBytes = defaults::kCacheBytes;
    int breakerFailures = defaults::kBreakerFailures;
    std::chrono::milliseconds breakerCooldown = defaults::kBreakerCooldown;
    std::chrono::milliseconds breakerProbeInterval = defaults::kBreakerProbeInterval;
    double maxSpendUsd = 0;             // per calendar day (local time); 0 = no cap
    double spentTodayAtStartUsd = 0;    // read back from the call log, so a restart keeps the day's spend
    QString priceFile;                  // a user's prices, extending or overriding the built-in table
    bool recordBodies = false;          // --log-bodies: put request and response bodies in the records
    QStringList allowedOrigins;         // --allow-origin: browser origins answered (normalised; http/hostguard.h)
    QList<FaultRule> faults;            // --fault: rules armed at start (faults/faultrule.h); none by default
    // --shared-state: the fleet's Redis (fleet/sharedstate.h); none: every state is this process's own.
    std::optional<RedisTarget> sharedState;
    QString caFile;                     // --ca-file: PEM authorities trusted for upstreams besides the system's
    // Tests and the bench only: the engine the upstream calls run on (none: the proxy's CurlEngine).
    std::shared_ptr<class UpstreamEngine> upstreamEngine;
    // The owner's control token (controltoken.h), asked of every route under /breakwater/
    // (controlgate.h); empty: those routes answer nobody.
    QByteArray controlToken;
    // A team's Breakwater (--access-tokens, --provider-keys; team/membergate.h): every API call
    // needs a member's token. No members: a one-user Breakwater, as before.
    Team team;
    ProviderKeys providerKeys;
    QStringList publicNames;            // --public-name: host names the Host check accepts besides loopback
    QString tlsCertFile;                // --tls-cert and --tls-key: serve HTTPS
    QString tlsKeyFile;
};
