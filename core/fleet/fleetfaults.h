#pragma once

#include <QObject>
#include <QSet>
#include <QTimer>

#include <chrono>

#include "faults/faultrule.h"

class FaultInjector;
class RedisLink;

// Fault rules armed for the whole fleet (`breakwater fault add --fleet`, the Faults tab's "Whole
// fleet"), so a team rehearses one outage together. A fleet rule is a field of the hash
// `bw:v1:faults` (its fleet id -> its text); every instance reads the hash every kReadEvery and on
// the way arms each rule it has not seen yet in its own FaultInjector, and disarms its copy of each
// rule that left the hash. Each instance plays its copy as it would a local rule: count= is per
// instance and for= runs from when the instance armed it. A copy spent or expired here is not
// armed again. Disarming a fleet rule by hand on any instance takes it out of the hash, so off
// everywhere. Redis degraded: the rules armed stay armed, nothing new arrives. Proxy thread only.
class FleetFaults final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(FleetFaults)
public:
    static constexpr std::chrono::milliseconds kReadEvery{1000};
    static constexpr QByteArrayView kHashKey = "bw:v1:faults";

    FleetFaults(RedisLink &link, FaultInjector &faults, QObject *parent = nullptr);
    void start();
    bool isShared() const;   // a fleet rule can be armed now

    // Arms `rule` here at once (returned as armed, with its fleet id) and writes it for the others.
    FaultRule arm(FaultRule rule);

private:
    // A rule disarmed by hand here: a fleet rule leaves the hash, so every instance disarms its copy.
    void withdraw(const FaultRule &rule);
    void read();

    RedisLink &m_link;
    FaultInjector &m_faults;
    QSet<QByteArray> m_seen;   // fleet ids armed here once, while they are in the hash
    QTimer m_timer;
};
