#pragma once

#include "http/apierror.h"
#include "http/requestframer.h"
#include "proxyconfig.h"

#include <QByteArray>
#include <QList>
#include <QObject>
#include <QElapsedTimer>
#include <QTimer>

#include <functional>

class QTcpSocket;

// Watches the raw bytes of one client connection *before* Qt's HTTP parser sees them, because
// Qt 6.4's QHttpServer has no limits of its own: it reads a head of any size byte by byte and
// buffers whatever body the Content-Length promises
// (https://code.qt.io/cgit/qt/qthttpserver.git/tree/src/httpserver/qhttpserverrequest.cpp?h=v6.4.2#n272),
// and it keeps idle or slow clients forever (no timer in
// https://code.qt.io/cgit/qt/qthttpserver.git/tree/src/httpserver/qabstracthttpserver.cpp?h=v6.4.2#n36).
// The meter frames requests itself (RequestFramer: head, then Content-Length or chunked body), so it can refuse a
// too-large body as soon as its Content-Length is known, answer `Expect: 100-continue`, and drop
// clients that stall. What a refusal says is written by whoever listens to `refused` (FrontDoor);
// the meter itself writes nothing but `100 Continue`.
//
// A refused request (413, 431, 408) is answered with Connection: close and then closed the way
// nginx does it ("lingering close"): the write side is shut down once the answer is sent, and what
// the client still sends is read and thrown away for a bounded time. Closing at once would leave
// unread bytes in the kernel, which answers a client still sending its body with a reset, and the
// client then often sees ECONNRESET instead of the answer.
//
// Pipelining (RFC 9112 9.3.2): a client may send its next requests before the answer to the first.
// Qt's parser hands each to the proxy as soon as it has read it, so a quick answer (GET /healthz)
// would pass a slow one's (a model call) on the wire, and the client would take it for the other.
// The meter keeps the order: the proxy hands it every request (answerInTurn), and a request is
// answered only once every earlier one on the connection has been, while the later ones wait here.
// What may wait is bounded (kMaxWaiting requests, and their bytes by one request's limits); a
// request past that is not answered, and the connection is closed once the answers before it are
// written: the client sends an unanswered request again on a new connection (RFC 9112 9.3.2).
//
// It lives on the socket's thread (the proxy thread) as a child of the socket.
class RequestMeter final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(RequestMeter)
public:
    struct Limits
    {
        qint64 maxBodyBytes = defaults::kMaxBodyBytes;
        qint64 maxHeaderBytes = defaults::kMaxHeaderBytes;
        std::chrono::milliseconds requestReadTimeout = defaults::kRequestReadTimeout;
        std::chrono::milliseconds idleTimeout = defaults::kIdleTimeout;
        // Lingering after a refusal, whichever ends first: this long in all (nginx's lingering_time),
        // this long without a byte from the client (lingering_timeout), this many bytes discarded.
        std::chrono::milliseconds lingerTime = std::chrono::seconds(5);
        std::chrono::milliseconds lingerTimeout = std::chrono::seconds(2);
        qint64 lingerBytes = 256 * 1024 * 1024;
        // Client connections open at once; beyond it the front door stops accepting (nginx's
        // worker_connections): new clients wait in the listen backlog until one closes, rather than
        // each holding buffers without bound.
        int maxConnections = defaults::kMaxConnections;
    };

    // Must be called before the socket is handed to the HTTP server, so that this meter's
    // readyRead slot runs before the parser's (connected when the server takes the socket,
    // https://code.qt.io/cgit/qt/qthttpserver.git/tree/src/httpserver/qabstracthttpserver.cpp?h=v6.4.2#n43).
    static RequestMeter *attach(QTcpSocket *socket, const Limits &limits);
    static RequestMeter *of(QTcpSocket *socket);

    // The proxy answered one request on this connection (idle timing starts again when none is open),
    // and the next request waiting for its turn, if any, is answered.
    void responseFinished();

    // Qt's parser has handed the proxy the connection's next request (ProxyServer::handleRequest,
    // in the order they came); `bytes` is about what it holds. `answer` answers it: run now when no
    // earlier request of the connection is still being answered, else when its turn comes (queued
    // on this thread, and not at all once the connection is closed).
    void answerInTurn(qint64 bytes, std::function<void()> answer);

    // Requests received in full and not yet answered, waiting ones included.
    int openRequests() const { return m_openRequests; }
    static constexpr int kMaxWaiting = 16;

Q_SIGNALS:
    // A request broke a limit: answer it with `error` and Connection: close, but do not close; the
    // meter then lingers (above) and closes the connection itself.
    void refused(ApiStyle style, const ApiError &error);

private:
    RequestMeter(QTcpSocket *socket, const Limits &limits);
    void onReadyRead();
    void refuse(int status);
    void linger();
    void shutDownWritingWhenSent();
    void discardInput();
    void noteActivity();
    void onWatchdog();
    void startNextAnswer();

    QTcpSocket *m_socket = nullptr;   // parent; outlives this object
    Limits m_limits;
    RequestFramer m_framer;           // where the bytes read so far stand; refused() once refused
    int m_openRequests = 0;           // received but not yet answered
    // Bytes at the front of the socket's buffer that were framed already: Qt's parser takes one
    // request per readyRead and, when more is buffered, emits readyRead again for the rest
    // (https://code.qt.io/cgit/qt/qthttpserver.git/tree/src/httpserver/qabstracthttpserver.cpp?h=v6.4.2#n104),
    // which must not be framed (and counted) twice.
    qint64 m_framedUnread = 0;
    struct Waiting
    {
        qint64 bytes = 0;
        std::function<void()> answer;
    };
    bool m_answering = false;         // a handed-over request is being answered
    QList<Waiting> m_waiting;         // handed over, waiting for their turn, in order
    qint64 m_waitingBytes = 0;
    bool m_closeWhenAnswered = false; // one was not taken: close once the ones before it are answered
    // One repeating watchdog per connection, checked against deadlines instead of timers restarted
    // on every request and write (timer churn showed up in profiles of the cache-hit path):
    // a request must arrive in full within requestReadTimeout of its first byte, and a connection
    // with nothing open is closed after idleTimeout without traffic.
    QTimer m_watchdog;
    QElapsedTimer m_clock;
    qint64 m_requestStartedMs = -1;   // -1: not inside a request
    qint64 m_lastActivityMs = 0;
    qint64 m_lingerStartedMs = -1;    // -1: not lingering
    qint64 m_discardedBytes = 0;      // read and thrown away while lingering
    bool m_writingShutDown = false;
};
