#pragma once

#include <QByteArray>
#include <QList>
#include <QMetaType>

// Live figures of the proxy, published on the proxy thread a few times a second for the dashboard
// and the tray (values only, so the GUI thread never reaches into the proxy's state).
struct UpstreamSnapshot
{
    QByteArray name;             // openai, anthropic
    QByteArray breakerState;     // closed, open, half-open
    int running = 0;             // upstream calls in progress
    int queued = 0;              // calls waiting for a pool slot
    int concurrency = 0;
};

struct ProxySnapshot
{
    qint64 atMs = 0;             // wall clock
    QList<UpstreamSnapshot> upstreams;
    int flightsInProgress = 0;
    int cacheEntries = 0;
    qint64 cacheBytes = 0;
};
Q_DECLARE_METATYPE(ProxySnapshot)
