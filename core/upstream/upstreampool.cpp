#include "upstream/upstreampool.h"

#include <cstring>

#include <QElapsedTimer>
#include <QEventLoop>
#include <QIODevice>
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

// Qt hands over a repeated response header as one value: Set-Cookie's lines joined with "\n", any
// other's with ", " (QNetworkReplyHttpImplPrivate::replyDownloadMetaData,
// https://code.qt.io/cgit/qt/qtbase.git/tree/src/network/access/qnetworkreplyhttpimpl.cpp?h=v6.4.2).
// ", " is how HTTP itself may combine a list header (RFC 9110 5.3), so those stay as they are. A
// "\n" inside a header ends the client's header block (curl) or fails the whole response (Node's
// HPE_INVALID_HEADER_TOKEN), and cookies cannot be combined at all (RFC 6265 3): each goes out as
// its own Set-Cookie line again, in the upstream's order.
HeaderList answerHeaders(const QList<QNetworkReply::RawHeaderPair> &pairs)
{
    HeaderList headers;
    for (const auto &[name, value] : pairs) {
        if (isHopHeader(name.toLower()))
            continue;
        if (name.compare("set-cookie", Qt::CaseInsensitive) == 0) {
            for (const QByteArray &cookie : value.split('\n'))
                headers.append({name, cookie});
        } else {
            headers.append({name, value});
        }
    }
    return headers;
}

// The request body as Qt's HTTP stack reads it: it can be rewound only until its first byte has
// been read. Qt 6.4 sends a request again, on a new connection, when the connection closes after
// the request went out and before any answer (QHttpNetworkConnectionChannel's reconnectAttempts;
// the resend starts with resetUploadData(), which asks the body to reset(),
// https://code.qt.io/cgit/qt/qtbase.git/tree/src/network/access/qhttpnetworkconnectionchannel.cpp?h=v6.4.2).
// It does so whatever the method, so an upstream that read a POST and reset the connection would get
// it, and bill it, twice. A body that refuses the rewind makes Qt end the reply with
// ContentReSendError instead. Not a QBuffer: Qt reads a QBuffer's bytes directly and never asks it.
class OneShotBody final : public QIODevice
{
public:
    explicit OneShotBody(const QByteArray &bytes) : m_bytes(bytes) { open(ReadOnly | Unbuffered); }

    bool isSequential() const override { return false; }
    qint64 size() const override { return m_bytes.size(); }
    bool reset() override { return !m_read && QIODevice::reset(); }
    bool seek(qint64 pos) override { return !m_read && QIODevice::seek(pos); }

protected:
    qint64 readData(char *data, qint64 maxSize) override
    {
        const qint64 count = qMin(maxSize, m_bytes.size() - pos());
        if (count <= 0)
            return 0;
        std::memcpy(data, m_bytes.constData() + pos(), size_t(count));
        m_read = true;
        return count;
    }
    qint64 writeData(const char *, qint64) override { return -1; }

private:
    const QByteArray m_bytes;
    bool m_read = false;
};

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
    Exchange(UpstreamRequest request, UpstreamCall *call, std::shared_ptr<UpstreamPool::Counters> counters,
             std::chrono::milliseconds refusedRetryDelay)
        : m_request(std::move(request)), m_call(call), m_counters(std::move(counters)),
          m_refusedRetryDelay(refusedRetryDelay)
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

    // A refused connection has sent nothing, so it is tried once more, shortly: a provider's
    // listener that blinked (a restart, a load balancer swapping) costs the caller no error. Any
    // other failure, a reset after the request went out above all, is not retried.
    UpstreamResult exchange()
    {
        const qint64 waited = m_queued.elapsed();
        post([call = m_call, waited] { Q_EMIT call->started(waited); });
        bool refused = false;
        UpstreamResult result = attempt(refused);
        if (refused && !m_counters->stopping) {
            qCInfo(lcUpstream) << m_request.url.host() << "refused the connection; trying once more in"
                               << m_refusedRetryDelay.count() << "ms";
            m_counters->refusedRetries.fetch_add(1);
            pause(m_refusedRetryDelay);
            if (!m_counters->stopping)
                result = attempt(refused);
            else
                result = {UpstreamFailure::Shutdown, {}, 0};
        }
        return result;
    }

    // Waits on this pool thread, cut short when the pool stops.
    void pause(std::chrono::milliseconds delay)
    {
        QEventLoop loop;
        QTimer::singleShot(delay, &loop, &QEventLoop::quit);
        QTimer stopPoll;
        QObject::connect(&stopPoll, &QTimer::timeout, &loop, [&] {
            if (m_counters->stopping)
                loop.quit();
        });
        stopPoll.start(50);
        loop.exec();
    }

    // One request on the wire. `refused` tells whether the connection was refused before anything
    // was sent (and so nothing of the answer came).
    UpstreamResult attempt(bool &refused)
    {
        QNetworkRequest request(m_request.url);
        // QNetworkRequest keeps one value per name (setRawHeader replaces), so a repeated request
        // header goes upstream as one combined line rather than as its last value only.
        for (const auto &[name, value] : combineRepeated(m_request.headers))
            request.setRawHeader(name, value);
        // The one-shot body also stops Qt's resend on a kept-alive connection the server had already
        // closed, which is safe. So a connection is reused only within 4 s of its last answer:
        // below the shortest common keep-alive (uvicorn, as in vLLM, and Node: 5 s), so a stale
        // one is rare, while back-to-back calls still skip the TCP and TLS handshakes.
        request.setAttribute(QNetworkRequest::ConnectionCacheExpiryTimeoutSecondsAttribute, 4);
        OneShotBody body(m_request.body);   // outlives the reply, deleted below
        QNetworkReply *reply = threadManager()->sendCustomRequest(request, m_request.method, &body);

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
            const HeaderList headers = answerHeaders(reply->rawHeaderPairs());
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
            result.detail = error == QNetworkReply::ContentReSendError
                ? QStringLiteral("the upstream closed the connection after receiving the request (not sent again)")
                : reply->errorString();
        }
        refused = error == QNetworkReply::ConnectionRefusedError && !headersSent && !timedOut;
        qCDebug(lcUpstream) << m_request.method << m_request.url.path() << "->" << result.status
                            << int(result.failure) << result.detail;
        delete reply;
        return result;
    }

    UpstreamRequest m_request;
    UpstreamCall *m_call;
    std::shared_ptr<UpstreamPool::Counters> m_counters;
    std::chrono::milliseconds m_refusedRetryDelay;
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
    m_pool.start(new Exchange(request, call, m_counters, m_refusedRetryDelay));
    return call;
}
