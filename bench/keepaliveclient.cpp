#include "keepaliveclient.h"

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

} // namespace

KeepAliveClient::KeepAliveClient(quint16 port, QByteArray request, QObject *parent)
    : KeepAliveClient(port, [request = std::move(request)](qint64) { return request; }, parent)
{
}

KeepAliveClient::KeepAliveClient(quint16 port, RequestFactory nextRequest, QObject *parent)
    : QObject(parent), m_port(port), m_nextRequest(std::move(nextRequest))
{
}

void KeepAliveClient::start()
{
    m_socket = new QTcpSocket(this);
    m_socket->setSocketOption(QAbstractSocket::LowDelayOption, 1);
    connect(m_socket, &QTcpSocket::connected, this, &KeepAliveClient::sendOne);
    connect(m_socket, &QTcpSocket::readyRead, this, &KeepAliveClient::onReadyRead);
    // A connection that closes or fails while answers are still expected is a failure.
    connect(m_socket, &QTcpSocket::disconnected, this, [this] { if (!m_stopping) giveUp(); });
    connect(m_socket, &QTcpSocket::errorOccurred, this, [this] { if (!m_stopping) giveUp(); });
    m_socket->connectToHost(QHostAddress::LocalHost, m_port);
}

void KeepAliveClient::clearRecorded()
{
    m_roundTripsNs.clear();
    m_dedupCounts.clear();
    m_failures = 0;
}

void KeepAliveClient::sendOne()
{
    if (m_stopping) {
        m_socket->disconnectFromHost();
        return;
    }
    const QByteArray request = m_nextRequest(m_sequence++);
    m_sent.start();
    m_socket->write(request);
}

void KeepAliveClient::giveUp()
{
    ++m_failures;
    m_stopping = true;
    m_socket->abort();
    Q_EMIT finished();
}

void KeepAliveClient::onReadyRead()
{
    m_buffer += m_socket->readAll();
    for (;;) {
        const qsizetype headEnd = m_buffer.indexOf("\r\n\r\n");
        if (headEnd < 0)
            return;
        const QByteArray head = m_buffer.left(headEnd).toLower();
        const QByteArray lengthValue = headerValue(head, "content-length");
        if (lengthValue.isNull()) {
            giveUp();
            return;
        }
        const qint64 length = lengthValue.toLongLong();
        const qint64 total = headEnd + 4 + length;
        if (m_buffer.size() < total)
            return;
        const qint64 roundTripNs = m_sent.nsecsElapsed();
        if (!head.startsWith("http/1.1 200"))
            ++m_failures;
        ++m_dedupCounts[headerValue(head, "x-breakwater-dedup")];
        m_buffer.remove(0, total);
        m_roundTripsNs.append(roundTripNs);
        if (m_limit > 0 && m_roundTripsNs.size() >= m_limit) {
            m_stopping = true;
            Q_EMIT finished();
        }
        sendOne();
    }
}
