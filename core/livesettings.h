#pragma once

#include <QJsonObject>
#include <QMetaType>
#include <QStringList>

#include <chrono>
#include <optional>

#include "proxyconfig.h"
#include "result.h"

// The values of a running proxy that change live, without a restart (ProxyServer::applyLiveSettings,
// the control API's /breakwater/settings, the dashboard's Settings dialog). The command line gives
// their start values; a live change lasts until the proxy stops. In JSON each is named after its
// command-line flag and written in the flag's unit (seconds, MB, USD): timeout, concurrency,
// breaker-failures, breaker-cooldown, dedup-window, cache-size, max-spend (0 = no cap).
struct LiveSettings
{
    std::chrono::milliseconds timeout = defaults::kUpstreamTimeout;
    int concurrency = defaults::kConcurrency;
    int breakerFailures = defaults::kBreakerFailures;
    std::chrono::milliseconds breakerCooldown = defaults::kBreakerCooldown;
    std::chrono::milliseconds dedupWindow = defaults::kDedupWindow;
    qint64 cacheBytes = defaults::kCacheBytes;
    double maxSpendUsd = 0;   // per day; 0 = no cap

    static LiveSettings of(const ProxyConfig &config);
    void applyTo(ProxyConfig &config) const;

    QJsonObject toJson() const;
    // `base` with the fields `changes` names (any subset, a number or a string each), every value
    // checked as the command line checks it. A failure names the field and changes nothing;
    // max-spend also takes 0 or null for no cap.
    static Expected<LiveSettings> withChanges(const LiveSettings &base, const QJsonObject &changes);
    // The command-line options of these values ("--timeout", ...), in the order of the fields.
    static QStringList options();

    bool operator==(const LiveSettings &other) const = default;
};
Q_DECLARE_METATYPE(LiveSettings)

// The breaker buttons: what a person can make an upstream's breaker do (ProxyServer::actOnBreaker).
enum class BreakerAction { Open, Close, Probe };
QByteArray breakerActionName(BreakerAction action);   // open, close, probe
std::optional<BreakerAction> breakerActionFromName(const QByteArray &name);
