#pragma once

#include "http/requestframer.h"
#include "proxyconfig.h"

#include <QByteArray>
#include <QObject>
#include <QElapsedTimer>
#include <QTimer>

class QTcpSocket;

// Watches the raw bytes of one client connection *before* Qt's HTTP parser sees them, because
// Qt 6.4's QHttpServer has no limits of its own: it buffers any body, any header size, and keeps
// idle or slow clients forever. The meter frames requests itself (RequestFramer: head, then
// Content-Length or chunked body), so it can refuse a too-large body as soon as its Content-Length
// is known, answer `Expect: 100-continue`, and drop clients that stall.
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
    };

    // Must be called before the socket is handed to the HTTP server, so that this meter's
    // readyRead slot runs before the parser's.
    static RequestMeter *attach(QTcpSocket *socket, const Limits &limits);
    static RequestMeter *of(QTcpSocket *socket);

    // The proxy answered one request on this connection (idle timing starts again when none is open).
    void responseFinished();

private:
    RequestMeter(QTcpSocket *socket, const Limits &limits);
    void onReadyRead();
    void refuse(int status);
    void noteActivity();
    void onWatchdog();

    QTcpSocket *m_socket = nullptr;   // parent; outlives this object
    Limits m_limits;
    RequestFramer m_framer;
    int m_openRequests = 0;           // received but not yet answered
    // One repeating watchdog per connection, checked against deadlines instead of timers restarted
    // on every request and write (timer churn showed up in profiles of the cache-hit path):
    // a request must arrive in full within requestReadTimeout of its first byte, and a connection
    // with nothing open is closed after idleTimeout without traffic.
    QTimer m_watchdog;
    QElapsedTimer m_clock;
    qint64 m_requestStartedMs = -1;   // -1: not inside a request
    qint64 m_lastActivityMs = 0;
};
