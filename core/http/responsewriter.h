#pragma once

#include "http/apierror.h"

#include <QByteArray>
#include <QPointer>
#include <QTcpSocket>

// Writes one HTTP/1.1 response straight to a client socket, either complete (with Content-Length)
// or as a stream (chunked, each piece flushed as it comes).
//
// Why not QHttpServerResponder: in Qt 6.4 it keeps a raw QTcpSocket pointer in release builds
// (https://code.qt.io/cgit/qt/qthttpserver.git/tree/src/httpserver/qhttpserverresponder_p.h?h=v6.4.2#n40),
// so a write after the client hung up crashed the server or reached another client whose socket
// reused the memory.
// Every write here goes through a QPointer and a ConnectedState check instead. Use it only on the
// socket's thread (the proxy thread).
class ResponseWriter final
{
public:
    explicit ResponseWriter(QTcpSocket *socket = nullptr, bool closeAfter = false);

    bool isConnected() const;
    bool hasStarted() const { return m_state != State::Idle; }
    bool isFinished() const { return m_state == State::Done; }
    bool isStreaming() const { return m_state == State::Streaming; }
    qint64 bytesWritten() const { return m_bytesWritten; }
    QTcpSocket *socket() const { return m_socket.data(); }
    // The header lines of the response's head as written, framing included (empty before it
    // started), for the call record.
    const HeaderList &sentHeaders() const { return m_sentHeaders; }

    // A complete response; Content-Length is computed here and must not be in headers.
    void writeComplete(int status, const HeaderList &headers, const QByteArray &body);
    void writeError(ApiStyle style, const ApiError &error, const HeaderList &extraHeaders = {});
    // Headers every response of this writer carries, whoever writes it (the CORS headers of an
    // allowed browser origin, http/hostguard.h). Before the response starts.
    void addHeaders(const HeaderList &headers) { m_extraHeaders += headers; }

    // A stream: status line and headers with Transfer-Encoding: chunked, then chunks, then the end.
    void beginStream(int status, const HeaderList &headers);
    void writeChunk(const QByteArray &data);
    void endStream();

    // Drop the connection without a clean end (a client too slow to read, a fatal error).
    void abort();

    // A client that does not read its stream grows the socket's write buffer without bound;
    // past this many unsent bytes it is dropped.
    static constexpr qint64 kMaxUnsentBytes = 64 * 1024 * 1024;
    // And in all: a client already this far behind is dropped when every client together holds
    // more than kMaxUnsentBytesInAll unsent, so N clients that never read cannot hold N answers.
    static constexpr qint64 kSlowReaderBytes = 1024 * 1024;
    static constexpr qint64 kMaxUnsentBytesInAll = 256 * 1024 * 1024;
    // For tests: both bounds smaller (proxy thread, before any write).
    static void setUnsentBoundsForTests(qint64 slowReader, qint64 inAll);

private:
    enum class State { Idle, Streaming, Done };
    QByteArray head(int status, const HeaderList &headers, const QByteArray &framing) const;
    void rememberHeaders(const HeaderList &headers, const QByteArray &framingName, const QByteArray &framingValue);
    // Now: written to the kernel at once. WithNext: when the event loop next sees the socket
    // writable, or with the next Now, whichever comes first.
    enum class Flush { Now, WithNext };
    void send(const QByteArray &bytes, Flush flush);
    void markDone();   // tells the connection's RequestMeter this response is over
    qint64 unsentOfAllClients() const;

    QPointer<QTcpSocket> m_socket;
    bool m_closeAfter = false;
    HeaderList m_extraHeaders;
    HeaderList m_sentHeaders;
    State m_state = State::Idle;
    qint64 m_bytesWritten = 0;
};

QByteArray reasonPhrase(int status);
