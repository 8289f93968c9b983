#include "http/frontdoor.h"

#include <QTcpSocket>

FrontDoor::FrontDoor(const RequestMeter::Limits &limits, QObject *parent)
    : QTcpServer(parent), m_limits(limits)
{
    // A herd of 200 identical requests connects at once; Qt's default backlog of 50 drops the rest's
    // SYNs and each of those clients waits a 1 s retransmit (tst_singleflight, herdArriving...).
    setListenBacklogSize(1024);
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
