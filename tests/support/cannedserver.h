#pragma once

#include <QByteArray>
#include <QHostAddress>
#include <QTcpServer>

// A stand-in upstream for tests that need what the mock provider cannot do: listen on a port
// chosen by the test (one that refused a moment ago), or answer with one fixed response (a
// redirect). Answers every request on every connection with `response` and counts connections and
// requests (a request is counted at each blank line, so bodies sent to it must hold none). Lives on
// the thread that creates it.
class CannedServer final : public QTcpServer
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(CannedServer)
public:
    explicit CannedServer(QByteArray response, QObject *parent = nullptr);

    // Listens on 127.0.0.1:port (0: any free port).
    bool listenOn(quint16 port = 0) { return listen(QHostAddress::LocalHost, port); }
    int connections() const { return m_connections; }
    int requests() const { return m_requests; }

    // "HTTP/1.1 <status>" with these header lines and a JSON body, framed by Content-Length.
    static QByteArray answer(int status, const QByteArray &headerLines = {}, const QByteArray &body = "{}");

private:
    void onNewConnection();

    QByteArray m_response;
    int m_connections = 0;
    int m_requests = 0;
};
