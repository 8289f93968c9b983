// The upstream engine on the wire: what the upstream sees (the client's headers, the body once, even
// when a connection is reset after the POST, fresh or reused), backpressure (pause and resume),
// cancellation, curl's socket interest as it changes, 1,000 streams at once within a thread and
// memory budget, HTTP/2 multiplexing and --ca-file against a real h2 server (nghttpd, with the test
// CA in tests/data/tls), and a proxy in the environment that loopback calls never go through.
// What the proxy's own calls rely on is run twice: on a pool loop, and on the home loop of the
// calling thread (this one), which takes a call while it has none in flight.

#include "upstream/curlengine.h"
#include "upstream/curltransfer.h"
#include "upstream/upstreampool.h"

#include <sys/resource.h>

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QRegularExpression>
#include <QSet>
#include <QStandardPaths>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>

#include "mocktest.h"
#include "processstats.h"
#include "servicethread.h"
#include "wireevents.h"

using namespace Qt::StringLiterals;
using namespace std::chrono_literals;

namespace {

constexpr int kWait = 20000;

// A loopback HTTP/1.1 server run by a script: for the Nth request (from 0, over all connections)
// it answers, resets the connection once the whole request (head and body) was read, or holds.
// It records every request's head and body and counts connections. Lives on its own thread, so a
// test thread that stops reading does not stop it from writing.
class ScriptedUpstream final : public QTcpServer
{
public:
    enum class Action { Answer, Reset };
    struct Step
    {
        Action action = Action::Answer;
        QByteArray response;   // for Answer: written as is
    };
    using Script = std::function<Step(int index)>;

    explicit ScriptedUpstream(Script script) : m_script(std::move(script))
    {
        connect(this, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket *socket = nextPendingConnection()) {
                socket->setProperty("connection", m_connections.fetch_add(1));
                connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
                connect(socket, &QTcpSocket::readyRead, socket, [this, socket] { read(socket); });
            }
        });
        listen(QHostAddress::LocalHost, 0);
    }

    int connections() const { return m_connections.load(); }
    int requests() const { return m_requests.load(); }
    QByteArray head(int index) const
    {
        QMutexLocker lock(&m_mutex);
        return m_heads.value(index);
    }
    QByteArray body(int index) const
    {
        QMutexLocker lock(&m_mutex);
        return m_bodies.value(index);
    }
    // Which connection (from 0, in order of arrival) the Nth request came on.
    int connectionOf(int index) const
    {
        QMutexLocker lock(&m_mutex);
        return m_connectionOf.value(index, -1);
    }

    static QByteArray answer(int status, const QByteArray &body, const QByteArray &headerLines = {})
    {
        return "HTTP/1.1 " + QByteArray::number(status) + " Scripted\r\n" + headerLines
               + "Content-Type: application/json\r\nContent-Length: " + QByteArray::number(body.size())
               + "\r\n\r\n" + body;
    }

private:
    void read(QTcpSocket *socket)
    {
        QByteArray &pending = m_pending[socket];
        pending += socket->readAll();
        for (;;) {
            const qsizetype end = pending.indexOf("\r\n\r\n");
            if (end < 0)
                return;
            const QByteArray head = pending.left(end);
            qint64 length = 0;
            for (const QByteArray &line : head.split('\n')) {
                if (line.toLower().startsWith("content-length:"))
                    length = line.mid(15).trimmed().toLongLong();
            }
            if (pending.size() < end + 4 + length)
                return;
            const QByteArray body = pending.mid(end + 4, length);
            pending.remove(0, end + 4 + length);
            int index = 0;
            {
                QMutexLocker lock(&m_mutex);
                index = int(m_heads.size());
                m_heads.append(head);
                m_bodies.append(body);
                m_connectionOf.append(socket->property("connection").toInt());
            }
            m_requests.fetch_add(1);
            const Step step = m_script(index);
            if (step.action == Action::Reset) {
                // SO_LINGER {1, 0}: close() sends a TCP RST instead of a FIN.
                const linger hard{1, 0};
                ::setsockopt(int(socket->socketDescriptor()), SOL_SOCKET, SO_LINGER, &hard, sizeof hard);
                m_pending.remove(socket);
                socket->abort();
                return;
            }
            socket->write(step.response);
        }
    }

    Script m_script;
    std::atomic<int> m_connections{0};
    std::atomic<int> m_requests{0};
    mutable QMutex m_mutex;
    QList<QByteArray> m_heads;
    QList<QByteArray> m_bodies;
    QList<int> m_connectionOf;
    QHash<QTcpSocket *, QByteArray> m_pending;
};

