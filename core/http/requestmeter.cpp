#include "http/requestmeter.h"

#include <QLoggingCategory>
#include <QTcpSocket>

#include <sys/socket.h>

Q_LOGGING_CATEGORY(lcFrontDoor, "breakwater.frontdoor", QtInfoMsg)

RequestMeter *RequestMeter::attach(QTcpSocket *socket, const Limits &limits)
{
    return new RequestMeter(socket, limits);
}

RequestMeter *RequestMeter::of(QTcpSocket *socket)
{
    return socket ? socket->findChild<RequestMeter *>(QString(), Qt::FindDirectChildrenOnly) : nullptr;
}

RequestMeter::RequestMeter(QTcpSocket *socket, const Limits &limits)
    : QObject(socket), m_socket(socket), m_limits(limits)
{
    m_clock.start();
    // A quarter of the shorter limit: a deadline is enforced at most 25 % late.
    m_watchdog.setInterval(std::min(m_limits.requestReadTimeout, m_limits.idleTimeout) / 4);
    connect(&m_watchdog, &QTimer::timeout, this, &RequestMeter::onWatchdog);
    connect(socket, &QTcpSocket::readyRead, this, &RequestMeter::onReadyRead);
    connect(socket, &QTcpSocket::bytesWritten, this, &RequestMeter::noteActivity);
    m_watchdog.start();
}

void RequestMeter::noteActivity()
{
    m_lastActivityMs = m_clock.elapsed();
}

void RequestMeter::onWatchdog()
{
    const qint64 now = m_clock.elapsed();
    if (m_phase == Phase::Refused) {
        const bool over = now - m_lingerStartedMs >= m_limits.lingerTime.count()
                          || now - m_lastActivityMs >= m_limits.lingerTimeout.count();
        if (over || m_socket->state() != QAbstractSocket::ConnectedState) {
            m_watchdog.stop();
            m_socket->abort();
        }
        return;
    }
    if (m_requestStartedMs >= 0 && now - m_requestStartedMs >= m_limits.requestReadTimeout.count()) {
        refuse(408);
        return;
    }
    const bool idle = m_openRequests == 0 && m_requestStartedMs < 0;
    if (idle && now - m_lastActivityMs >= m_limits.idleTimeout.count()) {
        qCDebug(lcFrontDoor) << "closing idle connection";
        m_socket->disconnectFromHost();
    }
}

void RequestMeter::responseFinished()
{
    if (m_openRequests > 0)
        --m_openRequests;
    noteActivity();
}

void RequestMeter::onReadyRead()
{
    if (m_phase == Phase::Refused) {
        discardInput();  // the parser must never see a refused request
        return;
    }
    // Qt's parser drains the socket after this slot, so what is available now is exactly the
    // bytes that arrived since the last call (its readyRead handler parses all that is readable,
    // https://code.qt.io/cgit/qt/qthttpserver.git/tree/src/httpserver/qabstracthttpserver.cpp?h=v6.4.2#n62).
    const QByteArray data = m_socket->peek(m_socket->bytesAvailable());
    qsizetype pos = 0;
    while (pos < data.size() && m_phase != Phase::Refused) {
        if (m_phase == Phase::Head)
            pos = consumeHead(data, pos);
        else
            pos = consumeBody(data, pos);
    }
    if (m_phase == Phase::Refused)
        discardInput();
    noteActivity();
}

void RequestMeter::startRequest()
{
    if (m_requestStartedMs < 0)
        m_requestStartedMs = m_clock.elapsed();
}

void RequestMeter::finishRequest()
{
    m_requestStartedMs = -1;
    ++m_openRequests;
    m_phase = Phase::Head;
    m_head.clear();
}

