#pragma once

#include "http/apierror.h"
#include "http/requestframer.h"
#include "proxyconfig.h"

#include <QByteArray>
#include <QObject>
#include <QElapsedTimer>
#include <QTimer>

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

    // The proxy answered one request on this connection (idle timing starts again when none is open).
    void responseFinished();

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

    QTcpSocket *m_socket = nullptr;   // parent; outlives this object
    Limits m_limits;
    RequestFramer m_framer;           // where the bytes read so far stand; refused() once refused
    int m_openRequests = 0;           // received but not yet answered
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