struct Outcome
{
    int status = 0;
    HeaderList headers;
    qint64 bodyBytes = 0;
    QByteArray body;
    int pieces = 0;
    bool finished = false;
    UpstreamResult result;
};

// One call's signals, heard on the test thread; `keepBody` false only counts the bytes.
std::shared_ptr<Outcome> follow(UpstreamCall *call, bool keepBody = true)
{
    auto outcome = std::make_shared<Outcome>();
    QObject::connect(call, &UpstreamCall::headersReceived, call, [outcome](int status, const HeaderList &headers) {
        outcome->status = status;
        outcome->headers = headers;
    });
    QObject::connect(call, &UpstreamCall::bodyReceived, call, [outcome, keepBody](const QByteArray &piece) {
        outcome->bodyBytes += piece.size();
        ++outcome->pieces;
        if (keepBody)
            outcome->body += piece;
    });
    QObject::connect(call, &UpstreamCall::finished, call, [outcome](const UpstreamResult &result) {
        outcome->result = result;
        outcome->finished = true;
    });
    return outcome;
}

UpstreamRequest postTo(const QUrl &url, const QByteArray &body = R"({"model":"m","messages":[]})",
                     const HeaderList &headers = kJsonContentType)
{
    UpstreamRequest request;
    request.url = url;
    request.headers = headers;
    request.body = body;
    request.timeout = 10s;
    return request;
}

QUrl local(quint16 port, const QString &path = u"/v1/chat/completions"_s, const QString &scheme = u"http"_s)
{
    return QUrl(u"%1://127.0.0.1:%2%3"_s.arg(scheme).arg(port).arg(path));
}

// The header names of a raw request head, lower case, in order (the request line left out).
QList<QByteArray> headerNames(const QByteArray &head)
{
    QList<QByteArray> names;
    const QList<QByteArray> lines = head.split('\n');
    for (qsizetype i = 1; i < lines.size(); ++i) {
        const qsizetype colon = lines[i].indexOf(':');
        if (colon > 0)
            names.append(lines[i].left(colon).trimmed().toLower());
    }
    return names;
}

QString tlsFile(const char *name)
{
    return QStringLiteral(BREAKWATER_TEST_DATA "/tls/") + QString::fromLatin1(name);
}

QByteArray readAll(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

// Puts `bytes` at `path` (folders made as needed) under nghttpd's document root; false if it could not.
bool serveFile(const QTemporaryDir &htdocs, const QString &path, const QByteArray &bytes)
{
    const QString full = htdocs.path() + u'/' + path;
    QDir().mkpath(QFileInfo(full).path());
    QFile file(full);
    return file.open(QIODevice::WriteOnly) && file.write(bytes) == bytes.size();
}

// nghttpd (Debian's nghttp2-server, packaging/setup.sh) serving `htdocs` over TLS with the test
// CA's server certificate, h2 only. Its -v log names each connection's session as [id=N].
class H2Server
{
public:
    explicit H2Server(const QString &htdocs)
    {
        const QString program = QStandardPaths::findExecutable(u"nghttpd"_s);
        if (program.isEmpty())
            return;
        QTcpServer probe;   // a free port: nghttpd cannot be given port 0 and say which it took
        probe.listen(QHostAddress::LocalHost, 0);
        m_port = probe.serverPort();
        probe.close();
        m_process.setProgram(program);
        m_process.setArguments({u"-v"_s, u"--htdocs=%1"_s.arg(htdocs), u"--address=127.0.0.1"_s,
                                QString::number(m_port), tlsFile("server.key"), tlsFile("server.pem")});
        m_process.setProcessChannelMode(QProcess::MergedChannels);
        m_process.start();
        m_process.waitForStarted();
        // Ready once it accepts a connection.
        for (int i = 0; i < 200 && m_process.state() == QProcess::Running; ++i) {
            QTcpSocket socket;
            socket.connectToHost(QHostAddress::LocalHost, m_port);
            if (socket.waitForConnected(100)) {
                m_ready = true;
                break;
            }
            QTest::qWait(20);
        }
    }
    ~H2Server()
    {
        m_process.terminate();
        m_process.waitForFinished(5000);
    }
    bool isReady() const { return m_ready; }
    quint16 port() const { return m_port; }
    // Connections that opened an HTTP/2 session, from the log (our readiness probe sent none).
    int sessions()
    {
        m_log += m_process.readAll();
        QSet<QString> ids;
        static const QRegularExpression id(u"\\[id=(\\d+)\\] .*recv SETTINGS"_s);
        for (auto it = id.globalMatch(QString::fromLatin1(m_log)); it.hasNext();)
            ids.insert(it.next().captured(1));
        return int(ids.size());
    }

private:
    QProcess m_process;
    QByteArray m_log;
    quint16 m_port = 0;
    bool m_ready = false;
};

// The engine under test: its one pool loop, or (`home`) a home loop on this thread beside it.
std::shared_ptr<CurlEngine> newEngine(bool home)
{
    CurlEngine::Options options;
    options.homeLoop = home;
    return std::make_shared<CurlEngine>(options);
}

void addLoopRows()
{
    QTest::addColumn<bool>("home");
    QTest::newRow("pool loop") << false;
    QTest::newRow("home loop") << true;
}

} // namespace

