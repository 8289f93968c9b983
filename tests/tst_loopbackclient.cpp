// The raw loopback client itself, against a scripted server on the test thread: what one call
// reads from an answer, and what a keep-alive series sends, records and counts.

#include <functional>

#include <QSignalSpy>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTest>
#include <QTimer>

#include "loopbackclient.h"

using namespace std::chrono_literals;

namespace {

// A loopback server that answers each GET request (a head only) with `answer(n, path)`, n counted
// from 0 over all connections, or hangs up at request `hangUpAt`. Counts the connections it accepted.
class ScriptedServer
{
public:
    using Answer = std::function<QByteArray(int n, const QByteArray &path)>;

    explicit ScriptedServer(Answer answer) : m_answer(std::move(answer))
    {
        m_server.listen(QHostAddress::LocalHost);
        QObject::connect(&m_server, &QTcpServer::newConnection, &m_server, [this] {
            QTcpSocket *socket = m_server.nextPendingConnection();
            ++connections;
            auto buffer = std::make_shared<QByteArray>();
            QObject::connect(socket, &QTcpSocket::readyRead, socket, [this, socket, buffer] {
                *buffer += socket->readAll();
                for (qsizetype end = buffer->indexOf("\r\n\r\n"); end >= 0; end = buffer->indexOf("\r\n\r\n")) {
                    const QByteArray path = buffer->left(end).split(' ').value(1);
                    buffer->remove(0, end + 4);
                    paths.append(path);
                    if (paths.size() - 1 == hangUpAt) {
                        socket->disconnectFromHost();
                        return;
                    }
                    socket->write(m_answer(int(paths.size()) - 1, path));
                }
            });
        });
    }

    quint16 port() const { return m_server.serverPort(); }
    int connections = 0;
    int hangUpAt = -1;
    QList<QByteArray> paths;   // in the order they came

private:
    Answer m_answer;
    QTcpServer m_server;
};

QByteArray getRequest(quint16 port, qint64 n)
{
    return LoopbackClient::requestBytes(port, "GET", "/" + QByteArray::number(n));
}

} // namespace

class TestLoopbackClient final : public QObject
{
    Q_OBJECT

private slots:
    void oneCall_skipsInterimContinueAndReadsCloseDelimitedBody();
    void oneCall_timeout_hangsUpWithoutAnAnswer();
    void series_sendsEveryRequestOnOneConnectionAndCountsTheAnswers();
    void series_chunkedAnswers_recordTheFirstChunkAndTheEnd();
    void series_answerWithoutLengthOrChunks_givesUpAsAFailure();
    void series_lostConnection_givesUpAsAFailure();
};

void TestLoopbackClient::oneCall_skipsInterimContinueAndReadsCloseDelimitedBody()
{
    // A scripted server on this thread: 100 Continue, then a body that ends with the connection.
    QTcpServer server;
    QVERIFY(server.listen(QHostAddress::LocalHost));
    connect(&server, &QTcpServer::newConnection, this, [&server] {
        QTcpSocket *socket = server.nextPendingConnection();
        connect(socket, &QTcpSocket::readyRead, socket, [socket] {
            socket->readAll();
            socket->write("HTTP/1.1 100 Continue\r\n\r\n"
                          "HTTP/1.1 200 OK\r\nX-Seen: yes\r\n\r\nuntil the end");
            socket->disconnectFromHost();
        });
    });
    LoopbackClient call(server.serverPort(), "POST", "/raw");
    call.startRaw("POST /raw HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\nhi");
    QTRY_VERIFY(call.isFinished());
    QCOMPARE(call.response().status, 200);
    QCOMPARE(call.response().header("x-seen"), "yes");
    QCOMPARE(call.response().body, "until the end");
    QVERIFY(call.response().complete);
    QVERIFY(call.response().connectionClosed);
}

void TestLoopbackClient::oneCall_timeout_hangsUpWithoutAnAnswer()
{
    ScriptedServer silent([](int, const QByteArray &) { return QByteArray(); });
    LoopbackClient call(silent.port(), "GET", "/never");
    QSignalSpy finished(&call, &LoopbackClient::finished);
    call.setTimeout(50ms);
    call.start();
    QTRY_COMPARE(finished.count(), 1);
    QCOMPARE(call.response().status, 0);
    QVERIFY(!call.response().complete);
    QVERIFY(!call.response().connectionClosed);   // we hung up, the server did not
}

