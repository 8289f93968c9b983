#pragma once

// The load the bench's scenarios share: keep-alive clients of the one raw loopback client, run on a
// thread of their own, and what they recorded.

#include "loopbackclient.h"
#include "proxyharness.h"

#include <QList>
#include <QMap>

#include <chrono>
#include <functional>

double percentile(QList<qint64> values, double p);

// The raw bytes of a chat request, as an OpenAI SDK would send them on a keep-alive connection.
QByteArray chatRequest(quint16 port, const QByteArray &body);
LoopbackClient::RequestMaker sameRequest(const QByteArray &request);
// A different chat request every time: the prompt carries the connection's tag and a zero-padded
// counter, so no two requests share a de-dup key and every body has the same length.
LoopbackClient::RequestMaker distinctRequests(quint16 port, int tag, const HeaderList &extraHeaders = {});
// The same, streamed ("stream": true).
LoopbackClient::RequestMaker distinctStreams(quint16 port, int tag);

// What a run of keep-alive clients recorded.
struct Load
{
    QList<qint64> tripsNs;
    QList<qint64> firstChunksNs;       // streams: request to first chunk
    int failures = 0;                  // answers that were not 200, and clients that gave up (warm-up included)
    QMap<QByteArray, qint64> dedup;    // answers per x-breakwater-dedup value (warm-up included)
    double seconds = 0;                // the measured part
    bool timedOut = false;

    double p50Ms() const { return percentile(tripsNs, 0.5) / 1e6; }
    double p99Ms() const { return percentile(tripsNs, 0.99) / 1e6; }

    void collect(const LoopbackClient *client)
    {
        tripsNs += client->roundTripsNs();
        firstChunksNs += client->firstChunksNs();
        failures += client->failures();
        for (auto it = client->dedupCounts().begin(); it != client->dedupCounts().end(); ++it)
            dedup[it.key()] += it.value();
    }
    // Another run's records after these (its measured seconds added to these).
    void add(const Load &other)
    {
        tripsNs += other.tripsNs;
        firstChunksNs += other.firstChunksNs;
        failures += other.failures;
        for (auto it = other.dedup.begin(); it != other.dedup.end(); ++it)
            dedup[it.key()] += it.value();
        seconds += other.seconds;
        timedOut = timedOut || other.timedOut;
    }
    QByteArray dedupText() const
    {
        QByteArrayList parts;
        for (auto it = dedup.begin(); it != dedup.end(); ++it)
            parts.append((it.key().isEmpty() ? QByteArray("(none)") : it.key()) + ' ' + QByteArray::number(it.value()));
        return parts.join(", ");
    }
};

// `connections` keep-alive clients, each sending as fast as answers come for `warmUp` (not
// recorded) and then `duration`, on a thread of their own; the calling thread sleeps.
Load loadFor(quint16 port, int connections, const std::function<LoopbackClient::RequestMaker(int)> &requestsFor,
             std::chrono::milliseconds warmUp, std::chrono::milliseconds duration);
// One keep-alive client sending `warmUp + count` requests one after another; the first `warmUp`
// round trips are dropped. The calling thread blocks until the client is done.
Load sequentialLoad(quint16 port, const LoopbackClient::RequestMaker &requests, int warmUp, int count);