class tst_CurlEngine final : public MockTest
{
    Q_OBJECT
private slots:
    void headers_goUpAsTheClientSentThem();
    void answerInOneRead_isOnePostToTheCall();
    void callDeletedOnItsHeaders_hearsNothingMore();
    void resetAfterPost_freshConnection_sentOnce_data() { addLoopRows(); }
    void resetAfterPost_freshConnection_sentOnce();
    void resetAfterPost_reusedConnection_sentOnce_data() { addLoopRows(); }
    void resetAfterPost_reusedConnection_sentOnce();
    void connectionReused_whileKeptAlive_notAfterClose_data() { addLoopRows(); }
    void connectionReused_whileKeptAlive_notAfterClose();
    void slowReceiver_pausesAndResumes_boundedAndWhole();
    void cancelDuringStream_endsAtOnce_andClosesTheConnection_data() { addLoopRows(); }
    void cancelDuringStream_endsAtOnce_andClosesTheConnection();
    void homeLoop_takesACallWhileIdle_thePoolTheRest();
    void socketInterest_everyKindCurlAsks_isFollowed();
    void thousandStreams_fitTheThreadAndMemoryBudget();
    void http2_hundredCalls_overAtMostTwoConnections();
    void http2_slowReceiver_pausesAndResumes_boundedAndWhole();
    void caFile_trustsTheExtraAuthority();
    void proxyInEnvironment_loopbackGoesDirect();
};

void tst_CurlEngine::headers_goUpAsTheClientSentThem()
{
    // Only what HTTP itself needs is added (Host, Content-Length); nothing of the library's own:
    // Qt's network manager sent accept-encoding, accept-language, user-agent and connection.
    ServiceThread<ScriptedUpstream> upstream(u"upstream"_s, [] {
        return new ScriptedUpstream([](int) { return ScriptedUpstream::Step{ScriptedUpstream::Action::Answer, ScriptedUpstream::answer(200, "{}")}; });
    });
    UpstreamPool pool(u"openai"_s, 2, 4);
    const HeaderList sent{{"Authorization", "Bearer sk-test"}, {"Content-Type", "application/json"},
                          {"X-Stainless-Lang", "js"}, {"accept-encoding", "gzip"}, {"anthropic-beta", "a"},
                          {"anthropic-beta", "b"}};
    auto outcome = follow(pool.submit(postTo(local(upstream.service()->serverPort()), "{}", sent), this));
    QTRY_VERIFY_WITH_TIMEOUT(outcome->finished, kWait);
    QCOMPARE(outcome->status, 200);
    const QByteArray head = upstream.service()->head(0);
    QVERIFY2(head.startsWith("POST /v1/chat/completions HTTP/1.1\r\n"), head.constData());
    QCOMPARE(headerNames(head), (QList<QByteArray>{"host", "authorization", "content-type", "x-stainless-lang",
                                                   "accept-encoding", "anthropic-beta", "anthropic-beta",
                                                   "content-length"}));
    QVERIFY(head.contains("\r\naccept-encoding: gzip\r\n"));
    QVERIFY(head.contains("\r\nanthropic-beta: a\r\nanthropic-beta: b\r\n"));
}

void tst_CurlEngine::answerInOneRead_isOnePostToTheCall()
{
    // Head and body written at once arrive in one read: the call's thread is woken once for them
    // (headers, then the body, in one post), not once for each, and the end follows.
    ServiceThread<ScriptedUpstream> upstream(u"upstream"_s, [] {
        return new ScriptedUpstream([](int) {
            return ScriptedUpstream::Step{ScriptedUpstream::Action::Answer, ScriptedUpstream::answer(200, R"({"ok":true})")};
        });
    });
    auto engine = std::make_shared<CurlEngine>(CurlEngine::Options{});
    UpstreamPool pool(u"openai"_s, 2, 4, engine);
    for (int i = 0; i < 3; ++i) {
        const int before = engine->counts().deliveries.load();
        auto outcome = follow(pool.submit(postTo(local(upstream.service()->serverPort())), this));
        QTRY_VERIFY_WITH_TIMEOUT(outcome->finished, kWait);
        QCOMPARE(outcome->status, 200);
        QCOMPARE(outcome->body, QByteArray(R"({"ok":true})"));
        QCOMPARE(outcome->pieces, 1);
        QCOMPARE(engine->counts().deliveries.load() - before, 1);
    }
}