qsizetype RequestMeter::consumeHead(const QByteArray &data, qsizetype from)
{
    // Blank lines between requests are allowed (RFC 9112 2.2); skip them.
    if (m_head.isEmpty()) {
        while (from < data.size() && (data[from] == '\r' || data[from] == '\n'))
            ++from;
        if (from == data.size())
            return from;
    }
    startRequest();
    const qsizetype searchFrom = qMax<qsizetype>(0, m_head.size() - 3);
    const qsizetype headBefore = m_head.size();
    const qsizetype room = m_limits.maxHeaderBytes - headBefore;
    m_head += data.mid(from, qMin<qsizetype>(data.size() - from, room + 1));
    const qsizetype end = m_head.indexOf("\r\n\r\n", searchFrom);
    if (end < 0) {
        if (m_head.size() > m_limits.maxHeaderBytes)
            refuse(431);
        return data.size();
    }
    const qsizetype headLength = end + 4;
    const qsizetype consumed = headLength - headBefore;
    m_head.truncate(headLength);
    if (m_head.size() > m_limits.maxHeaderBytes) {
        refuse(431);
        return data.size();
    }

    qint64 contentLength = 0;
    bool chunked = false;
    bool expectContinue = false;
    const QList<QByteArray> lines = m_head.split('\n');
    for (qsizetype i = 1; i < lines.size(); ++i) {
        const QByteArray line = lines[i].trimmed();
        const qsizetype colon = line.indexOf(':');
        if (colon <= 0)
            continue;
        const QByteArray name = line.left(colon).trimmed().toLower();
        const QByteArray value = line.mid(colon + 1).trimmed().toLower();
        if (name == "content-length")
            contentLength = value.toLongLong();
        else if (name == "transfer-encoding")
            chunked = value.contains("chunked");
        else if (name == "expect")
            expectContinue = value == "100-continue";
    }
    if (contentLength > m_limits.maxBodyBytes) {
        refuse(413);
        return data.size();
    }
    if (expectContinue)
        m_socket->write("HTTP/1.1 100 Continue\r\n\r\n");

    m_bodyRead = 0;
    if (chunked) {
        m_phase = Phase::ChunkedBody;
        m_chunkTail.clear();
    } else if (contentLength > 0) {
        m_phase = Phase::Body;
        m_bodyRemaining = contentLength;
    } else {
        finishRequest();
    }
    return from + consumed;
}

qsizetype RequestMeter::consumeBody(const QByteArray &data, qsizetype from)
{
    if (m_phase == Phase::Body) {
        const qint64 take = qMin<qint64>(m_bodyRemaining, data.size() - from);
        m_bodyRemaining -= take;
        if (m_bodyRemaining == 0)
            finishRequest();
        return from + take;
    }
    // Chunked: count the bytes and look for the terminating zero-size chunk.
    const QByteArray piece = data.mid(from);
    m_bodyRead += piece.size();
    if (m_bodyRead > m_limits.maxBodyBytes + 64 * 1024) {  // allow for chunk framing
        refuse(413);
        return data.size();
    }
    m_chunkTail = QByteArray(m_chunkTail + piece).right(7);
    if (m_chunkTail.endsWith("\r\n0\r\n\r\n") || (m_bodyRead == 5 && m_chunkTail == "0\r\n\r\n"))
        finishRequest();
    return data.size();
}

void RequestMeter::refuse(int status)
{
    m_phase = Phase::Refused;
    m_watchdog.stop();
    const bool anthropic = m_head.contains(" /v1/messages");
    const ApiStyle style = anthropic ? ApiStyle::Anthropic : ApiStyle::OpenAI;
    ApiError error;
    if (status == 413)
        error = ApiError::bodyTooLarge(m_limits.maxBodyBytes);
    else if (status == 431)
        error = ApiError::headersTooLarge(m_limits.maxHeaderBytes);
    else
        error = {408, "invalid_request_error", "request_timeout",
                 QStringLiteral("The request did not arrive in full in time.")};
    qCInfo(lcFrontDoor) << "refusing request with" << status;
    // The front door writes the answer with Connection: close, but must not close: linger() does,
    // once the client has had the chance to read it.
    Q_EMIT refused(style, error);
    linger();
}

void RequestMeter::linger()
{
    m_lingerStartedMs = m_clock.elapsed();
    noteActivity();
    connect(m_socket, &QTcpSocket::bytesWritten, this, &RequestMeter::shutDownWritingWhenSent);
    m_socket->flush();
    shutDownWritingWhenSent();
    m_watchdog.setInterval(std::min(m_limits.lingerTime, m_limits.lingerTimeout) / 4);
    m_watchdog.start();
}

void RequestMeter::shutDownWritingWhenSent()
{
    if (m_writingShutDown || m_socket->bytesToWrite() > 0 || m_socket->state() != QAbstractSocket::ConnectedState)
        return;
    // The client sees the answer's end (FIN) while it may still send; Qt has no half-close of its own.
    m_writingShutDown = true;
    ::shutdown(int(m_socket->socketDescriptor()), SHUT_WR);
}

void RequestMeter::discardInput()
{
    m_discardedBytes += m_socket->skip(m_socket->bytesAvailable());
    noteActivity();
    if (m_lingerStartedMs >= 0 && m_discardedBytes > m_limits.lingerBytes) {
        qCDebug(lcFrontDoor) << "closing a refused connection after" << m_discardedBytes << "discarded bytes";
        m_watchdog.stop();
        m_socket->abort();
    }
}
