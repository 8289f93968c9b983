#pragma once

#include "upstream/upstreamcall.h"

#include <QElapsedTimer>
#include <QHash>
#include <QByteArray>
#include <QObject>

#include <atomic>
#include <chrono>
#include <deque>
#include <memory>

class Exchange;
class UpstreamEngine;

// Admission control for one upstream: at most `concurrency` exchanges run at once; calls beyond
// that wait in a first-come queue of at most `maxQueued`, and the wait is reported with `started`.
// A full queue refuses new calls. Running an exchange is the engine's business (upstreamengine.h):
// a call in flight costs a socket and a buffer on one of the engine's event loops, not a thread,
// so the count is a promise to the provider (and to the user's rate limits), not a thread budget.
//
// An exchange sends its request at most once, except that a connection refused before anything
// was sent is tried once more after `refusedRetryDelay` (the engine does that, and counts it here).
//
// Created and used on one thread (the proxy thread). The engine is shared with other pools (the
// proxy's) or, when none is given, the pool's own (one event loop). Destroying the pool ends every
// exchange still running as Shutdown, without waiting.
class UpstreamPool final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(UpstreamPool)
public:
    UpstreamPool(const QString &name, int concurrency, int maxQueued, QObject *parent = nullptr);
    UpstreamPool(const QString &name, int concurrency, int maxQueued, std::shared_ptr<UpstreamEngine> engine,
                 QObject *parent = nullptr);
    ~UpstreamPool() override;

    // Starts an exchange; the returned call (parented to `owner`) reports its progress.
    // Returns nullptr when `maxQueued` calls are already waiting.
    UpstreamCall *submit(const UpstreamRequest &request, QObject *owner);
    // Starts an exchange at once, outside the count and the queue: for the breaker's probe, one
    // small GET while the calls it checks on may fill the pool.
    UpstreamCall *submitUncounted(const UpstreamRequest &request, QObject *owner);

    // Ends every exchange, running or queued, as UpstreamFailure::Shutdown, and every later one at
    // once. For the end of a drain.
    void stop();
    bool isStopping() const { return m_stopping; }

    QString name() const { return m_name; }
    int concurrency() const { return m_concurrency; }
    // A live change: raised, queued exchanges start at once; lowered, running ones finish and no
    // new one starts until fewer than `concurrency` run.
    void setConcurrency(int concurrency);
    int running() const { return m_running; }
    int queued() const { return int(m_queue.size()); }
    // Connections refused and tried once more, since the pool was made.
    int refusedRetries() const { return m_refusedRetries->load(); }
    // For exchanges submitted from now on; 200 ms unless set.
    void setRefusedRetryDelay(std::chrono::milliseconds delay) { m_refusedRetryDelay = delay; }
    // What the upstream's latest answer came over ("HTTP/2", "HTTP/1.1"); empty before any.
    QByteArray protocol() const { return m_protocol; }
    UpstreamEngine &engine() const { return *m_engine; }

private:
    struct Waiting
    {
        std::shared_ptr<Exchange> exchange;
        QElapsedTimer since;
    };

    std::shared_ptr<Exchange> newExchange(const UpstreamRequest &request, UpstreamCall *call);
    void run(const std::shared_ptr<Exchange> &exchange, qint64 waitedMs, bool counted);
    void startWaiting();
    void interrupt(Exchange *exchange, UpstreamFailure why);
    void release(Exchange *exchange);

    QString m_name;
    int m_concurrency = 1;
    int m_maxQueued = 0;
    int m_running = 0;
    bool m_stopping = false;
    std::chrono::milliseconds m_refusedRetryDelay{200};
    std::shared_ptr<std::atomic<int>> m_refusedRetries = std::make_shared<std::atomic<int>>(0);
    QByteArray m_protocol;
    std::shared_ptr<UpstreamEngine> m_engine;
    std::deque<Waiting> m_queue;
    struct Started
    {
        std::shared_ptr<Exchange> exchange;
        bool counted = true;   // false for submitUncounted
    };
    // Every exchange started and not finished: what stop() and the destructor end.
    QHash<Exchange *, Started> m_started;
};
