#pragma once

#include "upstream/upstreamcall.h"

#include <QObject>
#include <QThreadPool>

#include <atomic>
#include <chrono>
#include <memory>

// The concurrency pool of one upstream: at most `concurrency` exchanges run at once, each on a pool
// thread with that thread's own QNetworkAccessManager (Qt 6.4 caps one manager at 6 connections
// per host, defaultHttpChannelCount in
// https://code.qt.io/cgit/qt/qtbase.git/tree/src/network/access/qhttpnetworkconnection.cpp?h=v6.4.2,
// so a shared manager would serialise the 7th call). Calls beyond the limit wait in the
// pool's queue, and the wait is reported with `started`. A full queue refuses new calls.
//
// An exchange sends its request at most once (Qt's own resend after a reset is refused, see
// OneShotBody), except that a connection refused before anything was sent is tried once more
// after `refusedRetryDelay`.
//
// Created and used on the proxy thread. Destroying it aborts running exchanges and waits for them.
class UpstreamPool final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(UpstreamPool)
public:
    UpstreamPool(const QString &name, int concurrency, int maxQueued, QObject *parent = nullptr);
    ~UpstreamPool() override;

    // Starts an exchange; the returned call (parented to `owner`) reports its progress.
    // Returns nullptr when `maxQueued` calls are already waiting.
    UpstreamCall *submit(const UpstreamRequest &request, QObject *owner);

    // Ends every exchange, running or queued, as UpstreamFailure::Shutdown (each within its 100 ms
    // stop poll), and every later one at once. For the end of a drain.
    void stop() { m_counters->stopping = true; }
    bool isStopping() const { return m_counters->stopping.load(); }

    QString name() const { return m_name; }
    int concurrency() const { return m_pool.maxThreadCount(); }
    // A live change: raised, queued exchanges start at once (QThreadPool starts threads for them);
    // lowered, running ones finish and no new one starts until fewer than `concurrency` run.
    void setConcurrency(int concurrency) { m_pool.setMaxThreadCount(qMax(1, concurrency)); }
    int running() const { return m_counters->running.load(); }
    int queued() const { return m_counters->queued.load(); }
    // Connections refused and tried once more, since the pool was made.
    int refusedRetries() const { return m_counters->refusedRetries.load(); }
    // For exchanges submitted from now on; 200 ms unless set.
    void setRefusedRetryDelay(std::chrono::milliseconds delay) { m_refusedRetryDelay = delay; }

    struct Counters
    {
        std::atomic<int> running{0};
        std::atomic<int> queued{0};
        std::atomic<int> refusedRetries{0};
        std::atomic<bool> stopping{false};
    };

private:
    QString m_name;
    int m_maxQueued = 0;
    std::chrono::milliseconds m_refusedRetryDelay{200};
    std::shared_ptr<Counters> m_counters = std::make_shared<Counters>();
    QThreadPool m_pool;
};
