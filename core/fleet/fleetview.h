#pragma once

#include <QByteArray>
#include <QJsonObject>
#include <QList>
#include <QString>

// One instance of the fleet as the fleet view lists it: what it says of itself in its heartbeat
// key (bw:v1:instance:<id>, written every RedisLink::kHeartbeat) and how fresh that key is.
struct FleetInstance
{
    QByteArray id;               // "<pid>-<random>": unique per process
    QString label;               // "host:port" it listens on
    qint64 calls = 0;            // upstream calls it made
    qint64 requests = 0;         // client requests it answered
    qint64 joined = 0;
    qint64 misses = 0;
    qint64 hits = 0;
    qint64 lastSeenMs = 0;       // wall clock of its newest heartbeat, by its own clock
    qint64 ageMs = 0;            // since its newest heartbeat, by Redis's clock (no skew between hosts)
    bool alive = true;           // its heartbeat is recent (a late one is listed until its key expires)
    bool self = false;           // this instance

    // The heartbeat key's value: small, so every instance can read every other one each second.
    QByteArray toHeartbeat() const;
    static FleetInstance fromHeartbeat(const QByteArray &id, const QByteArray &value);
    bool operator==(const FleetInstance &) const = default;   // ProxySnapshot::sameFigures
};

// What the dashboard, the tray and /breakwater/stats say of the fleet (--shared-state only): the
// live instances, this one first, and what they did together. While Redis is degraded only this
// instance is listed: the others may be alive, but nothing here can tell.
struct FleetView
{
    bool enabled = false;        // --shared-state given
    bool shared = false;         // false: degraded, local only
    QString reason;              // why it is degraded
    QList<FleetInstance> instances;

    struct Totals
    {
        int instances = 0;
        qint64 calls = 0;
        qint64 requests = 0;
        qint64 joined = 0;
        qint64 misses = 0;
        qint64 hits = 0;
    };
    Totals totals() const;   // over the listed instances
    const FleetInstance *self() const;

    // The "fleet" object of /breakwater/stats, and back (breakwater --attach).
    QJsonObject toJson() const;
    static FleetView fromJson(const QJsonObject &json);
    bool operator==(const FleetView &) const = default;
};
