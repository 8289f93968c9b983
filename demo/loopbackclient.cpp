#include "loopbackclient.h"

#include <algorithm>
#include <utility>

#include <QEventLoop>
#include <QHostAddress>
#include <QTcpSocket>

namespace {

// The trimmed value of a header in a lower-cased response head; null when it is missing.
QByteArray headerValue(const QByteArray &head, const QByteArray &lowerName)
{
    const QByteArray prefix = "\r\n" + lowerName + ':';
    const qsizetype at = head.indexOf(prefix);
    if (at < 0)
        return {};
    const qsizetype valueAt = at + prefix.size();
    const qsizetype lineEnd = head.indexOf("\r\n", valueAt);
    const QByteArray value = head.mid(valueAt, lineEnd < 0 ? -1 : lineEnd - valueAt).trimmed();
    return value.isNull() ? QByteArray("") : value;
}

// The size a chunk-size line (without its CRLF) gives, chunk extensions ignored; -1 if it gives none.
qint64 chunkSize(QByteArray line)
{
    if (const qsizetype semicolon = line.indexOf(';'); semicolon >= 0)
        line.truncate(semicolon);
    bool ok = false;
    const qint64 size = line.trimmed().toLongLong(&ok, 16);
    return ok && size >= 0 ? size : -1;
}

// Where a chunked body that starts at `from` ends (past its last chunk's CRLF): -1 while it is not
// all in, -2 if a chunk-size line is not one; `firstChunkIn` says whether a first chunk with data
// is whole. Trailers are not expected (no server of ours sends them).
qint64 chunkedBodyEnd(const QByteArray &buffer, qint64 from, bool *firstChunkIn)
{
    qint64 at = from;
    for (;;) {
        const qsizetype lineEnd = buffer.indexOf("\r\n", at);
        if (lineEnd < 0)
            return -1;
        const qint64 size = chunkSize(buffer.mid(at, lineEnd - at));
        if (size < 0)
            return -2;
        const qint64 next = lineEnd + 2 + size + 2;
        if (buffer.size() < next)
            return -1;
        if (size == 0)
            return next;
        *firstChunkIn = true;
        at = next;
    }
}

} // namespace

QByteArray LoopbackResponse::header(const QByteArray &name) const
{
    for (const auto &[key, value] : headers) {
        if (key.compare(name, Qt::CaseInsensitive) == 0)
            return value;
    }
    return {};
}

qint64 LoopbackResponse::firstToLastChunkMs() const
{
    return chunkAtNs.size() < 2 ? 0 : (chunkAtNs.constLast() - chunkAtNs.constFirst()) / 1'000'000;
}

LoopbackClient::LoopbackClient(quint16 port, QByteArray method, QByteArray path, HeaderList headers,
                               QByteArray body, QObject *parent)
    : QObject(parent)
    , m_port(port)
    , m_request(requestBytes(port, method, path, std::move(headers), body))
    , m_headResponse(method == "HEAD")
{
    m_timeout.setSingleShot(true);
    connect(&m_timeout, &QTimer::timeout, this, &LoopbackClient::hangUp);
}

LoopbackClient::LoopbackClient(quint16 port, RequestMaker nextRequest, QObject *parent)
    : QObject(parent)
    , m_port(port)
    , m_nextRequest(std::move(nextRequest))
{
    m_timeout.setSingleShot(true);
    connect(&m_timeout, &QTimer::timeout, this, &LoopbackClient::hangUp);
    m_slot.setSingleShot(true);
    m_slot.setTimerType(Qt::PreciseTimer);
    connect(&m_slot, &QTimer::timeout, this, &LoopbackClient::sendOne);
}

LoopbackClient::~LoopbackClient()
{
    // Our own slots must not run while the socket is torn down with us.
    if (m_socket)
        m_socket->disconnect(this);
}

QByteArray LoopbackClient::requestBytes(quint16 port, const QByteArray &method, const QByteArray &path,
                                        HeaderList headers, const QByteArray &body)
{
    const auto has = [&headers](const QByteArray &name) {
        return std::any_of(headers.cbegin(), headers.cend(), [&name](const auto &header) {
            return header.first.compare(name, Qt::CaseInsensitive) == 0;
        });
    };
    if (!has("Host"))
        headers.prepend({"Host", "127.0.0.1:" + QByteArray::number(port)});
    if (!body.isEmpty() && !has("Content-Length") && !has("Transfer-Encoding"))
        headers.append({"Content-Length", QByteArray::number(body.size())});
    QByteArray request = method + ' ' + path + " HTTP/1.1\r\n";
    for (const auto &[name, value] : std::as_const(headers))
        request += name + ": " + value + "\r\n";
    request += "\r\n" + body;
    return request;
}

void LoopbackClient::setPace(double intervalMs, double offsetMs)
{
    m_intervalMs = intervalMs;
    m_nextSlotMs = offsetMs;
}

