#include "fleet/sharedstate.h"

#include <QCoreApplication>
#include <QRandomGenerator>

#include "fleet/fleetbreaker.h"
#include "fleet/fleetfaults.h"
#include "fleet/fleetflights.h"
#include "fleet/fleetroster.h"
#include "fleet/fleetspend.h"
#include "fleet/redislink.h"
#include "fleet/sharedanswers.h"

using namespace Qt::StringLiterals;

namespace {
// Names this instance's heartbeat key: unique per process, stable for its life.
QByteArray newInstanceId()
{
    return QByteArray::number(QCoreApplication::applicationPid()) + '-'
         + QByteArray::number(QRandomGenerator::system()->generate64(), 16);
}
} // namespace

SharedState::SharedState(const RedisTarget &target, QObject *parent)
    : QObject(parent),
      m_link(new RedisLink(target, newInstanceId(), this)),
      m_answers(new SharedAnswers(*m_link, this)),
      m_spend(new FleetSpend(*m_link, this)),
      m_flights(new FleetFlights(*m_link, this)),
      m_roster(new FleetRoster(*m_link, this))
{
}

SharedState::~SharedState() = default;

void SharedState::start()
{
    m_link->start();
    m_roster->start();
    if (m_faults)
        m_faults->start();
}

void SharedState::shareFaults(FaultInjector &faults)
{
    m_faults = new FleetFaults(*m_link, faults, this);
}

void SharedState::shareBreaker(CircuitBreaker &breaker)
{
    m_breakers.append(new FleetBreaker(*m_link, breaker, this));
}

bool SharedState::isShared() const
{
    return m_link->isShared();
}

QJsonObject SharedState::healthJson() const
{
    QJsonObject health{{u"shared_state"_s, m_link->isShared() ? u"shared"_s : u"degraded"_s},
                       {u"shared_state_target"_s, m_link->target().display()}};
    if (!m_link->isShared())
        health.insert(u"shared_state_reason"_s, m_link->degradedReason());
    return health;
}
