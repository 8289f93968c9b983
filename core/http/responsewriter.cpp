#include "http/responsewriter.h"

#include <algorithm>

#include "http/requestmeter.h"

namespace {
qint64 g_slowReaderBytes = ResponseWriter::kSlowReaderBytes;
qint64 g_maxUnsentInAll = ResponseWriter::kMaxUnsentBytesInAll;
} // namespace

ResponseWriter::ResponseWriter(QTcpSocket *socket, bool closeAfter)
    : m_socket(socket), m_closeAfter(closeAfter)
{
}

bool ResponseWriter::isConnected() const
{
    return m_socket && m_socket->state() == QAbstractSocket::ConnectedState;
}

QByteArray reasonPhrase(int status)
{
    switch (status) {
    case 100: return "Continue";
    case 200: return "OK";
    case 201: return "Created";
    case 204: return "No Content";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 408: return "Request Timeout";
    case 409: return "Conflict";
    case 413: return "Payload Too Large";
    case 421: return "Misdirected Request";
    case 422: return "Unprocessable Entity";
    case 426: return "Upgrade Required";
    case 429: return "Too Many Requests";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 502: return "Bad Gateway";
    case 503: return "Service Unavailable";
    case 504: return "Gateway Timeout";
    case 529: return "Overloaded";
    default: return status < 400 ? "OK" : "Error";
    }
}

namespace {

// One header line, whatever it was given: a CR, LF or NUL inside a value becomes a space (RFC 9110
// 5.5 allows exactly that), and a name holding one, or empty, is dropped. Whoever built the list
// (upstream headers, our own), the client's header block cannot be ended early or split.
void appendHeaderLine(QByteArray &head, const QByteArray &name, const QByteArray &value)
{
    const auto isBreak = [](char c) { return c == '\r' || c == '\n' || c == '\0'; };
    if (name.isEmpty() || std::any_of(name.begin(), name.end(), isBreak))
        return;
    QByteArray clean = value;
    if (std::any_of(value.begin(), value.end(), isBreak))
        std::replace_if(clean.begin(), clean.end(), isBreak, ' ');
    head += name + ": " + clean + "\r\n";
}

} // namespace

QByteArray ResponseWriter::head(int status, const HeaderList &headers, const QByteArray &framing) const
{
    QByteArray head;
    head.reserve(256);
    head += "HTTP/1.1 " + QByteArray::number(status) + ' ' + reasonPhrase(status) + "\r\n";
    for (const auto &[name, value] : headers)
        appendHeaderLine(head, name, value);
    for (const auto &[name, value] : m_extraHeaders)
        appendHeaderLine(head, name, value);
    head += framing;
    if (m_closeAfter)
        head += "Connection: close\r\n";
    head += "\r\n";
    return head;
}

void ResponseWriter::rememberHeaders(const HeaderList &headers, const QByteArray &framingName,
                                     const QByteArray &framingValue)
{
    m_sentHeaders = headers + m_extraHeaders;
    m_sentHeaders.emplaceBack(framingName, framingValue);
    if (m_closeAfter)
        m_sentHeaders.emplaceBack("Connection", "close");
}

void ResponseWriter::send(const QByteArray &bytes, Flush flush)
{
    if (!isConnected())
        return;
    const qint64 unsent = m_socket->bytesToWrite();
    if (unsent > kMaxUnsentBytes || (unsent > g_slowReaderBytes && unsentOfAllClients() > g_maxUnsentInAll)) {
        abort();
        return;
    }
    m_socket->write(bytes);
    // A stream's chunk goes out now, not when the event loop next sees the socket writable: the
    // client's first byte comes a poll sooner. What the kernel does not take stays buffered.
    if (flush == Flush::Now)
        m_socket->flush();
    m_bytesWritten += bytes.size();
}

void ResponseWriter::setUnsentBoundsForTests(qint64 slowReader, qint64 inAll)
{
    g_slowReaderBytes = slowReader;
    g_maxUnsentInAll = inAll;
}

// What every client connection of the listener holds unsent (its sockets are the listener's
// children, http/frontdoor.cpp). Summed only for a reader already behind, so a fast one costs nothing.
qint64 ResponseWriter::unsentOfAllClients() const
{
    QObject *listener = m_socket->parent();
    if (!listener)
        return m_socket->bytesToWrite();
    qint64 total = 0;
    for (const QTcpSocket *socket : listener->findChildren<QTcpSocket *>(QString(), Qt::FindDirectChildrenOnly))
        total += socket->bytesToWrite();
    return total;
}

void ResponseWriter::writeComplete(int status, const HeaderList &headers, const QByteArray &body)
{
    if (m_state != State::Idle)
        return;
    rememberHeaders(headers, "Content-Length", QByteArray::number(body.size()));
    // One write for head and body: one buffer append and one segment for small answers.
    // Not flushed: it leaves when the event loop next sees the socket writable, after this turn has
    // published the call's record, so whoever watches the records (the dashboard, a test) has the
    // row of an answer its client holds.
    send(head(status, headers, "Content-Length: " + QByteArray::number(body.size()) + "\r\n") + body,
         Flush::WithNext);
    markDone();
    if (m_closeAfter && isConnected())
        m_socket->disconnectFromHost();
}

void ResponseWriter::writeError(ApiStyle style, const ApiError &error, const HeaderList &extraHeaders)
{
    HeaderList headers{{"Content-Type", "application/json"}};
    headers += errorHeaders(error);
    headers += extraHeaders;
    writeComplete(error.status, headers, errorBody(style, error));
}

void ResponseWriter::beginStream(int status, const HeaderList &headers)
{
    if (m_state != State::Idle)
        return;
    rememberHeaders(headers, "Transfer-Encoding", "chunked");
    // The head waits for the first chunk, which usually comes in the same turn: one segment. If
    // none does, Qt writes it when the event loop next sees the socket writable, right after.
    send(head(status, headers, "Transfer-Encoding: chunked\r\n"), Flush::WithNext);
    m_state = State::Streaming;
}

void ResponseWriter::writeChunk(const QByteArray &data)
{
    if (m_state != State::Streaming || data.isEmpty())
        return;
    send(QByteArray::number(data.size(), 16) + "\r\n" + data + "\r\n", Flush::Now);
}

void ResponseWriter::endStream()
{
    if (m_state != State::Streaming)
        return;
    send(QByteArrayLiteral("0\r\n\r\n"), Flush::WithNext);   // as writeComplete: after the record
    markDone();
    if (m_closeAfter && isConnected())
        m_socket->disconnectFromHost();
}

void ResponseWriter::markDone()
{
    if (m_state == State::Done)
        return;
    m_state = State::Done;
    if (RequestMeter *meter = RequestMeter::of(m_socket))
        meter->responseFinished();
}

void ResponseWriter::abort()
{
    markDone();
    if (m_socket)
        m_socket->abort();
}