void LoopbackClient::start()
{
    if (m_socket)
        return;   // one connection per client
    m_clock.start();
    if (m_timeout.interval() > 0)
        m_timeout.start();
    m_socket = new QTcpSocket(this);
    m_socket->setSocketOption(QAbstractSocket::LowDelayOption, 1);
    connect(m_socket, &QTcpSocket::connected, this, &LoopbackClient::onConnected);
    connect(m_socket, &QTcpSocket::readyRead, this, &LoopbackClient::onReadyRead);
    connect(m_socket, &QTcpSocket::disconnected, this, &LoopbackClient::onClosed);
    connect(m_socket, &QTcpSocket::errorOccurred, this, &LoopbackClient::onClosed);
    m_socket->connectToHost(QHostAddress::LocalHost, m_port);
}

void LoopbackClient::startRaw(QByteArray bytes)
{
    if (m_socket || m_nextRequest)
        return;
    m_request = std::move(bytes);
    start();
}

void LoopbackClient::setAnswers(int answers, bool untilClosed)
{
    m_answersWanted = std::max(1, answers);
    m_untilClosed = untilClosed;
}

void LoopbackClient::hangUp()
{
    if (m_finished)
        return;
    finish();
}

void LoopbackClient::clearRecorded()
{
    m_roundTripsNs.clear();
    m_firstChunksNs.clear();
    m_dedupCounts.clear();
    m_failures = 0;
    m_missedSlots = 0;
}

void LoopbackClient::onConnected()
{
    if (!m_nextRequest)
        m_socket->write(m_request);
    else if (m_intervalMs > 0)
        scheduleSlot();
    else
        sendOne();
}

void LoopbackClient::onReadyRead()
{
    if (m_nextRequest)
        readCountedAnswers();
    else
        readFullAnswer();
}

void LoopbackClient::onClosed()
{
    if (m_nextRequest) {
        // A connection that closes or fails while answers are still expected is a failure.
        if (!m_stopping)
            giveUp();
        return;
    }
    if (m_finished)
        return;
    // Bytes may still sit unread when the close is reported first.
    if (m_socket->bytesAvailable() > 0)
        readFullAnswer();
    if (m_finished)
        return;
    m_response.connectionClosed = true;
    if (m_stage == Stage::UntilClose)
        m_response.complete = true;   // a close-delimited body ends with the connection
    finish();
}

void LoopbackClient::finish()
{
    m_stage = Stage::Done;
    m_finished = true;
    m_stopping = true;
    m_timeout.stop();
    m_slot.stop();
    m_response.elapsedNs = m_clock.isValid() ? m_clock.nsecsElapsed() : 0;
    if (m_socket) {
        m_socket->disconnect(this);
        m_socket->abort();
    }
    emit finished();
}

// A series ---------------------------------------------------------------------------------------

void LoopbackClient::sendOne()
{
    if (m_stopping) {
        m_socket->disconnectFromHost();
        return;
    }
    const QByteArray request = m_nextRequest(m_sequence++);
    m_sent.start();
    m_socket->write(request);
}

void LoopbackClient::scheduleSlot()
{
    const double wait = m_nextSlotMs - double(m_clock.nsecsElapsed()) / 1e6;
    m_slot.start(std::max(0, int(wait)));
}

void LoopbackClient::giveUp()
{
    ++m_failures;
    finish();
}

// The timed path of the bench: nothing here may cost more than it must before the round trip is
// read off the clock.
void LoopbackClient::readCountedAnswers()
{
    m_buffer += m_socket->readAll();
    for (;;) {
        const qsizetype headEnd = m_buffer.indexOf("\r\n\r\n");
        if (headEnd < 0)
            return;
        const QByteArray head = m_buffer.left(headEnd).toLower();
        const QByteArray lengthValue = headerValue(head, "content-length");
        qint64 total = -1;
        if (!lengthValue.isNull()) {
            total = headEnd + 4 + lengthValue.toLongLong();
        } else if (headerValue(head, "transfer-encoding") == "chunked") {
            bool firstChunkIn = false;
            total = chunkedBodyEnd(m_buffer, headEnd + 4, &firstChunkIn);
            if (total == -2) {
                giveUp();   // not HTTP
                return;
            }
            if (firstChunkIn && !m_firstChunkSeen) {
                m_firstChunkSeen = true;
                m_firstChunksNs.append(m_sent.nsecsElapsed());
            }
        } else {
            giveUp();
            return;
        }
        if (total < 0 || m_buffer.size() < total)
            return;
        const qint64 roundTripNs = m_sent.nsecsElapsed();
        m_firstChunkSeen = false;
        if (!head.startsWith("http/1.1 200"))
            ++m_failures;
        ++m_dedupCounts[headerValue(head, "x-breakwater-dedup")];
        m_buffer.remove(0, total);
        m_roundTripsNs.append(roundTripNs);
        if (m_limit > 0 && m_roundTripsNs.size() >= m_limit) {
            m_stopping = true;
            m_finished = true;
            m_timeout.stop();
            emit finished();
        }
        if (m_intervalMs > 0 && !m_stopping) {
            m_nextSlotMs += m_intervalMs;
            const double nowMs = double(m_clock.nsecsElapsed()) / 1e6;
            for (; m_nextSlotMs < nowMs; m_nextSlotMs += m_intervalMs)
                ++m_missedSlots;
            scheduleSlot();
        } else {
            sendOne();
        }
    }
}