void tst_CurlEngine::callDeletedOnItsHeaders_hearsNothingMore()
{
    // Headers and body come in one post; a call deleted by whoever heard its headers (a flight
    // refusing a status) is not handed the body afterwards (ASan would see it).
    ServiceThread<ScriptedUpstream> upstream(u"upstream"_s, [] {
        return new ScriptedUpstream([](int) {
            return ScriptedUpstream::Step{ScriptedUpstream::Action::Answer, ScriptedUpstream::answer(503, R"({"error":"busy"})")};
        });
    });
    auto engine = std::make_shared<CurlEngine>(CurlEngine::Options{});
    UpstreamPool pool(u"openai"_s, 2, 4, engine);
    UpstreamCall *call = pool.submit(postTo(local(upstream.service()->serverPort())), this);
    bool heardHeaders = false;
    int piecesAfter = 0;
    connect(call, &UpstreamCall::headersReceived, this, [&heardHeaders, call] {
        heardHeaders = true;
        delete call;
    });
    connect(call, &UpstreamCall::bodyReceived, this, [&piecesAfter] { ++piecesAfter; });
    QTRY_VERIFY_WITH_TIMEOUT(heardHeaders, kWait);
    QTRY_COMPARE_WITH_TIMEOUT(pool.running(), 0, kWait);
    QTRY_COMPARE_WITH_TIMEOUT(engine->counts().transfers.load(), 0, kWait);
    QCOMPARE(piecesAfter, 0);
}

void tst_CurlEngine::resetAfterPost_freshConnection_sentOnce()
{
    ServiceThread<ScriptedUpstream> upstream(u"upstream"_s, [] {
        return new ScriptedUpstream([](int) { return ScriptedUpstream::Step{ScriptedUpstream::Action::Reset, {}}; });
    });
    QFETCH(bool, home);
    auto engine = newEngine(home);
    UpstreamPool pool(u"openai"_s, 2, 4, engine);
    auto outcome = follow(pool.submit(postTo(local(upstream.service()->serverPort())), this));
    QTRY_VERIFY_WITH_TIMEOUT(outcome->finished, kWait);
    QCOMPARE(int(outcome->result.failure), int(UpstreamFailure::Unreachable));
    QCOMPARE(upstream.service()->requests(), 1);
    QCOMPARE(upstream.service()->connections(), 1);
    QCOMPARE(pool.refusedRetries(), 0);
    QCOMPARE(engine->homeCalls(), home ? 1 : 0);
}

void tst_CurlEngine::resetAfterPost_reusedConnection_sentOnce()
{
    // The first call leaves a kept-alive connection; the second goes out on it, and the upstream
    // reads the POST and resets. curl re-sends on a reused connection that answered nothing
    // (twice at the upstream, and billed twice); the pre-request callback ends the transfer there.
    ServiceThread<ScriptedUpstream> upstream(u"upstream"_s, [] {
        return new ScriptedUpstream([](int index) {
            return index == 0 ? ScriptedUpstream::Step{ScriptedUpstream::Action::Answer, ScriptedUpstream::answer(200, "{}")}
                              : ScriptedUpstream::Step{ScriptedUpstream::Action::Reset, {}};
        });
    });
    QFETCH(bool, home);
    auto engine = newEngine(home);
    UpstreamPool pool(u"openai"_s, 2, 4, engine);
    auto first = follow(pool.submit(postTo(local(upstream.service()->serverPort())), this));
    QTRY_VERIFY_WITH_TIMEOUT(first->finished, kWait);
    QCOMPARE(first->status, 200);
    auto second = follow(pool.submit(postTo(local(upstream.service()->serverPort()), R"({"n":2})"), this));
    QTRY_VERIFY_WITH_TIMEOUT(second->finished, kWait);
    QCOMPARE(int(second->result.failure), int(UpstreamFailure::Unreachable));
    QVERIFY2(second->result.detail.contains(u"not sent again"_s), qPrintable(second->result.detail));
    QCOMPARE(upstream.service()->requests(), 2);   // one each
    // The second did go out on the reused connection. (curl opens a new one for its retry, and
    // then sends nothing on it: the pre-request callback refused.)
    QCOMPARE(upstream.service()->connectionOf(1), upstream.service()->connectionOf(0));
    QCOMPARE(engine->homeCalls(), home ? 2 : 0);
}

