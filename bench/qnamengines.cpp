#include "qnamengines.h"

#include <cstring>

#include <QEventLoop>
#include <QIODevice>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QPointer>
#include <QRunnable>
#include <QSemaphore>
#include <QThreadStorage>
#include <QTimer>

#include "http/protocol.h"

#include <QLoggingCategory>

Q_LOGGING_CATEGORY(lcUpstream, "breakwater.bench.qnam", QtInfoMsg)

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

class Job final : public QRunnable
{
public:
    explicit Job(std::shared_ptr<Exchange> exchange)
        : m_exchange(std::move(exchange)), m_request(m_exchange->request),
          m_refusedRetryDelay(m_exchange->refusedRetryDelay)
    {
    }

    void run() override
    {
        const UpstreamFailure stop = m_exchange->stop.load();
        const UpstreamResult result = stop != UpstreamFailure::None ? UpstreamResult{stop, {}, 0} : exchange();
        m_exchange->post([result](UpstreamCall *call) { Q_EMIT call->finished(result); });
    }

private:
    bool stopping() const { return m_exchange->stop.load() != UpstreamFailure::None; }

    // A refused connection has sent nothing, so it is tried once more, shortly: a provider's
    // listener that blinked (a restart, a load balancer swapping) costs the caller no error. Any
    // other failure, a reset after the request went out above all, is not retried.
    UpstreamResult exchange()
    {
        bool refused = false;
        UpstreamResult result = attempt(refused);
        if (refused && !stopping()) {
            qCInfo(lcUpstream) << m_request.url.host() << "refused the connection; trying once more in"
                               << m_refusedRetryDelay.count() << "ms";
            m_exchange->refusedRetries->fetch_add(1);
            pause(m_refusedRetryDelay);
            if (!stopping())
                result = attempt(refused);
            else
                result = {m_exchange->stop.load(), {}, 0};
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
            if (stopping())
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
            m_exchange->post([code = status.toInt(), headers](UpstreamCall *call) { Q_EMIT call->headersReceived(code, headers); });
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
                m_exchange->post([piece](UpstreamCall *call) { Q_EMIT call->bodyReceived(piece); });
        });
        QObject::connect(&gapTimer, &QTimer::timeout, &loop, [&] {
            timedOut = true;
            reply->abort();
        });
        QObject::connect(&stopPoll, &QTimer::timeout, &loop, [&] {
            if (stopping())
                reply->abort();
        });
        QObject::connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
        gapTimer.start(m_request.timeout);
        stopPoll.start(100);
        if (!reply->isFinished())
            loop.exec();

        UpstreamResult result;
        const QNetworkReply::NetworkError error = reply->error();
        const UpstreamFailure stop = m_exchange->stop.load();
        if (!timedOut && stop == UpstreamFailure::None) {
            // Bytes that came with the end (no readyRead for them) still belong to the answer.
            sendHeaders();
            const QByteArray rest = reply->readAll();
            if (!rest.isEmpty())
                m_exchange->post([rest](UpstreamCall *call) { Q_EMIT call->bodyReceived(rest); });
        }
        result.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        if (timedOut) {
            result.failure = UpstreamFailure::Timeout;
        } else if (stop != UpstreamFailure::None) {
            result.failure = stop;
        } else if (transportFailure(error) != UpstreamFailure::None || (result.status == 0 && error != QNetworkReply::NoError)) {
            result.failure = headersSent ? UpstreamFailure::Cut : UpstreamFailure::Unreachable;
            result.detail = error == QNetworkReply::ContentReSendError
                ? QStringLiteral("the upstream closed the connection after receiving the request (not sent again)")
                : reply->errorString();
        }
        refused = error == QNetworkReply::ConnectionRefusedError && !headersSent && !timedOut;
        m_exchange->protocol = reply->attribute(QNetworkRequest::Http2WasUsedAttribute).toBool() ? "HTTP/2" : "HTTP/1.1";
        delete reply;
        return result;
    }

    std::shared_ptr<Exchange> m_exchange;
    const UpstreamRequest &m_request;
    std::chrono::milliseconds m_refusedRetryDelay;
};

} // namespace

ThreadPerCallEngine::ThreadPerCallEngine(int maxThreads)
{
    m_pool.setMaxThreadCount(maxThreads);
    m_pool.setExpiryTimeout(-1);   // keep threads, and with them their managers' open connections
}

ThreadPerCallEngine::~ThreadPerCallEngine()
{
    m_pool.waitForDone();
}

void ThreadPerCallEngine::start(const std::shared_ptr<Exchange> &exchange)
{
    m_pool.start(new Job(exchange));
}

// The managers and the calls of the shared thread; lives there.
class SharedThreadEngine::Loop final : public QObject
{
public:
    explicit Loop(int managers)
    {
        for (int i = 0; i < managers; ++i) {
            auto *manager = new QNetworkAccessManager(this);
            manager->setRedirectPolicy(QNetworkRequest::ManualRedirectPolicy);
            m_managers.append(manager);
        }
    }

