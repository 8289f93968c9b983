#include "cannedserver.h"

#include <QTcpSocket>

CannedServer::CannedServer(QByteArray response, QObject *parent)
    : QTcpServer(parent), m_response(std::move(response))
{
    connect(this, &QTcpServer::newConnection, this, &CannedServer::onNewConnection);
}

QByteArray CannedServer::answer(int status, const QByteArray &headerLines, const QByteArray &body)
{
    return "HTTP/1.1 " + QByteArray::number(status) + " Canned\r\n" + headerLines
           + "Content-Type: application/json\r\nContent-Length: " + QByteArray::number(body.size()) + "\r\n\r\n"
           + body;
}

void CannedServer::onNewConnection()
{
    while (QTcpSocket *socket = nextPendingConnection()) {
        ++m_connections;
        connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
        connect(socket, &QTcpSocket::readyRead, socket, [this, socket, pending = QByteArray()]() mutable {
            pending += socket->readAll();
            for (qsizetype end = pending.indexOf("\r\n\r\n"); end >= 0; end = pending.indexOf("\r\n\r\n")) {
                pending.remove(0, end + 4);
                ++m_requests;
                socket->write(m_response);
            }
        });
    }
}