void tst_CurlEngine::connectionReused_whileKeptAlive_notAfterClose()
{
    // Three calls in a row: the first two share a connection; the second answer says
    // "Connection: close", so the third opens a new one.
    ServiceThread<ScriptedUpstream> upstream(u"upstream"_s, [] {
        return new ScriptedUpstream([](int index) {
            return ScriptedUpstream::Step{ScriptedUpstream::Action::Answer,
                                          ScriptedUpstream::answer(200, "{}", index == 1 ? "Connection: close\r\n" : "")};
        });
    });
    QFETCH(bool, home);
    auto engine = newEngine(home);
    UpstreamPool pool(u"openai"_s, 2, 4, engine);
    for (int i = 0; i < 3; ++i) {
        auto outcome = follow(pool.submit(postTo(local(upstream.service()->serverPort())), this));
        QTRY_VERIFY_WITH_TIMEOUT(outcome->finished, kWait);
        QCOMPARE(outcome->status, 200);
        QCOMPARE(upstream.service()->connections(), i < 2 ? 1 : 2);
    }
    QCOMPARE(engine->homeCalls(), home ? 3 : 0);
}

void tst_CurlEngine::slowReceiver_pausesAndResumes_boundedAndWhole()
{
    // 8 MiB come at once while the thread the call lives on (this one) hears nothing: the engine
    // stops reading past its bound instead of queueing the whole answer for a busy thread, and
    // goes on when the thread has heard enough. The answer arrives whole.
    const QByteArray big(8 * 1024 * 1024, 'x');
    ServiceThread<ScriptedUpstream> upstream(u"upstream"_s, [big] {
        return new ScriptedUpstream([big](int) { return ScriptedUpstream::Step{ScriptedUpstream::Action::Answer, ScriptedUpstream::answer(200, big)}; });
    });
    auto engine = std::make_shared<CurlEngine>(CurlEngine::Options{});
    UpstreamPool pool(u"openai"_s, 2, 4, engine);
    auto outcome = follow(pool.submit(postTo(local(upstream.service()->serverPort())), this), false);
    // No event is processed here until the engine paused: every piece it posted is still queued.
    QDeadlineTimer deadline(kWait);
    while (engine->counts().pauses.load() == 0 && !deadline.hasExpired())
        QThread::yieldCurrentThread();
    QVERIFY(engine->counts().pauses.load() >= 1);
    QVERIFY2(engine->counts().mostUndelivered.load() <= CurlTransfer::kPauseAbove + CURL_MAX_WRITE_SIZE,
             QByteArray::number(engine->counts().mostUndelivered.load()).constData());
    QTRY_VERIFY_WITH_TIMEOUT(outcome->finished, kWait);
    QCOMPARE(int(outcome->result.failure), int(UpstreamFailure::None));
    QCOMPARE(outcome->bodyBytes, qint64(big.size()));
    QVERIFY(engine->counts().resumes.load() >= 1);
    QVERIFY(engine->counts().mostUndelivered.load() <= CurlTransfer::kPauseAbove + CURL_MAX_WRITE_SIZE);
}

void tst_CurlEngine::cancelDuringStream_endsAtOnce_andClosesTheConnection()
{
    // A stream that goes on for minutes; cancelled from inside the handler of its first piece
    // (the flight does this when its last caller leaves), it ends as Cancelled and the upstream
    // sees its connection closed, not left to run.
    mock()->setSlowGap(60s);
    mock()->setMode(MockProvider::Mode::SlowStream);
    QFETCH(bool, home);
    auto engine = newEngine(home);
    UpstreamPool pool(u"openai"_s, 2, 4, engine);
    UpstreamCall *call = pool.submit(postTo(local(port()), R"({"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]})"), this);
    auto outcome = follow(call);
    connect(call, &UpstreamCall::bodyReceived, call, [call] { call->cancel(); });
    QTRY_VERIFY_WITH_TIMEOUT(outcome->finished, kWait);
    QCOMPARE(int(outcome->result.failure), int(UpstreamFailure::Cancelled));
    QCOMPARE(outcome->pieces, 1);
    QTRY_COMPARE_WITH_TIMEOUT(mock()->inFlight(), 0, kWait);
    QCOMPARE(engine->counts().transfers.load(), 0);
    QCOMPARE(pool.running(), 0);
    QCOMPARE(engine->homeCalls(), home ? 1 : 0);
}

