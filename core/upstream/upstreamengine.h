#pragma once

#include "upstream/upstreamcall.h"

#include <QMetaObject>
#include <QMutex>
#include <QString>

#include <atomic>
#include <chrono>
#include <memory>

// The seam between admission (UpstreamPool: how many calls run, who waits) and the wire (an
// engine: how a call reaches the upstream). An engine runs every exchange it is given at once, on
// threads of its own, and reports to the exchange's UpstreamCall through queued calls to the
// call's thread: headersReceived, bodyReceived..., then finished, exactly once and last. The pool
// posts `started` itself before it hands the exchange over.
//
// The production engine is CurlEngine (curlengine.h); the bench also builds Qt network-manager
// engines behind this interface to compare them (bench/qnamengines.h).

// One admitted exchange, shared by the pool (on the call's thread) and the engine's thread.
class Exchange final
{
    Q_DISABLE_COPY_MOVE(Exchange)
public:
    Exchange(UpstreamRequest request, UpstreamCall *call, std::chrono::milliseconds refusedRetryDelay,
             std::shared_ptr<std::atomic<int>> refusedRetries)
        : request(std::move(request)), refusedRetryDelay(refusedRetryDelay),
          refusedRetries(std::move(refusedRetries)), m_call(call)
    {
    }

    const UpstreamRequest request;
    const std::chrono::milliseconds refusedRetryDelay;   // a refused connection is tried once more after this
    const std::shared_ptr<std::atomic<int>> refusedRetries;   // the pool's count of such second tries

    // Why the exchange must end now (Cancelled or Shutdown), or None. Set on the call's thread,
    // read on the engine's.
    std::atomic<UpstreamFailure> stop{UpstreamFailure::None};
    // What the answer came over ("HTTP/2", "HTTP/1.1"), written by the engine before it posts
    // `finished` (so read safely once that is heard); empty when no answer came.
    QByteArray protocol;

    // Runs `f(call)` on the call's thread, unless the call is gone (deleted with its owner). Any
    // thread. Posts of one thread arrive in order, so `finished` posted last is heard last.
    template <typename F>
    void post(F &&f)
    {
        QMutexLocker lock(&m_mutex);
        if (m_call)
            QMetaObject::invokeMethod(m_call, [call = m_call, f = std::forward<F>(f)] { f(call); }, Qt::QueuedConnection);
    }
    // The call's thread, when the call is destroyed: nothing is posted to it after this returns (and
    // Qt drops what was posted before, with the object).
    void forgetCall()
    {
        QMutexLocker lock(&m_mutex);
        m_call = nullptr;
    }

private:
    QMutex m_mutex;
    UpstreamCall *m_call;
};

class UpstreamEngine
{
public:
    virtual ~UpstreamEngine() = default;

    // Starts the exchange now. Called on the call's thread.
    virtual void start(const std::shared_ptr<Exchange> &exchange) = 0;
    // Asks a started exchange to end now as `exchange->stop` says; it still posts `finished`.
    // Called on the call's thread; nothing happens if it has ended already.
    virtual void interrupt(const std::shared_ptr<Exchange> &exchange) = 0;
    // What the engine is, for the bench ("curl", ...).
    virtual QString name() const = 0;
};