// One call ---------------------------------------------------------------------------------------

void LoopbackClient::readFullAnswer()
{
    if (m_finished)
        return;
    m_buffer += m_socket->readAll();
    bool progress = true;
    while (progress && !m_finished) {
        switch (m_stage) {
        case Stage::StatusLine: progress = parseStatusLine(); break;
        case Stage::Headers: progress = parseHeaders(); break;
        case Stage::FixedBody: {
            const qint64 take = qMin<qint64>(m_remaining, m_buffer.size());
            m_response.body += m_buffer.left(take);
            m_buffer.remove(0, take);
            m_remaining -= take;
            if (m_remaining == 0)
                complete();
            progress = m_stage != Stage::FixedBody;   // the next answer may be buffered already
            break;
        }
        case Stage::ChunkSize: progress = parseChunkSize(); break;
        case Stage::ChunkData: progress = parseChunkData(); break;
        case Stage::Trailers: progress = parseTrailers(); break;
        case Stage::UntilClose:
            m_response.body += std::exchange(m_buffer, {});
            progress = false;
            break;
        case Stage::Done:
            progress = false;
            break;
        }
    }
}

bool LoopbackClient::parseStatusLine()
{
    const qsizetype end = m_buffer.indexOf("\r\n");
    if (end < 0)
        return false;
    const QList<QByteArray> parts = m_buffer.left(end).split(' ');
    m_buffer.remove(0, end + 2);
    m_response.status = parts.size() >= 2 ? parts[1].toInt() : 0;
    m_response.headers.clear();
    m_stage = Stage::Headers;
    return true;
}

bool LoopbackClient::parseHeaders()
{
    const qsizetype end = m_buffer.indexOf("\r\n");
    if (end < 0)
        return false;
    const QByteArray line = m_buffer.left(end);
    m_buffer.remove(0, end + 2);
    if (!line.isEmpty()) {
        const qsizetype colon = line.indexOf(':');
        if (colon > 0)
            m_response.headers.append({line.left(colon).trimmed(), line.mid(colon + 1).trimmed()});
        return true;
    }
    if (m_response.status >= 100 && m_response.status < 200) {
        m_stage = Stage::StatusLine;   // an interim answer (100 Continue): the real one follows
        return true;
    }
    emit headersReceived();
    startBody();
    return true;
}

void LoopbackClient::startBody()
{
    const int status = m_response.status;
    const QByteArray length = m_response.header("Content-Length");
    if (m_headResponse || status == 204 || status == 304) {
        complete();
    } else if (m_response.header("Transfer-Encoding").toLower().contains("chunked")) {
        m_response.chunked = true;
        m_stage = Stage::ChunkSize;
    } else if (!length.isEmpty()) {
        m_remaining = length.toLongLong();
        m_stage = Stage::FixedBody;
        if (m_remaining <= 0)
            complete();
    } else {
        m_stage = Stage::UntilClose;
    }
}

bool LoopbackClient::parseChunkSize()
{
    const qsizetype end = m_buffer.indexOf("\r\n");
    if (end < 0)
        return false;
    m_remaining = chunkSize(m_buffer.left(end));
    m_buffer.remove(0, end + 2);
    if (m_remaining < 0) {
        finish();   // not HTTP: treat as a broken connection
        return false;
    }
    m_stage = m_remaining == 0 ? Stage::Trailers : Stage::ChunkData;
    return true;
}

bool LoopbackClient::parseChunkData()
{
    if (m_buffer.size() < m_remaining + 2)
        return false;
    const QByteArray payload = m_buffer.left(m_remaining);
    m_buffer.remove(0, m_remaining + 2);
    m_response.chunks.append(payload);
    m_response.chunkAtNs.append(m_clock.nsecsElapsed());
    m_response.body += payload;
    m_stage = Stage::ChunkSize;
    emit chunkReceived(payload);
    return true;
}

bool LoopbackClient::parseTrailers()
{
    const qsizetype end = m_buffer.indexOf("\r\n");
    if (end < 0)
        return false;
    const bool last = end == 0;
    m_buffer.remove(0, end + 2);
    if (last)
        complete();
    return true;
}

void LoopbackClient::complete()
{
    m_response.complete = true;
    m_answers.append(m_response);
    if (m_answers.size() < m_answersWanted) {
        m_response = {};
        m_stage = Stage::StatusLine;   // the next answer on the same connection
        return;
    }
    if (m_untilClosed) {
        m_stage = Stage::Done;   // onClosed() finishes when the server closes
        return;
    }
    finish();
}

LoopbackResponse fetch(quint16 port, const QByteArray &method, const QByteArray &path,
                       const HeaderList &headers, const QByteArray &body,
                       std::chrono::milliseconds timeout)
{
    LoopbackClient call(port, method, path, headers, body);
    call.setTimeout(timeout);
    QEventLoop loop;
    QObject::connect(&call, &LoopbackClient::finished, &loop, &QEventLoop::quit);
    call.start();
    if (!call.isFinished())
        loop.exec();
    return call.response();
}