void tst_CurlEngine::homeLoop_takesACallWhileIdle_thePoolTheRest()
{
    // One call after another: each finds the home loop idle and runs on this thread. Then 10
    // streams at once, held by the mock: the first takes the home loop, the other 9 go to the pool
    // loop. Every answer arrives whole, whichever loop carried it.
    auto engine = newEngine(true);
    UpstreamPool pool(u"openai"_s, 20, 0, engine);
    for (int i = 0; i < 3; ++i) {
        auto outcome = follow(pool.submit(postTo(local(port())), this));
        QTRY_VERIFY_WITH_TIMEOUT(outcome->finished, kWait);
        QCOMPARE(outcome->status, 200);
        QVERIFY(outcome->body.contains("chat.completion"));
    }
    QCOMPARE(engine->homeCalls(), 3);
    QCOMPARE(mock()->callCount(), 3);

    mock()->setHoldAnswers(true);
    QList<std::shared_ptr<Outcome>> outcomes;
    QObject owner;
    const QByteArray body = R"({"model":"m","stream":true,"messages":[{"role":"user","content":"held"}]})";
    for (int i = 0; i < 10; ++i)
        outcomes.append(follow(pool.submit(postTo(local(port()), body), &owner)));
    QTRY_COMPARE_WITH_TIMEOUT(mock()->heldCount(), 10, kWait);
    QCOMPARE(engine->homeCalls(), 4);
    QCOMPARE(engine->counts().transfers.load(), 10);
    mock()->releaseHeld();
    QTRY_VERIFY_WITH_TIMEOUT(std::all_of(outcomes.begin(), outcomes.end(), [](const auto &o) { return o->finished; }), kWait);
    for (const auto &outcome : outcomes) {
        QCOMPARE(outcome->status, 200);
        QCOMPARE(int(outcome->result.failure), int(UpstreamFailure::None));
        QVERIFY(outcome->body.contains("data: [DONE]"));
    }
    QCOMPARE(engine->counts().transfers.load(), 0);
}

void tst_CurlEngine::socketInterest_everyKindCurlAsks_isFollowed()
{
    // A connect (write interest), a request and its answer (read), a connection closed by the
    // upstream (remove), a new connection on the descriptor number curl just gave up: each call
    // completes, and curl's every request of interest reached the watch.
    ServiceThread<ScriptedUpstream> upstream(u"upstream"_s, [] {
        return new ScriptedUpstream([](int) {
            return ScriptedUpstream::Step{ScriptedUpstream::Action::Answer, ScriptedUpstream::answer(200, "{}", "Connection: close\r\n")};
        });
    });
    auto engine = std::make_shared<CurlEngine>(CurlEngine::Options{});
    UpstreamPool pool(u"openai"_s, 1, 8, engine);
    for (int i = 0; i < 5; ++i) {
        auto outcome = follow(pool.submit(postTo(local(upstream.service()->serverPort())), this));
        QTRY_VERIFY_WITH_TIMEOUT(outcome->finished, kWait);
        QCOMPARE(outcome->status, 200);
    }
    QCOMPARE(upstream.service()->connections(), 5);
    const CurlLoop::Counts &counts = engine->counts();
    QVERIFY(counts.interestOut.load() >= 5);      // each connect
    QVERIFY(counts.interestIn.load() >= 5);       // each answer
    QVERIFY(counts.interestRemove.load() >= 5);   // each close
    QCOMPARE(counts.transfers.load(), 0);
}

void tst_CurlEngine::thousandStreams_fitTheThreadAndMemoryBudget()
{
    // 1,000 streams in flight at once, all held by the mock until every one has arrived. Both ends
    // live in this process (the mock's 1,000 server sockets too), so the budget is for both.
    rlimit files{};
    getrlimit(RLIMIT_NOFILE, &files);
    if (files.rlim_cur < 4096) {
        files.rlim_cur = std::min<rlim_t>(files.rlim_max, 4096);
        setrlimit(RLIMIT_NOFILE, &files);
    }
    if (files.rlim_cur < 2200)
        QSKIP("needs 2,200 open files (1,000 sockets at each end)");
    const int threadsBefore = processstats::threadCount();
    const qint64 residentBefore = processstats::residentKiB();
    mock()->setChunkInterval(0ms);
    mock()->setHoldAnswers(true);
    auto engine = std::make_shared<CurlEngine>(CurlEngine::Options{});
    UpstreamPool pool(u"openai"_s, 1000, 0, engine);
    QList<std::shared_ptr<Outcome>> outcomes;
    QObject owner;
    const QByteArray body = R"({"model":"m","stream":true,"messages":[{"role":"user","content":"hello there"}]})";
    for (int i = 0; i < 1000; ++i)
        outcomes.append(follow(pool.submit(postTo(local(port()), body), &owner), false));
    QTRY_COMPARE_WITH_TIMEOUT(mock()->heldCount(), 1000, 60000);
    const int threads = processstats::threadCount();
    const qint64 residentGrowthKb = processstats::residentKiB() - residentBefore;
    qInfo("1,000 in flight: %d threads in the process (%d before), resident memory +%lld KB", threads,
          threadsBefore, residentGrowthKb);
    QCOMPARE(engine->counts().transfers.load(), 1000);
    QVERIFY2(threads <= 16, QByteArray::number(threads).constData());
#if !defined(__SANITIZE_ADDRESS__)
    // Both ends' sockets and buffers; the sanitizer's shadow memory would be counted too.
    QVERIFY2(residentGrowthKb < 64 * 1024, QByteArray::number(residentGrowthKb).constData());
#endif
    mock()->releaseHeld();
    QTRY_VERIFY_WITH_TIMEOUT(std::all_of(outcomes.begin(), outcomes.end(), [](const auto &o) { return o->finished; }), 60000);
    for (const auto &outcome : outcomes) {
        QCOMPARE(outcome->status, 200);
        QCOMPARE(int(outcome->result.failure), int(UpstreamFailure::None));
        QVERIFY(outcome->bodyBytes > 0);
    }
}