void TestLoopbackClient::series_sendsEveryRequestOnOneConnectionAndCountsTheAnswers()
{
    // Even requests: a 200 hit with a body; odd ones: a 503 without a de-dup header.
    ScriptedServer server([](int n, const QByteArray &) -> QByteArray {
        if (n % 2 == 0)
            return "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nX-Breakwater-Dedup: hit\r\n\r\nok";
        return "HTTP/1.1 503 Service Unavailable\r\ncontent-length: 0\r\n\r\n";
    });
    const quint16 port = server.port();
    LoopbackClient series(port, [port](qint64 n) { return getRequest(port, n); });
    QSignalSpy finished(&series, &LoopbackClient::finished);
    series.setLimit(6);
    series.start();
    QTRY_COMPARE(finished.count(), 1);
    QVERIFY(series.isFinished());
    QCOMPARE(server.connections, 1);
    QCOMPARE(server.paths, (QList<QByteArray>{"/0", "/1", "/2", "/3", "/4", "/5"}));
    QCOMPARE(series.roundTripsNs().size(), 6);
    QCOMPARE(series.failures(), 3);   // the 503s
    QCOMPARE(series.dedupCounts(), (QMap<QByteArray, qint64>{{"", 3}, {"hit", 3}}));

    series.clearRecorded();
    QVERIFY(series.roundTripsNs().isEmpty());
    QCOMPARE(series.failures(), 0);
    QVERIFY(series.dedupCounts().isEmpty());
}

void TestLoopbackClient::series_chunkedAnswers_recordTheFirstChunkAndTheEnd()
{
    // Each answer is a stream: its head and first chunk at once, the rest (two more chunks and the
    // end) written once the event loop has passed again. Both times are recorded, the first chunk's
    // before the end's, and the next request goes out on the same connection.
    QTcpServer server;
    server.listen(QHostAddress::LocalHost);
    int requests = 0;
    QObject::connect(&server, &QTcpServer::newConnection, &server, [&] {
        QTcpSocket *socket = server.nextPendingConnection();
        QObject::connect(socket, &QTcpSocket::readyRead, socket, [&requests, socket] {
            const QByteArray request = socket->readAll();
            for (qsizetype at = request.indexOf("\r\n\r\n"); at >= 0; at = request.indexOf("\r\n\r\n", at + 4)) {
                ++requests;
                socket->write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n6\r\ndata:1\r\n");
                QTimer::singleShot(5ms, socket, [socket] { socket->write("6\r\ndata:2\r\n6;x=y\r\ndata:3\r\n0\r\n\r\n"); });
            }
        });
    });
    const quint16 port = server.serverPort();
    LoopbackClient series(port, [port](qint64 n) { return getRequest(port, n); });
    QSignalSpy finished(&series, &LoopbackClient::finished);
    series.setLimit(4);
    series.start();
    QTRY_COMPARE(finished.count(), 1);
    QCOMPARE(requests, 4);
    QCOMPARE(series.failures(), 0);
    QCOMPARE(series.roundTripsNs().size(), 4);
    QCOMPARE(series.firstChunksNs().size(), 4);
    for (int i = 0; i < 4; ++i)
        QVERIFY(series.firstChunksNs()[i] <= series.roundTripsNs()[i]);
    series.clearRecorded();
    QVERIFY(series.firstChunksNs().isEmpty());
}

void TestLoopbackClient::series_answerWithoutLengthOrChunks_givesUpAsAFailure()
{
    ScriptedServer server([](int, const QByteArray &) -> QByteArray {
        return "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nok";
    });
    const quint16 port = server.port();
    LoopbackClient series(port, [port](qint64 n) { return getRequest(port, n); });
    QSignalSpy finished(&series, &LoopbackClient::finished);
    series.start();   // no limit: only the failure ends it
    QTRY_COMPARE(finished.count(), 1);
    QCOMPARE(server.paths.size(), 1);
    QVERIFY(series.roundTripsNs().isEmpty());
    QCOMPARE(series.failures(), 1);
}

void TestLoopbackClient::series_lostConnection_givesUpAsAFailure()
{
    // The first answer is whole; then the server hangs up instead of answering the second request.
    ScriptedServer server([](int, const QByteArray &) -> QByteArray {
        return "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n";
    });
    server.hangUpAt = 1;
    const quint16 port = server.port();
    LoopbackClient series(port, [port](qint64 n) { return getRequest(port, n); });
    QSignalSpy finished(&series, &LoopbackClient::finished);
    series.setLimit(5);
    series.start();
    QTRY_COMPARE(finished.count(), 1);
    QCOMPARE(server.paths.size(), 2);
    QCOMPARE(series.roundTripsNs().size(), 1);
    QCOMPARE(series.failures(), 1);
}

QTEST_GUILESS_MAIN(TestLoopbackClient)
#include "tst_loopbackclient.moc"