    void add(const std::shared_ptr<Exchange> &exchange)
    {
        QNetworkRequest request(exchange->request.url);
        for (const auto &[name, value] : combineRepeated(exchange->request.headers))
            request.setRawHeader(name, value);
        request.setAttribute(QNetworkRequest::ConnectionCacheExpiryTimeoutSecondsAttribute, 4);
        auto *body = new OneShotBody(exchange->request.body);
        QNetworkAccessManager *manager = m_managers[m_next++ % m_managers.size()];
        QNetworkReply *reply = manager->sendCustomRequest(request, exchange->request.method, body);
        body->setParent(reply);
        m_replies.insert(exchange.get(), reply);
        auto *gap = new QTimer(reply);
        gap->setSingleShot(true);
        auto timedOut = std::make_shared<bool>(false);
        auto headersSent = std::make_shared<bool>(false);
        const auto sendHeaders = [exchange, reply, headersSent] {
            const QVariant status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute);
            if (*headersSent || !status.isValid())
                return;
            *headersSent = true;
            const HeaderList headers = answerHeaders(reply->rawHeaderPairs());
            exchange->post([code = status.toInt(), headers](UpstreamCall *call) { Q_EMIT call->headersReceived(code, headers); });
        };
        connect(reply, &QNetworkReply::metaDataChanged, reply, [=] {
            gap->start(exchange->request.timeout);
            sendHeaders();
        });
        connect(reply, &QNetworkReply::readyRead, reply, [=] {
            gap->start(exchange->request.timeout);
            sendHeaders();
            const QByteArray piece = reply->readAll();
            if (!piece.isEmpty())
                exchange->post([piece](UpstreamCall *call) { Q_EMIT call->bodyReceived(piece); });
        });
        connect(gap, &QTimer::timeout, reply, [=] {
            *timedOut = true;
            reply->abort();
        });
        connect(reply, &QNetworkReply::finished, this, [=, this] {
            const UpstreamFailure stop = exchange->stop.load();
            if (!*timedOut && stop == UpstreamFailure::None) {
                sendHeaders();
                const QByteArray rest = reply->readAll();
                if (!rest.isEmpty())
                    exchange->post([rest](UpstreamCall *call) { Q_EMIT call->bodyReceived(rest); });
            }
            UpstreamResult result;
            result.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
            const QNetworkReply::NetworkError error = reply->error();
            if (*timedOut)
                result.failure = UpstreamFailure::Timeout;
            else if (stop != UpstreamFailure::None)
                result.failure = stop;
            else if (transportFailure(error) != UpstreamFailure::None || (result.status == 0 && error != QNetworkReply::NoError))
                result.failure = *headersSent ? UpstreamFailure::Cut : UpstreamFailure::Unreachable;
            result.detail = result.failure == UpstreamFailure::None ? QString() : reply->errorString();
            exchange->protocol = reply->attribute(QNetworkRequest::Http2WasUsedAttribute).toBool() ? "HTTP/2" : "HTTP/1.1";
            exchange->post([result](UpstreamCall *call) { Q_EMIT call->finished(result); });
            m_replies.remove(exchange.get());
            reply->deleteLater();
        });
        gap->start(exchange->request.timeout);
    }

    void interrupt(Exchange *exchange)
    {
        if (QNetworkReply *reply = m_replies.value(exchange))
            reply->abort();
    }

private:
    QList<QNetworkAccessManager *> m_managers;
    qsizetype m_next = 0;
    QHash<Exchange *, QNetworkReply *> m_replies;
};

namespace {

class SharedLoopJob final : public QRunnable
{
public:
    SharedLoopJob(int managers, SharedThreadEngine::Loop **loop, QEventLoop **eventLoop, QSemaphore *ready)
        : m_managers(managers), m_loop(loop), m_eventLoop(eventLoop), m_ready(ready) {}

    void run() override
    {
        QEventLoop eventLoop;
        {
            SharedThreadEngine::Loop loop(m_managers);
            *m_loop = &loop;
            *m_eventLoop = &eventLoop;
            m_ready->release();
            eventLoop.exec();
        }
    }

private:
    int m_managers;
    SharedThreadEngine::Loop **m_loop;
    QEventLoop **m_eventLoop;
    QSemaphore *m_ready;
};

} // namespace

SharedThreadEngine::SharedThreadEngine(int managers)
{
    m_pool.setMaxThreadCount(1);
    QSemaphore ready;
    m_pool.start(new SharedLoopJob(qMax(1, managers), &m_loop, &m_eventLoop, &ready));
    ready.acquire();
}

SharedThreadEngine::~SharedThreadEngine()
{
    QMetaObject::invokeMethod(m_eventLoop, &QEventLoop::quit, Qt::QueuedConnection);
    m_pool.waitForDone();
}

void SharedThreadEngine::start(const std::shared_ptr<Exchange> &exchange)
{
    QMetaObject::invokeMethod(m_loop, [loop = m_loop, exchange] { loop->add(exchange); }, Qt::QueuedConnection);
}

void SharedThreadEngine::interrupt(const std::shared_ptr<Exchange> &exchange)
{
    QMetaObject::invokeMethod(m_loop, [loop = m_loop, exchange] { loop->interrupt(exchange.get()); }, Qt::QueuedConnection);
}
