#pragma once

#include "upstream/upstreamengine.h"

#include <QThreadPool>

#include <memory>

class QEventLoop;

// Engines built on Qt's network manager, kept only so the bench can measure them beside the
// CurlEngine in one run (`breakwater-bench engine`). Both send the body once (a device that refuses
// Qt's rewind) and split Qt's joined Set-Cookie lines, as the production engine of issue 22 did.
//
//  - ThreadPerCallEngine: the engine before issue 23. Each exchange is a QThreadPool job with that
//    thread's own QNetworkAccessManager, which starts one more thread of its own: two threads per
//    call in flight, and two queued hops per body piece before it reaches the proxy thread.
//  - SharedThreadEngine: the Qt-only fallback. One event loop on a pool thread holding
//    ceil(calls / 6) managers used in turn (Qt caps a manager at 6 connections per host), so one
//    thread per 6 calls in flight (each manager's own) plus the loop.
class ThreadPerCallEngine final : public UpstreamEngine
{
public:
    explicit ThreadPerCallEngine(int maxThreads);
    ~ThreadPerCallEngine() override;

    void start(const std::shared_ptr<Exchange> &exchange) override;
    void interrupt(const std::shared_ptr<Exchange> &) override {}   // polled every 100 ms, as it was
    QString name() const override { return QStringLiteral("thread per call (QNAM)"); }

private:
    QThreadPool m_pool;
};

class SharedThreadEngine final : public UpstreamEngine
{
public:
    explicit SharedThreadEngine(int managers);
    ~SharedThreadEngine() override;

    void start(const std::shared_ptr<Exchange> &exchange) override;
    void interrupt(const std::shared_ptr<Exchange> &exchange) override;
    QString name() const override { return QStringLiteral("shared thread (QNAMs)"); }

    class Loop;

private:
    QThreadPool m_pool;
    Loop *m_loop = nullptr;
    QEventLoop *m_eventLoop = nullptr;
};
