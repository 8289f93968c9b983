// The front door's refusals reach the client: a body over --max-body is answered with 413 and the
// connection is closed the nginx way (lingering close), so a client still sending its body reads
// the answer instead of a reset; and that lingering has its bounds (time, silence, bytes).

#include "http/frontdoor.h"
#include "http/requestmeter.h"
#include "proxyharness.h"
#include "servicethread.h"

#include <QTcpSocket>
#include <QTest>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

using namespace Qt::StringLiterals;
using namespace std::chrono_literals;

namespace {

constexpr qint64 kMiB = 1024 * 1024;

// A plain blocking loopback client, as curl or an SDK over a socket are: it writes its whole body
// before it reads, and it can go on writing after the server has shut its side (a QTcpSocket
// closes itself when it reads the server's end). Its waits are bounded by socket timeouts. Used
// only against servers on other threads.
class BlockingClient
{
public:
    explicit BlockingClient(quint16 port)
    {
        m_fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        const timeval timeout{10, 0};
        ::setsockopt(m_fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
        ::setsockopt(m_fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_port = htons(port);
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        m_connected = ::connect(m_fd, reinterpret_cast<const sockaddr *>(&address), sizeof address) == 0;
    }
    ~BlockingClient() { ::close(m_fd); }
    Q_DISABLE_COPY_MOVE(BlockingClient)

    bool isConnected() const { return m_connected; }
    QString lastError() const { return QString::fromLocal8Bit(std::strerror(m_errno)); }

    // Writes `bytes` in full; false at the first failure (a reset: ECONNRESET or EPIPE).
    bool send(const QByteArray &bytes)
    {
        for (qsizetype sent = 0; sent < bytes.size();) {
            const ssize_t n = ::send(m_fd, bytes.constData() + sent, size_t(bytes.size() - sent), MSG_NOSIGNAL);
            if (n <= 0) {
                m_errno = errno;
                return false;
            }
            sent += n;
        }
        return true;
    }

    // `total` bytes of body in 64 KiB pieces, until one fails; returns the bytes written.
    qint64 sendBody(qint64 total)
    {
        const QByteArray piece(64 * 1024, 'b');
        qint64 sent = 0;
        while (sent < total && send(piece))
            sent += piece.size();
        return sent;
    }

    // One response: its head and Content-Length body.
    QByteArray readResponse()
    {
        QByteArray received;
        qsizetype headEnd = -1;
        qint64 length = 0;
        while (headEnd < 0 || received.size() < headEnd + 4 + length) {
            char buffer[16 * 1024];
            const ssize_t n = ::recv(m_fd, buffer, sizeof buffer, 0);
            if (n <= 0) {
                m_errno = n < 0 ? errno : 0;
                break;
            }
            received.append(buffer, n);
            if (headEnd < 0 && (headEnd = received.indexOf("\r\n\r\n")) >= 0) {
                for (const QByteArray &line : received.left(headEnd).split('\n')) {
                    if (line.toLower().startsWith("content-length:"))
                        length = line.mid(15).trimmed().toLongLong();
                }
            }
        }
        return received;
    }

    // The server's orderly end of the connection (a FIN, not a reset or a timeout).
    bool readsEnd()
    {
        char buffer[1024];
        ssize_t n = 0;
        while ((n = ::recv(m_fd, buffer, sizeof buffer, 0)) > 0) {
        }
        m_errno = n < 0 ? errno : 0;
        return n == 0;
    }

private:
    int m_fd = -1;
    bool m_connected = false;
    int m_errno = 0;
};

QByteArray uploadHead(qint64 contentLength)
{
    return "POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
           "Authorization: Bearer sk-test-1\r\nContent-Length: " + QByteArray::number(contentLength) + "\r\n\r\n";
}

// Client connections the front door still holds open.
int connectedSockets(const ServiceThread<FrontDoor> &door)
{
    return door.blocking<int>([](FrontDoor *server) {
        int open = 0;
        for (const QTcpSocket *socket : server->findChildren<QTcpSocket *>())
            open += socket->state() == QAbstractSocket::ConnectedState;
        return open;
    });
}

} // namespace

class TestFrontDoor : public QObject
{
    Q_OBJECT

private slots:
    void oversizedUpload_readsIts413EveryTime();
    void oversizedUpload_clientStillSendingAfterTheAnswer_isNotReset();
    void lingering_endsAtItsBounds_data();
    void lingering_endsAtItsBounds();
    void connectionCap_clientsBeyondItWaitUntilOneCloses();
    void pipelinedRequests_areAnsweredInOrder_andTheConnectionIdlesOut();
    void pipelinedRequests_pastTheBound_areNotTaken_andTheConnectionCloses();
};

namespace {

// The open requests each of the proxy's client connections counts (its RequestMeter), read on
// the proxy thread.
QList<int> openRequestsPerConnection(const ProxyHarness &harness)
{
    return harness.onProxyThread<QList<int>>([](ProxyServer *proxy) {
        QList<int> open;
        const FrontDoor *door = proxy->findChild<FrontDoor *>();
        for (QTcpSocket *socket : door->findChildren<QTcpSocket *>(QString(), Qt::FindDirectChildrenOnly)) {
            if (socket->state() == QAbstractSocket::ConnectedState && RequestMeter::of(socket))
                open.append(RequestMeter::of(socket)->openRequests());
        }
        return open;
    });
}

int openConnections(const ProxyHarness &harness)
{
    return harness.onProxyThread<int>([](ProxyServer *proxy) { return proxy->findChild<FrontDoor *>()->openConnections(); });
}

} // namespace

void TestFrontDoor::oversizedUpload_readsIts413EveryTime()
{
    // The field case scaled down: 8 MiB against a 1 MiB limit, sent in one go as an SDK does.
    ProxyHarness harness([](ProxyConfig &c) { c.maxBodyBytes = 1 * kMiB; });
    const QByteArray body(8 * kMiB, 'a');
    int answered = 0;
    for (int i = 0; i < 10; ++i) {
        LoopbackClient call(harness.port(), "POST", "/v1/chat/completions", kOpenAiAuth, body);
        call.start();
        QTRY_VERIFY_WITH_TIMEOUT(call.isFinished(), 10'000);
        answered += call.response().status == 413 && call.response().complete;
    }
    QCOMPARE(answered, 10);
    QCOMPARE(harness.mock()->callCount(), 0);
}

void TestFrontDoor::oversizedUpload_clientStillSendingAfterTheAnswer_isNotReset()
{
    // A client that reads the 413 and then still sends its body (as a client does whose writes
    // were already under way): closing at once would answer those bytes with a reset.
    ProxyHarness harness([](ProxyConfig &c) { c.maxBodyBytes = 1 * kMiB; });
    BlockingClient client(harness.port());
    QVERIFY(client.isConnected());
    QVERIFY(client.send(uploadHead(8 * kMiB)));
    const QByteArray answer = client.readResponse();
    QVERIFY2(answer.startsWith("HTTP/1.1 413"), answer.constData());
    QVERIFY(answer.contains("Connection: close\r\n"));
    QVERIFY(answer.contains("request_too_large"));
    const qint64 sent = client.sendBody(8 * kMiB);
    QVERIFY2(sent == 8 * kMiB, qPrintable(u"reset after %1 of 8 MiB: %2"_s.arg(sent).arg(client.lastError())));
    QVERIFY2(client.readsEnd(), qPrintable(client.lastError()));   // then an orderly end
    QCOMPARE(harness.mock()->callCount(), 0);
}

void TestFrontDoor::lingering_endsAtItsBounds_data()
{
    QTest::addColumn<int>("lingerMs");
    QTest::addColumn<int>("silenceMs");
    QTest::addColumn<qint64>("lingerBytes");
    QTest::addColumn<bool>("keepsSending");
    QTest::newRow("time, client never stops") << 200 << 60'000 << (qint64(1) << 50) << true;
    QTest::newRow("bytes, client never stops") << 60'000 << 60'000 << 4 * kMiB << true;
    QTest::newRow("silence, client stops") << 60'000 << 200 << (qint64(1) << 50) << false;
}

void TestFrontDoor::lingering_endsAtItsBounds()
{
    QFETCH(int, lingerMs);
    QFETCH(int, silenceMs);
    QFETCH(qint64, lingerBytes);
    QFETCH(bool, keepsSending);
    RequestMeter::Limits limits;
    limits.maxBodyBytes = 1 * kMiB;
    limits.lingerTime = std::chrono::milliseconds(lingerMs);
    limits.lingerTimeout = std::chrono::milliseconds(silenceMs);
    limits.lingerBytes = lingerBytes;
    // The front door alone, on a thread of its own: a refusal is answered by it, before any server.
    ServiceThread<FrontDoor> door(u"door"_s, [&limits] {
        auto *server = new FrontDoor(limits);
        server->listen(QHostAddress::LocalHost, 0);
        return server;
    });
    BlockingClient client(door.service()->serverPort());
    QVERIFY(client.isConnected());
    QVERIFY(client.send(uploadHead(1024 * kMiB)));
    QVERIFY(client.readResponse().startsWith("HTTP/1.1 413"));
    if (keepsSending) {
        // It would send 16 GiB; the door must cut it off long before (with a reset, which is fine now).
        const qint64 cap = 16 * 1024 * kMiB;
        const qint64 sent = client.sendBody(cap);
        QVERIFY2(sent < cap, "the refused client was never cut off");
        if (lingerBytes < cap)
            QVERIFY2(sent < lingerBytes + 64 * kMiB, qPrintable(u"%1 bytes discarded"_s.arg(sent)));
    }
    QTRY_COMPARE_WITH_TIMEOUT(connectedSockets(door), 0, 10'000);
}

void TestFrontDoor::connectionCap_clientsBeyondItWaitUntilOneCloses()
{
    // Issue 12: with no cap, N clients that never read each held buffers; now the door stops
    // accepting at the cap and the kernel's backlog holds the next ones until a connection closes.
    RequestMeter::Limits limits;
    limits.maxConnections = 2;
    ServiceThread<FrontDoor> door(u"door"_s, [&limits] {
        auto *server = new FrontDoor(limits);
        server->listen(QHostAddress::LocalHost, 0);
        return server;
    });
    const quint16 port = door.service()->serverPort();
    auto first = std::make_unique<BlockingClient>(port);
    BlockingClient second(port);
    QTRY_COMPARE(connectedSockets(door), 2);
    BlockingClient third(port);   // its handshake completes in the backlog
    QVERIFY(third.isConnected());
    // What is checked is that nothing happens: give the door's event loop time to (not) accept it.
    const auto accepted = [&door] {
        return door.blocking<int>([](FrontDoor *server) { return int(server->findChildren<QTcpSocket *>().size()); });
    };
    QTest::qWait(300);
    QCOMPARE(accepted(), 2);
    first.reset();   // one closes: the third is accepted
    QTRY_COMPARE(accepted(), 3);
    QTRY_COMPARE(connectedSockets(door), 2);
    QCOMPARE(door.blocking<int>([](FrontDoor *server) { return server->openConnections(); }), 2);
}

void TestFrontDoor::pipelinedRequests_areAnsweredInOrder_andTheConnectionIdlesOut()
{
    // Issue 20: a model call and GET /healthz in one write. Qt's parser hands both over at once;
    // the health answer, ready first, went out first (the client took it for the chat answer), and
    // the connection's count of open requests never came back to 0, so it was never closed idle.
    ProxyHarness harness([](ProxyConfig &c) { c.idleTimeout = std::chrono::milliseconds(500); });
    harness.mock()->setHoldAnswers(true);   // the model call waits at the provider until released
    const QByteArray pipelined =
        LoopbackClient::requestBytes(harness.port(), "POST", "/v1/chat/completions", kOpenAiAuth, chatBody(u"first"_s))
        + LoopbackClient::requestBytes(harness.port(), "GET", "/healthz");
    LoopbackClient client(harness.port(), "GET", "/", {});
    client.setAnswers(2, /*untilClosed=*/true);
    client.setTimeout(std::chrono::seconds(30));
    client.startRaw(pipelined);
    QTRY_COMPARE(harness.mock()->callCount(), 1);
    QCOMPARE(openRequestsPerConnection(harness), QList<int>{2});   // both received, neither answered
    QCOMPARE(client.answers().size(), 0);
    harness.mock()->releaseHeld();

    QTRY_COMPARE_WITH_TIMEOUT(client.answers().size(), 2, 10'000);
    const LoopbackResponse chat = client.answers().at(0);
    const LoopbackResponse health = client.answers().at(1);
    QCOMPARE(chat.status, 200);
    QCOMPARE(chat.header("x-breakwater-dedup"), "miss"_ba);
    QVERIFY2(chat.body.contains("chat.completion"), chat.body.constData());
    QCOMPARE(health.status, 200);
    QVERIFY2(health.body.contains("faults_armed"), health.body.constData());
    QTRY_COMPARE(openRequestsPerConnection(harness), QList<int>{0});
    // Nothing open on it: the idle timeout closes it, as any idle connection.
    QTRY_VERIFY_WITH_TIMEOUT(client.isFinished(), 10'000);
    QVERIFY(client.response().connectionClosed);
    QTRY_COMPARE(openConnections(harness), 0);
}

void TestFrontDoor::pipelinedRequests_pastTheBound_areNotTaken_andTheConnectionCloses()
{
    // Behind a call that takes its time, at most kMaxWaiting requests wait for their turn; the one
    // after them is not answered (a client sends it again on a new connection, RFC 9112 9.3.2)
    // and the connection closes once the answers before it are written.
    ProxyHarness harness;
    harness.mock()->setHoldAnswers(true);
    QByteArray pipelined =
        LoopbackClient::requestBytes(harness.port(), "POST", "/v1/chat/completions", kOpenAiAuth, chatBody(u"slow"_s));
    const int behind = RequestMeter::kMaxWaiting + 2;
    for (int i = 0; i < behind; ++i)
        pipelined += LoopbackClient::requestBytes(harness.port(), "GET", "/healthz");
    LoopbackClient client(harness.port(), "GET", "/", {});
    client.setAnswers(behind + 1);
    client.setTimeout(std::chrono::seconds(30));
    client.startRaw(pipelined);
    QTRY_COMPARE(harness.mock()->callCount(), 1);
    QTRY_COMPARE(openRequestsPerConnection(harness), QList<int>{behind + 1});
    harness.mock()->releaseHeld();

    QTRY_VERIFY_WITH_TIMEOUT(client.isFinished(), 10'000);
    QVERIFY(client.response().connectionClosed);
    QCOMPARE(client.answers().size(), 1 + RequestMeter::kMaxWaiting);
    QVERIFY(client.answers().at(0).body.contains("chat.completion"));
    for (int i = 1; i < client.answers().size(); ++i)
        QVERIFY(client.answers().at(i).body.contains("faults_armed"));
    QTRY_COMPARE(openConnections(harness), 0);
}

QTEST_GUILESS_MAIN(TestFrontDoor)
#include "tst_frontdoor.moc"
