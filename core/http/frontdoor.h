#pragma once

#include "http/requestmeter.h"

#include <QTcpServer>

// The listening socket. Each accepted connection gets a RequestMeter wired to it *before* it is
// handed to the HTTP server, so limits apply before Qt's parser buffers anything.
class FrontDoor final : public QTcpServer
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(FrontDoor)
public:
    explicit FrontDoor(const RequestMeter::Limits &limits, QObject *parent = nullptr);
    ~FrontDoor() override;

    int openConnections() const { return m_open; }

protected:
    void incomingConnection(qintptr socketDescriptor) override;

private:
    RequestMeter::Limits m_limits;
    int m_open = 0;   // accepted and not yet disconnected
};
