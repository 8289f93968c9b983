#include "http/frontdoor.h"

#include <QSslSocket>
#include <QTcpSocket>

#include "http/responsewriter.h"

FrontDoor::FrontDoor(const RequestMeter::Limits &limits, QObject *parent)
    : QSslServer(parent), m_limits(limits)
{
    connect(this, &QSslServer::startedEncryptionHandshake, this, [this](QSslSocket *socket) {
        wire(socket);
        // One that fails its handshake never reaches the HTTP server, which deletes the others.
        connect(socket, &QAbstractSocket::disconnected, socket, &QObject::deleteLater);
    });
    // A herd of 200 identical requests connects at once; Qt's default backlog of 50 (listenBacklog in
    // https://code.qt.io/cgit/qt/qtbase.git/tree/src/network/socket/qtcpserver_p.h?h=v6.4.2) drops
    // the rest's SYNs and each of those clients waits a 1 s retransmit (tst_singleflight, herdArriving...).
    setListenBacklogSize(1024);
}

FrontDoor::~FrontDoor()
{
    // ~QTcpServer deletes the sockets still pending, and each says `disconnected` as it goes: by
    // then this is no longer a FrontDoor, so its count must not hear it (found by UBSan).
    for (QTcpSocket *socket : findChildren<QTcpSocket *>(QString(), Qt::FindDirectChildrenOnly))
        socket->disconnect(this);
}

void FrontDoor::setTls(const QSslConfiguration &configuration)
{
    setSslConfiguration(configuration);
    setHandshakeTimeout(int(m_limits.requestReadTimeout.count()));
    m_tls = true;
}

void FrontDoor::incomingConnection(qintptr socketDescriptor)
{
    if (m_tls) {
        QSslServer::incomingConnection(socketDescriptor);   // wire() when the handshake starts
        return;
    }
    auto *socket = new QTcpSocket(this);
    if (!socket->setSocketDescriptor(socketDescriptor)) {
        delete socket;
        return;
    }
    wire(socket);
    addPendingConnection(socket);
}

void FrontDoor::wire(QTcpSocket *socket)
{
    socket->setSocketOption(QAbstractSocket::LowDelayOption, 1);
    if (++m_open >= m_limits.maxConnections)
        pauseAccepting();
    connect(socket, &QAbstractSocket::disconnected, this, [this] {
        // Not once a drain closed the door: Qt 6.4's resumeAccepting() has no engine to resume then.
        if (m_open-- == m_limits.maxConnections && isListening())
            resumeAccepting();
    });
    const RequestMeter *meter = RequestMeter::attach(socket, m_limits);
    connect(meter, &RequestMeter::refused, socket, [socket](ApiStyle style, const ApiError &error) {
        // Not closeAfter: the meter lingers, reading and discarding, before it closes (nginx's
        // lingering close), so a client still sending its body sees this answer, not a reset.
        ResponseWriter(socket).writeError(style, error, {{"Connection", "close"}});
    });
}
