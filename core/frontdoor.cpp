#include "frontdoor.h"

#include <QTcpSocket>

FrontDoor::FrontDoor(const RequestMeter::Limits &limits, QObject *parent)
    : QTcpServer(parent), m_limits(limits)
{
}

void FrontDoor::incomingConnection(qintptr socketDescriptor)
{
    auto *socket = new QTcpSocket(this);
    if (!socket->setSocketDescriptor(socketDescriptor)) {
        delete socket;
        return;
    }
    socket->setSocketOption(QAbstractSocket::LowDelayOption, 1);
    RequestMeter::attach(socket, m_limits);
    addPendingConnection(socket);
}
