#include "keepaliveclient.h"

#include <QHostAddress>
#include <QTcpSocket>

KeepAliveClient::KeepAliveClient(quint16 port, QByteArray request, QObject *parent)
    : QObject(parent), m_port(port), m_request(std::move(request))
{
}

void KeepAliveClient::start()
{
    m_socket = new QTcpSocket(this);
    m_socket->setSocketOption(QAbstractSocket::LowDelayOption, 1);
    connect(m_socket, &QTcpSocket::connected, this, &KeepAliveClient::sendOne);
    connect(m_socket, &QTcpSocket::readyRead, this, &KeepAliveClient::onReadyRead);
    m_socket->connectToHost(QHostAddress::LocalHost, m_port);
}

void KeepAliveClient::sendOne()
{
    if (m_stopping) {
        m_socket->disconnectFromHost();
        return;
    }
    m_sent.start();
    m_socket->write(m_request);
}

void KeepAliveClient::onReadyRead()
{
    m_buffer += m_socket->readAll();
    for (;;) {
        const qsizetype headEnd = m_buffer.indexOf("\r\n\r\n");
        if (headEnd < 0)
            return;
        const QByteArray head = m_buffer.left(headEnd).toLower();
        const qsizetype at = head.indexOf("content-length:");
        if (at < 0) {
            ++m_failures;
            m_socket->abort();
            return;
        }
        const qsizetype lineEnd = head.indexOf("\r\n", at);
        const qint64 length = head.mid(at + 15, lineEnd < 0 ? -1 : lineEnd - at - 15).trimmed().toLongLong();
        const qint64 total = headEnd + 4 + length;
        if (m_buffer.size() < total)
            return;
        if (!head.startsWith("http/1.1 200"))
            ++m_failures;
        m_buffer.remove(0, total);
        m_roundTripsNs.append(m_sent.nsecsElapsed());
        sendOne();
    }
}
