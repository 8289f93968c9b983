// Slow readers are bounded in all, not only one by one (issue 12: N clients that never read held N
// times an answer). A client already behind is dropped once every client together holds more than
// the bound unsent; a client that keeps up is never summed or dropped.
#include "http/responsewriter.h"

#include <QTcpServer>
#include <QTcpSocket>
#include <QTest>

#include <memory>
#include <vector>

class TestResponseWriter final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void slowReaders_droppedWhenTogetherOverTheBound();
    void streamHead_waitsForTheFirstChunk_butNotLonger();
};

void TestResponseWriter::slowReaders_droppedWhenTogetherOverTheBound()
{
    constexpr qint64 kMiB = 1024 * 1024;
    ResponseWriter::setUnsentBoundsForTests(1 * kMiB, 8 * kMiB);
    QTcpServer listener;   // the accepted sockets are its children, as the front door's are
    QVERIFY(listener.listen(QHostAddress::LocalHost, 0));
    std::vector<std::unique_ptr<QTcpSocket>> readers;   // connected, never reading
    QList<QTcpSocket *> accepted;
    for (int i = 0; i < 2; ++i) {
        auto reader = std::make_unique<QTcpSocket>();
        reader->connectToHost(QHostAddress::LocalHost, listener.serverPort());
        QVERIFY(reader->waitForConnected(5000));
        reader->setSocketOption(QAbstractSocket::ReceiveBufferSizeSocketOption, 64 * 1024);
        QVERIFY(listener.waitForNewConnection(5000));
        accepted.append(listener.nextPendingConnection());
        // Small kernel buffers: the writer sends what it can at once, and the kernel must not be
        // able to take a reader's megabytes off its unsent count.
        accepted.last()->setSocketOption(QAbstractSocket::SendBufferSizeSocketOption, 64 * 1024);
        readers.push_back(std::move(reader));
    }
    // Written with no event loop in between: what the kernel did not take at once stays unsent.
    ResponseWriter first(accepted[0]);
    ResponseWriter second(accepted[1]);
    first.beginStream(200, {{"Content-Type", "text/event-stream"}});
    second.beginStream(200, {{"Content-Type", "text/event-stream"}});
    const QByteArray piece(5 * kMiB, 'x');
    first.writeChunk(piece);    // 5 MiB unsent: one reader alone is within every bound
    second.writeChunk(piece);   // 10 MiB in all, but second was not behind before this write
    QVERIFY(first.isConnected() && second.isConnected());
    first.writeChunk("more");   // first is behind and together they hold 10 MiB > 8 MiB: dropped
    QVERIFY(!first.isConnected());
    second.endStream();         // second stays: without first, all together hold 5 MiB
    QVERIFY(second.isConnected());
    ResponseWriter::setUnsentBoundsForTests(ResponseWriter::kSlowReaderBytes, ResponseWriter::kMaxUnsentBytesInAll);
}

void TestResponseWriter::streamHead_waitsForTheFirstChunk_butNotLonger()
{
    // A stream's head goes out with its first chunk when that comes in the same turn (one segment,
    // the client's first byte sooner); a head whose first chunk is slow still leaves on the next turn.
    QTcpServer listener;
    QVERIFY(listener.listen(QHostAddress::LocalHost, 0));
    QTcpSocket reader;
    reader.connectToHost(QHostAddress::LocalHost, listener.serverPort());
    QVERIFY(reader.waitForConnected(5000));
    QVERIFY(listener.waitForNewConnection(5000));
    QTcpSocket *accepted = listener.nextPendingConnection();

    ResponseWriter together(accepted);
    together.beginStream(200, {{"Content-Type", "text/event-stream"}});
    QCOMPARE(accepted->bytesToWrite(), together.bytesWritten());   // held for the chunk
    together.writeChunk("data: 1\n\n");
    QCOMPARE(accepted->bytesToWrite(), 0);                         // both left at once
    together.endStream();
    QByteArray received;
    QTRY_VERIFY((received += reader.readAll()).endsWith("0\r\n\r\n"));
    QVERIFY(received.startsWith("HTTP/1.1 200 OK\r\n"));

    ResponseWriter slow(accepted);
    slow.beginStream(200, {{"Content-Type", "text/event-stream"}});
    QVERIFY(accepted->bytesToWrite() > 0);
    received.clear();
    QTRY_VERIFY((received += reader.readAll()).endsWith("\r\n\r\n"));   // no chunk came: out anyway
    QVERIFY(received.startsWith("HTTP/1.1 200 OK\r\n"));
}

QTEST_GUILESS_MAIN(TestResponseWriter)
#include "tst_responsewriter.moc"
