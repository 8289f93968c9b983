#include "faults/faultinjector.h"

#include <algorithm>
#include <utility>

#include <QLoggingCategory>
#include <QRandomGenerator>

#include "clock.h"
#include "faults/faultcall.h"
#include "upstream/upstreampool.h"

Q_LOGGING_CATEGORY(lcFaults, "breakwater.faults", QtInfoMsg)

FaultInjector::FaultInjector(const Clock &clock, QObject *parent) : QObject(parent), m_clock(clock)
{
}

FaultRule FaultInjector::arm(FaultRule rule)
{
    rule.id = m_nextId++;
    rule.fired = 0;
    rule.expiresAtMs = rule.lifetime.count() > 0 ? m_clock.steadyMs() + rule.lifetime.count() : 0;
    m_rules.append(rule);
    qCInfo(lcFaults).noquote() << "armed fault rule" << rule.label();
    Q_EMIT rulesChanged();
    return rule;
}

bool FaultInjector::disarm(int id)
{
    const auto found = std::find_if(m_rules.cbegin(), m_rules.cend(), [id](const FaultRule &rule) { return rule.id == id; });
    if (found == m_rules.cend())
        return false;
    const FaultRule rule = *found;
    m_rules.erase(found);
    qCInfo(lcFaults) << "disarmed fault rule" << id;
    Q_EMIT disarmed(rule);
    Q_EMIT rulesChanged();
    return true;
}

int FaultInjector::clear()
{
    const QList<FaultRule> rules = std::exchange(m_rules, {});
    if (!rules.isEmpty()) {
        qCInfo(lcFaults) << "disarmed every fault rule:" << rules.size();
        for (const FaultRule &rule : rules)
            Q_EMIT disarmed(rule);
        Q_EMIT rulesChanged();
    }
    return int(rules.size());
}

QList<FaultRule> FaultInjector::rules()
{
    dropFinished();
    return m_rules;
}

void FaultInjector::dropFinished()
{
    const qint64 now = m_clock.steadyMs();
    const qsizetype removed = m_rules.removeIf([now](const FaultRule &rule) {
        if (!rule.isExpired(now) && !rule.isSpent())
            return false;
        qCInfo(lcFaults).noquote() << "fault rule" << rule.label() << (rule.isSpent() ? "has fired its count" : "expired");
        return true;
    });
    if (removed > 0)
        Q_EMIT rulesChanged();
}

bool FaultInjector::matches(const FaultRule &rule, const Target &target) const
{
    return (rule.upstream.isEmpty() || rule.upstream == target.upstream)
        && (rule.route.isEmpty() || rule.route == target.route)
        && (rule.model.isEmpty() || rule.model == target.model)
        && (!rule.needsStream() || target.stream);
}

FaultInjector::Submitted FaultInjector::submit(UpstreamPool &pool, const UpstreamRequest &request,
                                               const Target &target, QObject *owner)
{
    if (m_rules.isEmpty())
        return {pool.submit(request, owner), {}};
    dropFinished();
    for (FaultRule &rule : m_rules) {
        if (!matches(rule, target))
            continue;
        // p=100 always fires (generateDouble() < 1), p=0 never.
        if (rule.percent < 100 && QRandomGenerator::global()->generateDouble() * 100 >= rule.percent)
            continue;
        UpstreamCall *call = FaultCall::play(rule, {target.style, target.route, m_clock.wallMs(), target.passThrough},
                                             request, pool, owner);
        if (!call)
            return {};   // the pool's queue is full: refused as any call would be, nothing fired
        ++rule.fired;
        ++m_injected[{target.upstream, rule.kindName()}];
        const QString label = rule.label();
        qCDebug(lcFaults).noquote() << "injecting" << label << "into" << target.route;
        dropFinished();   // a spent count disarms the rule now, so the list shows it gone
        return {call, label, rule.shapesRealCall()};
    }
    return {pool.submit(request, owner), {}};
}
