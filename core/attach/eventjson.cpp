#include "attach/eventjson.h"

#include <QJsonArray>

#include "faults/faultrule.h"

using namespace Qt::StringLiterals;

namespace {

BreakerState breakerStateFromName(const QString &name)
{
    for (BreakerState state : {BreakerState::Closed, BreakerState::Open, BreakerState::HalfOpen}) {
        if (QString::fromLatin1(breakerStateName(state)) == name)
            return state;
    }
    return BreakerState::Closed;
}

InFlight::State inFlightStateFromName(const QString &name)
{
    for (InFlight::State state : {InFlight::State::Queued, InFlight::State::Waiting, InFlight::State::Receiving,
                                  InFlight::State::Streaming, InFlight::State::Abandoned}) {
        if (QString::fromLatin1(inFlightStateName(state)) == name)
            return state;
    }
    return InFlight::State::Waiting;
}

UpstreamSnapshot upstreamFromJson(const QJsonObject &json)
{
    UpstreamSnapshot u;
    u.name = json.value(u"name"_s).toString().toUtf8();
    u.breakerState = breakerStateFromName(json.value(u"breaker"_s).toString());
    u.running = json.value(u"inflight"_s).toInt();
    u.queued = json.value(u"queued"_s).toInt();
    u.concurrency = json.value(u"concurrency"_s).toInt();
    u.consecutiveFailures = json.value(u"consecutiveFailures"_s).toInt();
    u.failureThreshold = json.value(u"failureThreshold"_s).toInt();
    u.cooldownLeftMs = json.value(u"cooldownLeftMs"_s).toInteger();
    u.lastFailure = messageIn(json, u"lastFailure"_s);
    u.lastFailureAtMs = json.value(u"lastFailureAtMs"_s).toInteger();
    u.lastProbeAtMs = json.value(u"lastProbeAtMs"_s).toInteger();
    u.lastProbeResult = json.value(u"lastProbeResult"_s).toString();
    u.lastProbeAlive = json.value(u"lastProbeAlive"_s).toBool();
    u.protocol = json.value(u"protocol"_s).toString().toLatin1();
    u.url = json.value(u"url"_s).toString();
    return u;
}

InFlight flightFromJson(const QJsonObject &json)
{
    InFlight f;
    f.requestId = json.value(u"requestId"_s).toString().toLatin1();
    f.route = json.value(u"route"_s).toString().toUtf8();
    f.upstream = json.value(u"upstream"_s).toString().toLatin1();
    f.model = json.value(u"model"_s).toString();
    f.stream = json.value(u"stream"_s).toBool();
    f.startedAtMs = json.value(u"startedAtMs"_s).toInteger();
    f.ageMs = json.value(u"ageMs"_s).toInteger();
    f.joined = json.value(u"joined"_s).toInt();
    f.hungUp = json.value(u"hungUp"_s).toInt();
    f.bytes = json.value(u"bytes"_s).toInteger();
    f.events = json.value(u"events"_s).toInteger();
    f.state = inFlightStateFromName(json.value(u"state"_s).toString());
    f.queuePosition = json.value(u"queuePosition"_s).toInt();
    f.trial = json.value(u"trial"_s).toBool();
    f.injected = json.value(u"injected"_s).toString();
    return f;
}

// A rule as FaultRule::toJson wrote it: its text gives the rule, the rest what arming it set.
std::optional<FaultRule> faultFromJson(const QJsonObject &json, qint64 steadyMs)
{
    Expected<FaultRule> parsed = FaultRule::parse(json.value(u"rule"_s).toString());
    if (!parsed.ok())
        return std::nullopt;
    FaultRule rule = parsed.value();
    rule.id = json.value(u"id"_s).toInt();
    rule.fired = json.value(u"fired"_s).toInt();
    const QJsonValue expiresIn = json.value(u"expires_in_s"_s);
    rule.expiresAtMs = expiresIn.isDouble() ? steadyMs + qint64(expiresIn.toDouble() * 1000) : 0;
    return rule;
}

} // namespace

QJsonObject transitionToJson(const BreakerTransition &transition)
{
    QJsonObject json{{u"upstream"_s, transition.upstream}, {u"atMs"_s, transition.atMs},
                     {u"from"_s, QString::fromLatin1(breakerStateName(transition.from))},
                     {u"to"_s, QString::fromLatin1(breakerStateName(transition.to))}};
    insertMessage(json, u"reason"_s, transition.reason);
    return json;
}

BreakerTransition transitionFromJson(const QJsonObject &json)
{
    return {json.value(u"upstream"_s).toString(), json.value(u"atMs"_s).toInteger(),
            breakerStateFromName(json.value(u"from"_s).toString()), breakerStateFromName(json.value(u"to"_s).toString()),
            messageIn(json, u"reason"_s)};
}

ProxySnapshot snapshotFromStats(const QJsonObject &stats)
{
    ProxySnapshot s;
    s.atMs = stats.value(u"atMs"_s).toInteger();
    s.steadyMs = stats.value(u"steadyMs"_s).toInteger();
    for (const QJsonValue &u : stats.value(u"upstreams"_s).toArray())
        s.upstreams.append(upstreamFromJson(u.toObject()));
    s.flightsInProgress = stats.value(u"flightsInProgress"_s).toInt();
    const QJsonObject cache = stats.value(u"cache"_s).toObject();
    s.cacheEntries = cache.value(u"entries"_s).toInt();
    s.cacheBytes = cache.value(u"bytes"_s).toInteger();
    const QJsonObject spend = stats.value(u"spend"_s).toObject();
    s.spentTodayUsd = spend.value(u"todayUsd"_s).toDouble();
    s.reservedUsd = spend.value(u"reservedUsd"_s).toDouble();
    s.spendCapUsd = spend.value(u"capUsd"_s).toDouble();
    // The settings as written are every field, each checked as a change would be.
    if (const Expected<LiveSettings> settings = LiveSettings::withChanges({}, stats.value(u"settings"_s).toObject());
        settings.ok())
        s.settings = settings.value();
    s.admissionPaused = stats.value(u"admissionPaused"_s).toBool();
    s.sharedState = stats.value(u"sharedState"_s).toString().toLatin1();
    s.sharedStateDegradations = stats.value(u"sharedStateDegradations"_s).toInt();
    s.fleet = FleetView::fromJson(stats.value(u"fleet"_s).toObject());
    for (const QJsonValue &f : stats.value(u"faults"_s).toArray()) {
        if (const std::optional<FaultRule> rule = faultFromJson(f.toObject(), s.steadyMs))
            s.faults.append(*rule);
    }
    const QJsonObject injected = stats.value(u"faultsInjected"_s).toObject();
    for (auto outer = injected.begin(); outer != injected.end(); ++outer) {
        const QJsonObject inner = outer.value().toObject();
        for (auto it = inner.begin(); it != inner.end(); ++it)
            s.faultsInjected.insert({outer.key().toUtf8(), it.key().toUtf8()}, quint64(it.value().toInteger()));
    }
    for (const QJsonValue &f : stats.value(u"flights"_s).toArray())
        s.flights.append(flightFromJson(f.toObject()));
    s.flightsOmitted = stats.value(u"flightsOmitted"_s).toInt();
    return s;
}
