#include "livesettings.h"

#include <QJsonValue>

#include "commandline.h"

using namespace Qt::StringLiterals;

namespace {

double seconds(std::chrono::milliseconds value)
{
    return std::chrono::duration<double>(value).count();
}

constexpr double kBytesPerMb = 1024.0 * 1024.0;

} // namespace

LiveSettings LiveSettings::of(const ProxyConfig &config)
{
    return {config.upstreamTimeout, config.concurrency, config.breakerFailures, config.breakerCooldown,
            config.dedupWindow, config.cacheBytes, config.maxSpendUsd};
}

void LiveSettings::applyTo(ProxyConfig &config) const
{
    config.upstreamTimeout = timeout;
    config.concurrency = concurrency;
    config.breakerFailures = breakerFailures;
    config.breakerCooldown = breakerCooldown;
    config.dedupWindow = dedupWindow;
    config.cacheBytes = cacheBytes;
    config.maxSpendUsd = maxSpendUsd;
}

QStringList LiveSettings::options()
{
    return {u"--timeout"_s, u"--concurrency"_s, u"--breaker-failures"_s, u"--breaker-cooldown"_s,
            u"--dedup-window"_s, u"--cache-size"_s, u"--max-spend"_s};
}

QJsonObject LiveSettings::toJson() const
{
    return {{u"timeout"_s, seconds(timeout)},
            {u"concurrency"_s, concurrency},
            {u"breaker-failures"_s, breakerFailures},
            {u"breaker-cooldown"_s, seconds(breakerCooldown)},
            {u"dedup-window"_s, seconds(dedupWindow)},
            {u"cache-size"_s, double(cacheBytes) / kBytesPerMb},
            {u"max-spend"_s, maxSpendUsd}};
}

Expected<LiveSettings> LiveSettings::withChanges(const LiveSettings &base, const QJsonObject &changes)
{
    ProxyConfig config;
    base.applyTo(config);
    const QStringList known = options();
    for (auto it = changes.begin(); it != changes.end(); ++it) {
        const QString &name = it.key();
        if (!known.contains(u"--"_s + name))
            return Failure{Message(QT_TRANSLATE_NOOP("Message", "unknown setting '%1' (live settings: %2)"))
                               .arg(name).arg(known.join(u", "_s).remove(u"--"_s))};
        // The command line has no "no cap" value for --max-spend (leaving it out is); live, 0 or
        // null lifts the cap.
        if (name == u"max-spend"_s && (it.value().isNull() || (it.value().isDouble() && it.value().toDouble() == 0))) {
            config.maxSpendUsd = 0;
            continue;
        }
        QString value;
        if (it.value().isDouble())
            value = QString::number(it.value().toDouble(), 'g', 17);
        else if (it.value().isString())
            value = it.value().toString();
        else
            return Failure{Message(QT_TRANSLATE_NOOP("Message", "setting '%1' takes a number or a string")).arg(name)};
        // The same check, range and message as the command line's, so the two never disagree.
        if (const Result applied = applyOptionValue(config, name, value, u"setting '%1'"_s.arg(name)); !applied.ok())
            return Failure{applied.message()};
    }
    return of(config);
}

QByteArray breakerActionName(BreakerAction action)
{
    switch (action) {
    case BreakerAction::Open: return "open";
    case BreakerAction::Close: return "close";
    case BreakerAction::Probe: return "probe";
    }
    return "probe";
}

std::optional<BreakerAction> breakerActionFromName(const QByteArray &name)
{
    for (const BreakerAction action : {BreakerAction::Open, BreakerAction::Close, BreakerAction::Probe}) {
        if (breakerActionName(action) == name)
            return action;
    }
    return std::nullopt;
}
