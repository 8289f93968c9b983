#include "http/requestmeter.h"

#include <QLoggingCategory>
#include <QTcpSocket>

#include <algorithm>
#include <utility>

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
    : QObject(socket), m_socket(socket), m_limits(limits),
      m_framer({.maxBodyBytes = limits.maxBodyBytes, .maxHeaderBytes = limits.maxHeaderBytes})
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
    if (m_framer.isRefused()) {
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
    m_answering = false;
    startNextAnswer();
}

void RequestMeter::answerInTurn(qint64 bytes, std::function<void()> answer)
{
    // Qt's parser has just taken this request out of the socket's buffer; what it left there, the
    // meter has framed already (it reads before the parser does).
    m_framedUnread = m_socket->bytesAvailable();
    if (m_closeWhenAnswered)
        return;   // an earlier one was not taken: no later one may be answered before it
    if (!m_answering && m_waiting.isEmpty()) {
        m_answering = true;
        answer();
        return;
    }
    const qint64 mayWait = m_limits.maxBodyBytes + m_limits.maxHeaderBytes;
    if (m_waiting.size() >= kMaxWaiting || m_waitingBytes + bytes > mayWait) {
        qCInfo(lcFrontDoor) << "not taking more pipelined requests on one connection:" << m_waiting.size()
                            << "wait already; closing it after their answers";
        m_closeWhenAnswered = true;
        return;
    }
    m_waitingBytes += bytes;
    m_waiting.append({bytes, std::move(answer)});
}

void RequestMeter::startNextAnswer()
{
    if (m_answering || m_framer.isRefused())
        return;
    if (m_waiting.isEmpty()) {
        if (m_closeWhenAnswered)
            m_socket->disconnectFromHost();
        return;
    }
    Waiting next = m_waiting.takeFirst();
    m_waitingBytes -= next.bytes;
    m_answering = true;
    // Queued: this runs inside the previous answer's last write, deep in the code that wrote it
    // (a flight landing, say), which must not be re-entered by a new request.
    QMetaObject::invokeMethod(this, [this, answer = std::move(next.answer)] {
        if (m_socket->state() == QAbstractSocket::ConnectedState)
            answer();
    }, Qt::QueuedConnection);
}

void RequestMeter::onReadyRead()
{
    if (m_framer.isRefused()) {
        discardInput();  // the parser must never see a refused request
        return;
    }
    // Qt's parser reads after this slot: what is available now is what arrived since the last call,
    // after what the parser left unread last time (m_framedUnread), which was framed then.
    const qint64 available = m_socket->bytesAvailable();
    const qint64 framed = std::min(std::exchange(m_framedUnread, 0), available);
    const QByteArray arrived = m_socket->peek(available).mid(framed);
    const bool earlierOpen = m_openRequests > 0;
    const RequestFramer::Progress progress = m_framer.feed(arrived);
    m_openRequests += progress.completed;
    // Never in the middle of another request's answer: with an earlier request still open (a
    // pipelined head), no interim answer is sent, and the client sends its body after its own wait.
    for (int i = 0; i < progress.continues && !earlierOpen; ++i)
        m_socket->write("HTTP/1.1 100 Continue\r\n\r\n");
    if (progress.refusal != 0) {
        refuse(progress.refusal);
        discardInput();
    } else if (!m_framer.inRequest()) {
        m_requestStartedMs = -1;
    } else if (m_requestStartedMs < 0 || progress.completed > 0) {
        // The read deadline runs from the first byte of the request now in progress.
        m_requestStartedMs = m_clock.elapsed();
    }
    noteActivity();
}

void RequestMeter::refuse(int status)
{
    m_framer.refuse();
    m_watchdog.stop();
    const bool anthropic = m_framer.head().contains(" /v1/messages");
    const ApiStyle style = m_framer.head().contains(" /v1beta/") ? ApiStyle::Gemini
                         : anthropic                             ? ApiStyle::Anthropic
                                                                 : ApiStyle::OpenAI;
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
