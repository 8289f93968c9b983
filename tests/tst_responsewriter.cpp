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
        QVERIFY(listener.waitForNewConnection(5000));
        accepted.append(listener.nextPendingConnection());
        readers.push_back(std::move(reader));
    }
    // Written with no event loop in between, so nothing leaves the sockets' own buffers.
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

QTEST_GUILESS_MAIN(TestResponseWriter)
#include "tst_responsewriter.moc"
