#pragma once

#include "upstream/curlsettings.h"

#include <QHash>
#include <QMetaObject>
#include <QMutex>
#include <QObject>
#include <QTimer>

#include <atomic>
#include <memory>
#include <vector>

#include <curl/curl.h>

class CurlTransfer;
class Exchange;
class SocketWatch;

// One event loop's share of the upstream calls: a libcurl multi handle driven by this thread's Qt
// event loop. curl's sockets sit in one SocketWatch (epoll behind one notifier), its timer is one
// single-shot QTimer; every libcurl call is made from a slot of this object, never from inside a
// libcurl callback (curl_multi_remove_handle.3: CURLM_RECURSIVE_API_CALL), and the timer callback
// only arms the QTimer, even for 0 ms (CURLMOPT_TIMERFUNCTION.3).
//
// Connections, TLS sessions and HTTP/2 multiplexing live in the multi handle, so all calls to one
// origin run on the same loop (CurlEngine decides which).
//
// Created, used and destroyed on its loop's thread; other threads reach it with queued calls
// through `post`, which is safe until the loop is gone.
class CurlLoop final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(CurlLoop)
public:
    // What happened on this loop since it started, for tests and the bench.
    struct Counts
    {
        std::atomic<int> interestIn{0}, interestOut{0}, interestInOut{0}, interestRemove{0};
        std::atomic<int> pauses{0}, resumes{0};
        std::atomic<int> deliveries{0};      // posts of headers and body to calls (one a turn each)
        std::atomic<qint64> mostUndelivered{0};   // bytes posted to one call and not yet heard there, at most
        std::atomic<int> transfers{0};       // in progress now
        std::atomic<int> mostTransfers{0};
    };

    // A way in from other threads that outlives the loop: posting after the loop ended does nothing.
    class Mailbox
    {
    public:
        explicit Mailbox(CurlLoop *loop) : m_loop(loop) {}
        template <typename F>
        void post(F &&f)
        {
            QMutexLocker lock(&m_mutex);
            if (m_loop)
                QMetaObject::invokeMethod(m_loop, [loop = m_loop, f = std::forward<F>(f)] { f(loop); }, Qt::QueuedConnection);
        }
        void close()
        {
            QMutexLocker lock(&m_mutex);
            m_loop = nullptr;
        }

    private:
        QMutex m_mutex;
        CurlLoop *m_loop;
    };

    CurlLoop(const CurlSettings &settings, std::shared_ptr<Counts> counts, QObject *parent = nullptr);
    ~CurlLoop() override;

    const std::shared_ptr<Mailbox> &mailbox() const { return m_mailbox; }

    void add(const std::shared_ptr<Exchange> &exchange);
    // Ends the exchange's transfer now; false if this loop has none for it.
    bool interrupt(const std::shared_ptr<Exchange> &exchange);
    int transferCount() const { return int(m_byId.size()); }

private:
    static int onSocket(CURL *easy, curl_socket_t fd, int what, void *self, void *socketData);
    static int onTimer(CURLM *multi, long timeoutMs, void *self);

    void act(curl_socket_t fd, int mask);
    void collectDone();
    void deliverNews();
    void start(CurlTransfer *transfer);
    void end(CurlTransfer *transfer, CURLcode code);
    void resume(quint64 id);
    void gapExpired(CurlTransfer *transfer);

    CurlSettings m_settings;
    std::shared_ptr<Counts> m_counts;
    std::shared_ptr<Mailbox> m_mailbox;
    CURLM *m_multi = nullptr;
    SocketWatch *m_sockets = nullptr;
    QTimer m_curlTimer;
    quint64 m_nextId = 1;
    QHash<Exchange *, CurlTransfer *> m_byExchange;
    QHash<quint64, CurlTransfer *> m_byId;
    std::vector<CurlTransfer *> m_withNews;   // got something this turn: delivered when it ends
    bool m_acting = false;    // inside curl_multi_socket_action (a guard for the glue's own bugs)
};
