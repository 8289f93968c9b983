#include "fleet/fleetfaults.h"

#include <QLoggingCategory>
#include <QRandomGenerator>

#include "faults/faultinjector.h"
#include "fleet/redislink.h"

Q_LOGGING_CATEGORY(lcFleetFaults, "breakwater.fleet.faults", QtInfoMsg)

FleetFaults::FleetFaults(RedisLink &link, FaultInjector &faults, QObject *parent)
    : QObject(parent), m_link(link), m_faults(faults)
{
    m_timer.setInterval(kReadEvery);
    connect(&m_timer, &QTimer::timeout, this, &FleetFaults::read);
    connect(&m_faults, &FaultInjector::disarmed, this, &FleetFaults::withdraw);
    // Back from degraded: what changed meanwhile, at once.
    connect(&m_link, &RedisLink::sharedChanged, this, [this](bool shared) {
        if (shared)
            read();
    });
}

void FleetFaults::start()
{
    m_timer.start();
}

bool FleetFaults::isShared() const
{
    return m_link.isShared();
}

FaultRule FleetFaults::arm(FaultRule rule)
{
    rule.fleetId = m_link.instanceId() + ':' + QByteArray::number(QRandomGenerator::system()->generate64(), 16);
    m_seen.insert(rule.fleetId);
    m_link.command({"HSET", kHashKey.toByteArray(), rule.fleetId, rule.text().toUtf8()}, this, [](const RedisReply &) {});
    qCInfo(lcFleetFaults).noquote() << "armed for the fleet:" << rule.text();
    return m_faults.arm(rule);
}

void FleetFaults::withdraw(const FaultRule &rule)
{
    if (!rule.fleetId.isEmpty())
        m_link.command({"HDEL", kHashKey.toByteArray(), rule.fleetId}, this, [](const RedisReply &) {});
}

void FleetFaults::read()
{
    m_link.command({"HGETALL", kHashKey.toByteArray()}, this, [this](const RedisReply &reply) {
        if (reply.kind != RedisReply::Kind::Array)
            return;   // Redis unavailable: keep what is armed
        QSet<QByteArray> inHash;
        for (qsizetype i = 0; i + 1 < reply.items.size(); i += 2) {
            const QByteArray &id = reply.items[i].text;
            inHash.insert(id);
            if (m_seen.contains(id))
                continue;
            m_seen.insert(id);
            Expected<FaultRule> rule = FaultRule::parse(QString::fromUtf8(reply.items[i + 1].text));
            if (!rule.ok()) {
                qCWarning(lcFleetFaults).noquote() << "a fleet fault rule this version cannot read:" << rule.error();
                continue;
            }
            FaultRule armed = rule.value();
            armed.fleetId = id;
            qCInfo(lcFleetFaults).noquote() << "armed from the fleet:" << armed.text();
            m_faults.arm(armed);
        }
        for (const FaultRule &rule : m_faults.rules()) {
            if (!rule.fleetId.isEmpty() && !inHash.contains(rule.fleetId))
                m_faults.disarm(rule.id);
        }
        m_seen.intersect(inHash);
    });
}
