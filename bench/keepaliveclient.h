#pragma once

#include <QByteArray>
#include <QElapsedTimer>
#include <QList>
#include <QMap>
#include <QObject>

#include <functional>

class QTcpSocket;

// Sends requests one after another on one keep-alive connection, as fast as answers come,
// recording each round trip. Only for answers with a Content-Length (cache hits and non-stream
// misses are); an answer without one, or a lost connection, ends the client as a failure.
class KeepAliveClient final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(KeepAliveClient)
public:
    // Makes the raw bytes of the connection's n-th request (n from 0), before its clock starts.
    using RequestFactory = std::function<QByteArray(qint64 n)>;

    KeepAliveClient(quint16 port, QByteArray request, QObject *parent = nullptr);   // the same every time
    KeepAliveClient(quint16 port, RequestFactory nextRequest, QObject *parent = nullptr);

    // Stop after this many answers and emit finished() (0, the default: until stop()).
    void setLimit(qint64 answers) { m_limit = answers; }
    void start();
    void stop() { m_stopping = true; }
    // Forgets what was recorded so far (the end of a warm-up).
    void clearRecorded();

    const QList<qint64> &roundTripsNs() const { return m_roundTripsNs; }
    int failures() const { return m_failures; }
    // How many answers carried each value of x-breakwater-dedup ("" when the header was missing).
    const QMap<QByteArray, qint64> &dedupCounts() const { return m_dedupCounts; }

Q_SIGNALS:
    void finished();   // the limit was reached, or the client gave up after a failure

private:
    void sendOne();
    void onReadyRead();
    void giveUp();

    quint16 m_port;
    RequestFactory m_nextRequest;
    qint64 m_sequence = 0;
    qint64 m_limit = 0;
    QTcpSocket *m_socket = nullptr;
    QByteArray m_buffer;
    QElapsedTimer m_sent;
    QList<qint64> m_roundTripsNs;
    QMap<QByteArray, qint64> m_dedupCounts;
    int m_failures = 0;
    bool m_stopping = false;
};
