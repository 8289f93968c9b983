#include "upstream/upstreampool.h"

#include <QElapsedTimer>
#include <QEventLoop>
#include <QLoggingCategory>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QRunnable>
#include <QThreadStorage>
#include <QTimer>

#include "http/protocol.h"

Q_LOGGING_CATEGORY(lcUpstream, "breakwater.upstream", QtInfoMsg)

namespace {

// One manager per pool thread, deleted by Qt when the thread ends (QThreadStorage, unlike a
// thread_local, cleans up while the thread's Qt data still exists: QThreadStorageData::finish in
// https://code.qt.io/cgit/qt/qtbase.git/tree/src/corelib/thread/qthreadstorage.cpp?h=v6.4.2).
QNetworkAccessManager *threadManager()
{
    static QThreadStorage<QNetworkAccessManager *> managers;
    if (!managers.hasLocalData()) {
        auto *manager = new QNetworkAccessManager;
        manager->setRedirectPolicy(QNetworkRequest::ManualRedirectPolicy);
        managers.setLocalData(manager);
    }
    return managers.localData();
}

// Response headers that describe the connection or the encoding of this hop, not the answer.
// Qt has already removed the chunking and any compression, and we re-frame for our client.
bool isHopHeader(const QByteArray &lowerName)
{
    return isHopByHopHeader(lowerName) || lowerName == "content-length" || lowerName == "content-encoding";
}

UpstreamFailure transportFailure(QNetworkReply::NetworkError error)
{
    // Codes 1-199 are connection and proxy errors; 200 and up describe HTTP answers that did arrive.
    if (error == QNetworkReply::NoError || error >= 200)
        return UpstreamFailure::None;
    return UpstreamFailure::Unreachable;
}

class Exchange final : public QRunnable
{
public:
    Exchange(UpstreamRequest request, UpstreamCall *call,
             std::shared_ptr<UpstreamPool::Counters> counters)
        : m_request(std::move(request)), m_call(call), m_counters(std::move(counters))
    {
        m_queued.start();
    }

    void run() override
    {
        m_counters->queued.fetch_sub(1);
        m_counters->running.fetch_add(1);
        const UpstreamResult result = m_counters->stopping ? UpstreamResult{UpstreamFailure::Shutdown, {}, 0}
                                      : m_call->isCancelled() ? UpstreamResult{UpstreamFailure::Cancelled, {}, 0}
                                                              : exchange();
        m_counters->running.fetch_sub(1);
        post([call = m_call, result] { Q_EMIT call->finished(result); });
    }

private:
    // Queued onto the proxy thread. `m_call` outlives every post: it is deleted only after
    // `finished`, which is posted last.
    template <typename F>
    void post(F &&f)
    {
        QMetaObject::invokeMethod(m_call, std::forward<F>(f), Qt::QueuedConnection);
    }

    UpstreamResult exchange()
    {
        const qint64 waited = m_queued.elapsed();
        post([call = m_call, waited] { Q_EMIT call->started(waited); });

        QNetworkRequest request(m_request.url);
        for (const auto &[name, value] : m_request.headers)
            request.setRawHeader(name, value);
        QNetworkReply *reply = threadManager()->sendCustomRequest(request, m_request.method, m_request.body);

        QEventLoop loop;
        QTimer gapTimer;      // first byte, then every gap between pieces
        gapTimer.setSingleShot(true);
        QTimer stopPoll;      // notices shutdown while an upstream hangs
        bool timedOut = false;
        bool headersSent = false;

        auto sendHeaders = [&] {
            const QVariant status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute);
            if (headersSent || !status.isValid())
                return;
            headersSent = true;
            HeaderList headers;
            for (const auto &[name, value] : reply->rawHeaderPairs()) {
                if (!isHopHeader(name.toLower()))
                    headers.append({name, value});
            }
            post([call = m_call, code = status.toInt(), headers] { Q_EMIT call->headersReceived(code, headers); });
        };
        QObject::connect(reply, &QNetworkReply::metaDataChanged, &loop, [&] {
            gapTimer.start(m_request.timeout);
            sendHeaders();
        });
        QObject::connect(reply, &QNetworkReply::readyRead, &loop, [&] {
            gapTimer.start(m_request.timeout);
            sendHeaders();
            const QByteArray piece = reply->readAll();
            if (!piece.isEmpty())
                post([call = m_call, piece] { Q_EMIT call->bodyReceived(piece); });
        });
        QObject::connect(&gapTimer, &QTimer::timeout, &loop, [&] {
            timedOut = true;
            reply->abort();
        });
        QObject::connect(&stopPoll, &QTimer::timeout, &loop, [&] {
            if (m_counters->stopping || m_call->isCancelled())
                reply->abort();
        });
        QObject::connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
        gapTimer.start(m_request.timeout);
        stopPoll.start(100);
        if (!reply->isFinished())
            loop.exec();

        UpstreamResult result;
        const QNetworkReply::NetworkError error = reply->error();
        const bool cancelled = m_call->isCancelled();
        if (!timedOut && !m_counters->stopping && !cancelled) {
            // Bytes that came with the end (no readyRead for them) still belong to the answer.
            sendHeaders();
            const QByteArray rest = reply->readAll();
            if (!rest.isEmpty())
                post([call = m_call, rest] { Q_EMIT call->bodyReceived(rest); });
        }
        result.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        if (timedOut) {
            result.failure = UpstreamFailure::Timeout;
        } else if (m_counters->stopping) {
            result.failure = UpstreamFailure::Shutdown;
        } else if (cancelled) {
            result.failure = UpstreamFailure::Cancelled;
        } else if (transportFailure(error) != UpstreamFailure::None || (result.status == 0 && error != QNetworkReply::NoError)) {
            result.failure = headersSent ? UpstreamFailure::Cut : UpstreamFailure::Unreachable;
            result.detail = reply->errorString();
        }
        qCDebug(lcUpstream) << m_request.method << m_request.url.path() << "->" << result.status
                            << int(result.failure) << result.detail;
        delete reply;
        return result;
    }

    UpstreamRequest m_request;
    UpstreamCall *m_call;
    std::shared_ptr<UpstreamPool::Counters> m_counters;
    QElapsedTimer m_queued;
};

} // namespace

UpstreamPool::UpstreamPool(const QString &name, int concurrency, int maxQueued, QObject *parent)
    : QObject(parent), m_name(name), m_maxQueued(maxQueued)
{
    m_pool.setObjectName(name);
    m_pool.setMaxThreadCount(concurrency);
    m_pool.setExpiryTimeout(-1);  // keep threads, and with them their managers' open connections
}

UpstreamPool::~UpstreamPool()
{
    m_counters->stopping = true;
    m_pool.clear();
    m_pool.waitForDone();
}

UpstreamCall *UpstreamPool::submit(const UpstreamRequest &request, QObject *owner)
{
    if (m_counters->queued.load() >= m_maxQueued + qMax(0, concurrency() - running()))
        return nullptr;
    auto *call = new UpstreamCall(owner);
    m_counters->queued.fetch_add(1);
    m_pool.start(new Exchange(request, call, m_counters));
    return call;
}
