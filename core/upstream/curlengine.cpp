#include "upstream/curlengine.h"

#include <mutex>

#include <QEventLoop>
#include <QRunnable>
#include <QSemaphore>
#include <QThread>

namespace {

// Runs one loop for as long as the engine lives.
class LoopJob final : public QRunnable
{
public:
    LoopJob(const CurlSettings &settings, std::shared_ptr<CurlLoop::Counts> counts,
            std::shared_ptr<CurlLoop::Mailbox> *mailbox, QObject **eventLoop, QSemaphore *ready)
        : m_settings(settings), m_counts(std::move(counts)), m_mailbox(mailbox), m_eventLoop(eventLoop),
          m_ready(ready)
    {
    }

    void run() override
    {
        QEventLoop eventLoop;
        {
            CurlLoop loop(m_settings, m_counts);
            *m_mailbox = loop.mailbox();
            *m_eventLoop = &eventLoop;
            m_ready->release();
            eventLoop.exec();
        }   // the loop ends what is left before its thread goes back to the pool
    }

private:
    CurlSettings m_settings;
    std::shared_ptr<CurlLoop::Counts> m_counts;
    std::shared_ptr<CurlLoop::Mailbox> *m_mailbox;
    QObject **m_eventLoop;
    QSemaphore *m_ready;
};

} // namespace

CurlEngine::CurlEngine(const Options &options)
    : m_settings(CurlSettings::make(options.caPem)), m_loops(size_t(qMax(1, options.loops)))
{
    static std::once_flag once;
    std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
    m_threads.setObjectName(QStringLiteral("upstream engine"));
    m_threads.setMaxThreadCount(int(m_loops.size()));
    m_threads.setExpiryTimeout(-1);
    if (options.homeLoop)
        m_home = std::make_unique<CurlLoop>(m_settings, m_counts);
}

CurlEngine::~CurlEngine()
{
    if (m_home && m_home->thread() != QThread::currentThread())
        m_home.release()->deleteLater();   // its sockets and timers belong to its thread
    m_home.reset();
    for (const Loop &loop : m_loops) {
        if (loop.mailbox) {
            QObject *eventLoop = loop.eventLoop;
            loop.mailbox->post([eventLoop](CurlLoop *) { static_cast<QEventLoop *>(eventLoop)->quit(); });
        }
    }
    m_threads.waitForDone();
}

// Called with m_mutex held.
int CurlEngine::loopIndexFor(const QUrl &url)
{
    const QString origin = url.scheme() + u"://" + url.host() + u':' + QString::number(url.port(url.scheme() == u"https" ? 443 : 80));
    auto it = m_loopOfOrigin.find(origin);
    if (it == m_loopOfOrigin.end())
        it = m_loopOfOrigin.insert(origin, int(m_loopOfOrigin.size() % m_loops.size()));
    return *it;
}

CurlLoop::Mailbox &CurlEngine::loopFor(const QUrl &url)
{
    QMutexLocker lock(&m_mutex);
    Loop &loop = m_loops[size_t(loopIndexFor(url))];
    if (!loop.mailbox) {
        QSemaphore ready;
        m_threads.start(new LoopJob(m_settings, m_counts, &loop.mailbox, &loop.eventLoop, &ready));
        ready.acquire();
    }
    return *loop.mailbox;
}

// The origin's pool loop if it has started (else nothing can be running there).
CurlLoop::Mailbox *CurlEngine::runningLoopFor(const QUrl &url)
{
    QMutexLocker lock(&m_mutex);
    return m_loops[size_t(loopIndexFor(url))].mailbox.get();
}

CurlLoop *CurlEngine::homeLoopHere() const
{
    return m_home && m_home->thread() == QThread::currentThread() ? m_home.get() : nullptr;
}

void CurlEngine::start(const std::shared_ptr<Exchange> &exchange)
{
    if (CurlLoop *home = homeLoopHere(); home && home->transferCount() == 0) {
        m_homeCalls.fetch_add(1);
        home->add(exchange);   // reports to the call only by posts, so nothing runs inside this
        return;
    }
    loopFor(exchange->request.url).post([exchange](CurlLoop *loop) { loop->add(exchange); });
}

void CurlEngine::interrupt(const std::shared_ptr<Exchange> &exchange)
{
    if (CurlLoop *home = homeLoopHere(); home && home->interrupt(exchange))
        return;
    if (CurlLoop::Mailbox *loop = runningLoopFor(exchange->request.url))
        loop->post([exchange](CurlLoop *running) { running->interrupt(exchange); });
}
