#pragma once

#include <QList>
#include <QObject>
#include <QTimer>

#include <functional>

#include "fleet/fleetview.h"

class RedisLink;

// The fleet view (--shared-state): which instances are alive and what each did. This instance's
// figures ride on its heartbeat key (RedisLink writes it every kHeartbeat with a TTL of a few), and
// every kReadInterval one script lists the live instances' keys back (bw:v1:instances holds their
// ids; an id whose key expired leaves it there). Reads run on this timer only, never on a client
// request's path, and within the link's command deadline; while the link is degraded nothing is
// sent and the view lists only this instance. Lives on the proxy thread.
class FleetRoster final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(FleetRoster)
public:
    static constexpr std::chrono::milliseconds kReadInterval{1000};

    explicit FleetRoster(RedisLink &link, QObject *parent = nullptr);

    // What this instance says of itself (figures and label; id, time and the rest are filled in
    // here), asked for every heartbeat and every view, on this thread.
    void setOwnFigures(std::function<FleetInstance()> own);
    void start();

    // The live instances, this one first (with its figures of now), then the others by label.
    FleetView view() const;
    int reads() const { return m_reads; }   // answered reads so far

private:
    FleetInstance own() const;
    void read();

    RedisLink &m_link;
    std::function<FleetInstance()> m_own;
    QList<FleetInstance> m_others;   // from the newest answered read
    QTimer m_timer;
    int m_reads = 0;
};
