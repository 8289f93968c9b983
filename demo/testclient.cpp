#include "testclient.h"

#include <algorithm>
#include <utility>

#include <QEventLoop>
#include <QHostAddress>
#include <QTcpSocket>
#include <QTimer>

QByteArray TestResponse::header(const QByteArray &name) const
{
    for (const auto &[key, value] : headers) {
        if (key.compare(name, Qt::CaseInsensitive) == 0)
            return value;
    }
    return {};
}

TestCall::TestCall(quint16 port, QByteArray method, QByteArray path, HeaderList headers,
                   QByteArray body, QObject *parent)
    : QObject(parent), m_port(port)
{
    m_headResponse = method == "HEAD";
    const auto has = [&headers](const QByteArray &name) {
        return std::any_of(headers.cbegin(), headers.cend(), [&name](const auto &header) {
            return header.first.compare(name, Qt::CaseInsensitive) == 0;
        });
    };
    if (!has("Host"))
        headers.prepend({"Host", "127.0.0.1:" + QByteArray::number(port)});
    if (!body.isEmpty() && !has("Content-Length") && !has("Transfer-Encoding"))
        headers.append({"Content-Length", QByteArray::number(body.size())});
    m_request = method + ' ' + path + " HTTP/1.1\r\n";
    for (const auto &[name, value] : std::as_const(headers))
        m_request += name + ": " + value + "\r\n";
    m_request += "\r\n" + body;
}

TestCall::~TestCall()
{
    // Our own slots must not run while the socket is torn down with us.
    if (m_socket)
        m_socket->disconnect(this);
}

void TestCall::start()
{
    startRaw(m_request);
}

void TestCall::startRaw(QByteArray bytes)
{
    if (m_socket)
        return;   // one request per call
    m_socket = new QTcpSocket(this);
    connect(m_socket, &QTcpSocket::connected, this, [this, bytes] { m_socket->write(bytes); });
    connect(m_socket, &QTcpSocket::readyRead, this, &TestCall::onReadyRead);
    connect(m_socket, &QTcpSocket::disconnected, this, &TestCall::onClosed);
    connect(m_socket, &QTcpSocket::errorOccurred, this, &TestCall::onClosed);
    m_socket->connectToHost(QHostAddress::LocalHost, m_port);
}

void TestCall::hangUp()
{
    if (m_finished)
        return;
    finish();
}

void TestCall::onReadyRead()
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
            progress = false;
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

bool TestCall::parseStatusLine()
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

bool TestCall::parseHeaders()
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

void TestCall::startBody()
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

bool TestCall::parseChunkSize()
{
    const qsizetype end = m_buffer.indexOf("\r\n");
    if (end < 0)
        return false;
    QByteArray sizeText = m_buffer.left(end);
    m_buffer.remove(0, end + 2);
    if (const qsizetype semicolon = sizeText.indexOf(';'); semicolon >= 0)
        sizeText.truncate(semicolon);   // chunk extensions are ignored
    bool ok = false;
    m_remaining = sizeText.trimmed().toLongLong(&ok, 16);
    if (!ok || m_remaining < 0) {
        finish();   // not HTTP: treat as a broken connection
        return false;
    }
    m_stage = m_remaining == 0 ? Stage::Trailers : Stage::ChunkData;
    return true;
}

bool TestCall::parseChunkData()
{
    if (m_buffer.size() < m_remaining + 2)
        return false;
    const QByteArray payload = m_buffer.left(m_remaining);
    m_buffer.remove(0, m_remaining + 2);
    m_response.chunks.append(payload);
    m_response.body += payload;
    m_stage = Stage::ChunkSize;
    emit chunkReceived(payload);
    return true;
}

bool TestCall::parseTrailers()
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

void TestCall::onClosed()
{
    if (m_finished)
        return;
    // Bytes may still sit unread when the close is reported first.
    if (m_socket->bytesAvailable() > 0)
        onReadyRead();
    if (m_finished)
        return;
    m_response.connectionClosed = true;
    if (m_stage == Stage::UntilClose)
        m_response.complete = true;   // a close-delimited body ends with the connection
    finish();
}

void TestCall::complete()
{
    m_response.complete = true;
    finish();
}

void TestCall::finish()
{
    m_stage = Stage::Done;
    m_finished = true;
    if (m_socket) {
        m_socket->disconnect(this);
        m_socket->abort();
    }
    emit finished();
}

TestResponse fetch(quint16 port, const QByteArray &method, const QByteArray &path,
                   const HeaderList &headers, const QByteArray &body,
                   std::chrono::milliseconds timeout)
{
    TestCall call(port, method, path, headers, body);
    QEventLoop loop;
    QObject::connect(&call, &TestCall::finished, &loop, &QEventLoop::quit);
    QTimer::singleShot(timeout, &loop, &QEventLoop::quit);
    call.start();
    if (!call.isFinished())
        loop.exec();
    call.hangUp();
    return call.response();
}