void tst_CurlEngine::http2_hundredCalls_overAtMostTwoConnections()
{
    QTemporaryDir htdocs;
    QVERIFY(serveFile(htdocs, u"v1/chat/completions"_s, R"({"ok":true})"));
    H2Server server(htdocs.path());
    if (!server.isReady())
        QSKIP("nghttpd is not installed (packaging/setup.sh installs nghttp2-server)");
    auto engine = std::make_shared<CurlEngine>(CurlEngine::Options{1, readAll(tlsFile("ca.pem"))});
    UpstreamPool pool(u"openai"_s, 100, 0, engine);
    QList<std::shared_ptr<Outcome>> outcomes;
    QObject owner;
    for (int i = 0; i < 100; ++i)
        outcomes.append(follow(pool.submit(postTo(local(server.port(), u"/v1/chat/completions"_s, u"https"_s)), &owner)));
    QTRY_VERIFY_WITH_TIMEOUT(std::all_of(outcomes.begin(), outcomes.end(), [](const auto &o) { return o->finished; }), kWait);
    for (const auto &outcome : outcomes) {
        QCOMPARE(int(outcome->result.failure), int(UpstreamFailure::None));
        QCOMPARE(outcome->status, 200);
        QCOMPARE(outcome->body, R"({"ok":true})"_ba);
    }
    QCOMPARE(pool.protocol(), "HTTP/2"_ba);
    QTRY_VERIFY_WITH_TIMEOUT(server.sessions() >= 1, kWait);
    QVERIFY2(server.sessions() <= 2, QByteArray::number(server.sessions()).constData());
}

void tst_CurlEngine::http2_slowReceiver_pausesAndResumes_boundedAndWhole()
{
    // As slowReceiver_pausesAndResumes_boundedAndWhole, over HTTP/2: the paused stream's window
    // closes (curl stops reading it) instead of its 8 MiB queueing for a busy thread, and a small
    // call beside it on the same connection still completes once this thread listens again.
    QTemporaryDir htdocs;
    const QByteArray big(8 * 1024 * 1024, 'x');
    QVERIFY(serveFile(htdocs, u"v1/big"_s, big));
    QVERIFY(serveFile(htdocs, u"v1/small"_s, R"({"ok":true})"));
    H2Server server(htdocs.path());
    if (!server.isReady())
        QSKIP("nghttpd is not installed (packaging/setup.sh installs nghttp2-server)");
    auto engine = std::make_shared<CurlEngine>(CurlEngine::Options{1, readAll(tlsFile("ca.pem"))});
    UpstreamPool pool(u"openai"_s, 4, 4, engine);
    auto large = follow(pool.submit(postTo(local(server.port(), u"/v1/big"_s, u"https"_s)), this), false);
    QDeadlineTimer deadline(kWait);
    while (engine->counts().pauses.load() == 0 && !deadline.hasExpired())
        QThread::yieldCurrentThread();   // no event processed here: every piece posted is still queued
    QVERIFY(engine->counts().pauses.load() >= 1);
    QVERIFY2(engine->counts().mostUndelivered.load() <= CurlTransfer::kPauseAbove + CURL_MAX_WRITE_SIZE,
             QByteArray::number(engine->counts().mostUndelivered.load()).constData());
    auto small = follow(pool.submit(postTo(local(server.port(), u"/v1/small"_s, u"https"_s)), this));
    QTRY_VERIFY_WITH_TIMEOUT(large->finished && small->finished, kWait);
    QCOMPARE(int(large->result.failure), int(UpstreamFailure::None));
    QCOMPARE(large->bodyBytes, qint64(big.size()));
    QCOMPARE(int(small->result.failure), int(UpstreamFailure::None));
    QCOMPARE(small->body, R"({"ok":true})"_ba);
    QCOMPARE(pool.protocol(), "HTTP/2"_ba);
    QVERIFY(engine->counts().resumes.load() >= 1);
    QVERIFY(engine->counts().mostUndelivered.load() <= CurlTransfer::kPauseAbove + CURL_MAX_WRITE_SIZE);
}

