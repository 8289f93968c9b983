#pragma once

#include <QByteArray>
#include <QElapsedTimer>
#include <QList>
#include <QObject>

class QTcpSocket;

// Sends the same request again and again on one keep-alive connection, as fast as answers come,
// recording each round trip. Only for answers with a Content-Length (cache hits are).
class KeepAliveClient final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(KeepAliveClient)
public:
    KeepAliveClient(quint16 port, QByteArray request, QObject *parent = nullptr);
    void start();
    void stop() { m_stopping = true; }
    const QList<qint64> &roundTripsNs() const { return m_roundTripsNs; }
    int failures() const { return m_failures; }

private:
    void sendOne();
    void onReadyRead();

    quint16 m_port;
    QByteArray m_request;
    QTcpSocket *m_socket = nullptr;
    QByteArray m_buffer;
    QElapsedTimer m_sent;
    QList<qint64> m_roundTripsNs;
    int m_failures = 0;
    bool m_stopping = false;
};
