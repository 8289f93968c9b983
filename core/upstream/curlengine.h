#pragma once

#include "upstream/curlloop.h"
#include "upstream/curlsettings.h"
#include "upstream/upstreamengine.h"

#include <QHash>
#include <QMutex>
#include <QThreadPool>

#include <atomic>
#include <memory>
#include <vector>

// The upstream engine: a few event loops (CurlLoop, at most one per core) hosted as long-lived
// jobs on the engine's QThreadPool, each driving many calls at once with libcurl's multi interface.
// A call in flight costs a socket and a buffer on a loop, not a thread.
//
// Calls are sharded by origin (scheme, host, port): every call to one provider runs on the same
// loop, so its connections are reused and, over HTTP/2, multiplexed by one multi handle; the loops
// are handed to origins in turn as each is first seen (the OpenAI and the Anthropic upstream get
// different loops). A loop starts on the first call that needs it.
//
// Used from any thread (the proxy's, the replayer's); its loops post to each call on the call's
// own thread. Destroying it ends what still runs as Shutdown and waits for its loops.
class CurlEngine final : public UpstreamEngine
{
public:
    struct Options
    {
        int loops = 1;
        QByteArray caPem;   // extra certificate authorities (--ca-file's contents), besides the system's
        bool homeLoop = false;   // a loop on the building thread too, for its calls while it is idle
    };

    explicit CurlEngine(const Options &options);
    ~CurlEngine() override;
    CurlEngine(const CurlEngine &) = delete;
    CurlEngine &operator=(const CurlEngine &) = delete;

    void start(const std::shared_ptr<Exchange> &exchange) override;
    void interrupt(const std::shared_ptr<Exchange> &exchange) override;
    QString name() const override { return QStringLiteral("curl"); }

    int loopCount() const { return int(m_loops.size()); }
    // Calls the home loop took so far (0 without one).
    int homeCalls() const { return m_homeCalls.load(); }
    // What happened on every loop so far, for tests and the bench.
    const CurlLoop::Counts &counts() const { return *m_counts; }
    const CurlSettings &settings() const { return m_settings; }

private:
    struct Loop
    {
        std::shared_ptr<CurlLoop::Mailbox> mailbox;   // set once the loop runs
        QObject *eventLoop = nullptr;
    };

    CurlLoop::Mailbox &loopFor(const QUrl &url);
    CurlLoop::Mailbox *runningLoopFor(const QUrl &url);
    int loopIndexFor(const QUrl &url);
    CurlLoop *homeLoopHere() const;   // the home loop if the caller is on its thread

    CurlSettings m_settings;
    std::shared_ptr<CurlLoop::Counts> m_counts = std::make_shared<CurlLoop::Counts>();
    QThreadPool m_threads;
    QMutex m_mutex;                       // guards what follows
    std::vector<Loop> m_loops;
    QHash<QString, int> m_loopOfOrigin;
    std::unique_ptr<CurlLoop> m_home;     // homeLoop: lives on the building thread
    std::atomic<int> m_homeCalls{0};
};