void tst_CurlEngine::caFile_trustsTheExtraAuthority()
{
    QTemporaryDir htdocs;
    QVERIFY(serveFile(htdocs, u"v1/models"_s, R"({"data":[]})"));
    H2Server server(htdocs.path());
    if (!server.isReady())
        QSKIP("nghttpd is not installed (packaging/setup.sh installs nghttp2-server)");
    UpstreamRequest request;
    request.method = "GET";
    request.url = local(server.port(), u"/v1/models"_s, u"https"_s);
    request.timeout = 10s;

    // The system's authorities alone do not know the test CA.
    UpstreamPool untrusting(u"openai"_s, 1, 0, std::make_shared<CurlEngine>(CurlEngine::Options{}));
    auto refused = follow(untrusting.submit(request, this));
    QTRY_VERIFY_WITH_TIMEOUT(refused->finished, kWait);
    QCOMPARE(int(refused->result.failure), int(UpstreamFailure::Unreachable));
    QVERIFY2(refused->result.detail.contains(u"certificate"_s, Qt::CaseInsensitive), qPrintable(refused->result.detail));

    UpstreamPool trusting(u"openai"_s, 1, 0, std::make_shared<CurlEngine>(CurlEngine::Options{1, readAll(tlsFile("ca.pem"))}));
    auto answered = follow(trusting.submit(request, this));
    QTRY_VERIFY_WITH_TIMEOUT(answered->finished, kWait);
    QCOMPARE(int(answered->result.failure), int(UpstreamFailure::None));
    QCOMPARE(answered->status, 200);
    QCOMPARE(answered->body, R"({"data":[]})"_ba);
}

void tst_CurlEngine::proxyInEnvironment_loopbackGoesDirect()
{
    // A proxy in the environment (as a corporate machine has it): a call to a loopback upstream
    // never goes through it; a call to any other host does (the proxy here answers it itself, so
    // nothing leaves the machine).
    ServiceThread<ScriptedUpstream> proxy(u"proxy"_s, [] {
        return new ScriptedUpstream([](int) { return ScriptedUpstream::Step{ScriptedUpstream::Action::Answer, ScriptedUpstream::answer(200, R"({"via":"proxy"})")}; });
    });
    const QByteArray proxyUrl = "http://127.0.0.1:" + QByteArray::number(proxy.service()->serverPort());
    const QList<QByteArray> variables{"http_proxy", "https_proxy", "all_proxy", "HTTPS_PROXY", "ALL_PROXY"};
    for (const QByteArray &name : variables)
        qputenv(name.constData(), proxyUrl);
    qunsetenv("no_proxy");
    qunsetenv("NO_PROXY");
    const auto restore = qScopeGuard([&] {
        for (const QByteArray &name : variables)
            qunsetenv(name.constData());
    });
    UpstreamPool pool(u"openai"_s, 2, 4, std::make_shared<CurlEngine>(CurlEngine::Options{}));

    auto direct = follow(pool.submit(postTo(local(port(), u"/v1/chat/completions"_s)), this));
    QTRY_VERIFY_WITH_TIMEOUT(direct->finished, kWait);
    QCOMPARE(direct->status, 200);
    QCOMPARE(mock()->callCount(), 1);
    auto named = follow(pool.submit(postTo(QUrl(u"http://localhost:%1/v1/chat/completions"_s.arg(port()))), this));
    QTRY_VERIFY_WITH_TIMEOUT(named->finished, kWait);
    QCOMPARE(named->status, 200);
    QCOMPARE(mock()->callCount(), 2);
    QCOMPARE(proxy.service()->requests(), 0);

    auto proxied = follow(pool.submit(postTo(QUrl(u"http://upstream.example/v1/chat/completions"_s)), this));
    QTRY_VERIFY_WITH_TIMEOUT(proxied->finished, kWait);
    QCOMPARE(proxied->status, 200);
    QCOMPARE(proxied->body, R"({"via":"proxy"})"_ba);
    QCOMPARE(proxy.service()->requests(), 1);
    QVERIFY2(proxy.service()->head(0).startsWith("POST http://upstream.example/v1/chat/completions HTTP/1.1"),
             proxy.service()->head(0).constData());
}

QTEST_GUILESS_MAIN(tst_CurlEngine)
#include "tst_curlengine.moc"
