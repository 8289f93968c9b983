#pragma once

#include "http/requestmeter.h"

#include <QSslServer>

// The listening socket. Each accepted connection gets a RequestMeter wired to it *before* it is
// handed to the HTTP server, so limits apply before Qt's parser buffers anything.
// With TLS (setTls; --tls-cert, --tls-key) QSslServer does the handshake and hands the server only
// sockets that finished it; the meter is wired when the handshake starts, so a client that never
// finishes it is dropped by the same read timeout as a slow one.
class FrontDoor final : public QSslServer
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(FrontDoor)
public:
    explicit FrontDoor(const RequestMeter::Limits &limits, QObject *parent = nullptr);
    ~FrontDoor() override;

    int openConnections() const { return m_open; }
    void setTls(const QSslConfiguration &configuration);
    bool isTls() const { return m_tls; }

protected:
    void incomingConnection(qintptr socketDescriptor) override;

private:
    // The count and the meter, for a plain socket or one starting its handshake.
    void wire(QTcpSocket *socket);

    RequestMeter::Limits m_limits;
    bool m_tls = false;
    int m_open = 0;   // accepted and not yet disconnected
};
