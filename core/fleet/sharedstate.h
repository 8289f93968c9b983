#pragma once

#include <QJsonObject>
#include <QList>
#include <QObject>

#include "fleet/redistarget.h"

class CircuitBreaker;
class FaultInjector;
class FleetBreaker;
class FleetFaults;
class FleetFlights;
class FleetRoster;
class FleetSpend;
class RedisLink;
class SharedAnswers;

// Everything one Breakwater shares with the others of its fleet through one Redis
// (--shared-state): the answers (sharedanswers.h), the flights (fleetflights.h), the fault rules (fleetfaults.h), the breakers (fleetbreaker.h), the spend cap (fleetspend.h), the
// fleet view (fleetroster.h) and the link's health (redislink.h). What the proxy calls; made only when --shared-state is given, so the
// single-process path has no fleet code on it. Lives on the proxy thread.
class SharedState final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(SharedState)
public:
    explicit SharedState(const RedisTarget &target, QObject *parent = nullptr);
    ~SharedState() override;

    void start();
    void shareBreaker(CircuitBreaker &breaker);
    void shareFaults(FaultInjector &faults);

    bool isShared() const;
    SharedAnswers &answers() { return *m_answers; }
    FleetSpend &spend() { return *m_spend; }
    FleetFlights &flights() { return *m_flights; }
    FleetFaults *faults() { return m_faults; }   // null until shareFaults
    FleetRoster &roster() { return *m_roster; }
    RedisLink &link() { return *m_link; }
    // /healthz: shared_state "shared" or "degraded", and why.
    QJsonObject healthJson() const;

private:
    RedisLink *m_link = nullptr;
    SharedAnswers *m_answers = nullptr;
    FleetSpend *m_spend = nullptr;
    FleetFlights *m_flights = nullptr;
    FleetFaults *m_faults = nullptr;
    FleetRoster *m_roster = nullptr;
    QList<FleetBreaker *> m_breakers;
};
