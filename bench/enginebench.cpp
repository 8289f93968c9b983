#include "enginebench.h"

#include "benchloads.h"
#include "processstats.h"
#include "qnamengines.h"
#include "upstream/curlengine.h"

#include <sys/resource.h>

#include <QCoreApplication>
#include <QDir>
#include <QEventLoop>
#include <QFile>
#include <QProcess>
#include <QSslCertificate>
#include <QSslConfiguration>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QThread>
#include <QSet>
#include <QTimer>

#include <atomic>
#include <cstdio>
#include <thread>

using namespace Qt::StringLiterals;
using namespace std::chrono_literals;

namespace {

QString option(const QString &name, const QString &fallback = {})
{
    const QStringList args = QCoreApplication::arguments();
    const qsizetype at = args.indexOf(name);
    return at >= 0 && at + 1 < args.size() ? args[at + 1] : fallback;
}

void raiseOpenFiles()
{
    rlimit files{};
    getrlimit(RLIMIT_NOFILE, &files);
    files.rlim_cur = std::min<rlim_t>(files.rlim_max, 16384);
    setrlimit(RLIMIT_NOFILE, &files);
}

quint16 freePort()
{
    QTcpServer probe;
    probe.listen(QHostAddress::LocalHost, 0);
    return probe.serverPort();
}

bool waitForPort(quint16 port, const QProcess &process)
{
    for (int i = 0; i < 300 && process.state() != QProcess::NotRunning; ++i) {
        QTcpSocket socket;
        socket.connectToHost(QHostAddress::LocalHost, port);
        if (socket.waitForConnected(100))
            return true;
        QThread::msleep(50);
    }
    return false;
}

// The largest resident memory and thread count of a process, read every 100 ms on a thread of its
// own (the bench's main thread is busy driving or sleeping).
class Peak
{
public:
    explicit Peak(qint64 pid) : m_pid(pid), m_thread([this] { run(); }) {}
    ~Peak() { stop(); }
    void stop()
    {
        m_stop = true;
        if (m_thread.joinable())
            m_thread.join();
    }
    qint64 residentKiB() const { return m_resident.load(); }
    int threads() const { return m_threads.load(); }

private:
    void run()
    {
        while (!m_stop) {
            m_resident = std::max(m_resident.load(), processstats::residentKiB(m_pid));
            m_threads = std::max(m_threads.load(), processstats::threadCount(m_pid));
            std::this_thread::sleep_for(100ms);
        }
    }
    qint64 m_pid;
    std::atomic<bool> m_stop{false};
    std::atomic<qint64> m_resident{0};
    std::atomic<int> m_threads{0};
    std::thread m_thread;
};

// One proxy in a child process (`proxy-only`), killed with this object.
class Child
{
public:
    Child(const QString &engine, const QUrl &upstream, const QStringList &extra = {})
    {
        m_process.setProgram(QCoreApplication::applicationFilePath());
        m_process.setArguments(QStringList{u"proxy-only"_s, u"--engine"_s, engine, u"--upstream"_s,
                                           upstream.toString()} + extra);
        m_process.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        m_process.start();
        while (m_port == 0 && m_process.waitForReadyRead(30000)) {
            while (m_process.canReadLine()) {
                const QByteArray line = m_process.readLine().trimmed();
                if (line.startsWith("port "))
                    m_port = quint16(line.mid(5).toUInt());
            }
        }
    }
    ~Child()
    {
        m_process.kill();
        m_process.waitForFinished(5000);
    }
    quint16 port() const { return m_port; }
    qint64 pid() const { return m_process.processId(); }
    qint64 residentKiB() const { return processstats::residentKiB(pid()); }
    int threads() const { return processstats::threadCount(pid()); }

private:
    QProcess m_process;
    quint16 m_port = 0;
};

struct Figures
{
    QString name;
    // 1,000 streams
    qint64 streamsResidentKiB = -1, streamsPeakKiB = -1, idleKiB = -1;
    int streamsThreads = -1, streamsPeakThreads = -1, streamsOk = 0;
    // one keep-alive client, and direct in the rounds between this proxy's
    double missP50 = 0, missP99 = 0, firstByteP50 = 0, firstByteNewP50 = 0;
    double directMissP50 = 0, directFirstByteP50 = 0, directFirstByteNewP50 = 0;
    // 50 connections; direct in the rounds between this proxy's hits
    double missRps = 0, hitRps = 0, directRps = 0;
    // HTTP/2
    int h2Ok = -1, h2Connections = -1;
    QByteArray h2Protocol;
    // miss storm
    qint64 stormPeakKiB = -1, storm8PeakKiB = -1;
};

// Runs the client side of a measurement until `done`, on this thread's event loop.
void runUntil(const std::function<bool()> &done, std::chrono::milliseconds limit)
{
    QEventLoop loop;
    QTimer poll;
    QObject::connect(&poll, &QTimer::timeout, &loop, [&] {
        if (done())
            loop.quit();
    });
    poll.start(20);
    QTimer::singleShot(limit, &loop, &QEventLoop::quit);
    if (!done())
        loop.exec();
}

// 1,000 streamed calls, every prompt different, all in flight at once (the mock holds its answers
// until the last has arrived), then let go.
void thousandStreams(Figures &f, const Child &child, MockProvider *mock)
{
    mock->setHoldAnswers(true);
    mock->setChunkInterval(10ms);
    f.idleKiB = child.residentKiB();
    Peak peak(child.pid());
    QList<LoopbackClient *> calls;
    for (int i = 0; i < 1000; ++i) {
        auto *call = new LoopbackClient(child.port(), "POST", "/v1/chat/completions", kOpenAiAuth,
                                        chatBody(u"stream %1 of %2"_s.arg(i).arg(f.name), true));
        call->setTimeout(120s);
        call->start();
        calls.append(call);
    }
    runUntil([&] { return mock->heldCount() >= 1000; }, 60s);
    runUntil([] { return false; }, 300ms);   // settled
    f.streamsResidentKiB = child.residentKiB();
    f.streamsThreads = child.threads();
    mock->setHoldAnswers(false);
    runUntil([&] { return allFinished(calls); }, 120s);
    peak.stop();
    f.streamsPeakKiB = peak.residentKiB();
    f.streamsPeakThreads = peak.threads();
    for (LoopbackClient *call : calls) {
        f.streamsOk += call->response().status == 200 && call->response().complete;
        delete call;
    }
    mock->setChunkInterval(0ms);
}

// The same, each call on a new connection (its accept and set-up counted too): each call's first chunk.
QList<qint64> firstChunksOnNewConnections(quint16 port, int count, int tag)
{
    QList<qint64> firstNs;
    for (int i = 0; i < count; ++i) {
        LoopbackClient call(port, "POST", "/v1/chat/completions", kOpenAiAuth,
                            chatBody(u"first byte %1-%2"_s.arg(tag).arg(i), true));
        QEventLoop loop;
        QObject::connect(&call, &LoopbackClient::finished, &loop, &QEventLoop::quit);
        call.start();
        if (!call.isFinished())
            loop.exec();
        if (!call.response().chunkAtNs.isEmpty())
            firstNs.append(call.response().chunkAtNs.first());
    }
    return firstNs;
}

// What one keep-alive client recorded against one port, over several rounds.
struct OneClient
{
    QList<qint64> missNs;         // non-streamed calls, every prompt different
    QList<qint64> firstNs;        // a stream's first chunk, streamed calls one after another
    QList<qint64> firstNewNs;     // the same, each call on a new connection

    double missP50() const { return percentile(missNs, 0.5) / 1e6; }
    double missP99() const { return percentile(missNs, 0.99) / 1e6; }
    double firstP50() const { return percentile(firstNs, 0.5) / 1e6; }
    double firstNewP50() const { return percentile(firstNewNs, 0.5) / 1e6; }
    void round(quint16 port, int tag, int misses, int streams)
    {
        missNs += sequentialLoad(port, distinctRequests(port, tag), qMax(20, misses / 10), misses).tripsNs;
        firstNs += sequentialLoad(port, distinctStreams(port, tag), 10, streams).firstChunksNs;
        firstNewNs += firstChunksOnNewConnections(port, streams, tag);
    }
};

// "Over direct" is measured in rounds that alternate direct and the proxy: on this kind of VM the
// direct figures move by several tenths of a millisecond from one minute to the next, so direct
// measured once before the proxies would put that drift into the difference.
constexpr int kRounds = 10;

double rps(const Load &load)
{
    return load.seconds > 0 ? double(load.tripsNs.size()) / load.seconds : 0;
}

// 100 calls at once to an HTTPS upstream that speaks HTTP/2 (nghttpd with the test CA); the
// server's log names each connection's session.
void http2Calls(Figures &f, const QString &engine, const QString &caFile, quint16 h2Port, QProcess &h2)
{
    h2.readAll();
    Child child(engine, QUrl(u"https://127.0.0.1:%1/v1"_s.arg(h2Port)),
                {u"--ca-file"_s, caFile, u"--concurrency"_s, u"100"_s});
    QList<LoopbackClient *> calls;
    for (int i = 0; i < 100; ++i) {
        auto *call = new LoopbackClient(child.port(), "POST", "/v1/chat/completions", kOpenAiAuth,
                                        chatBody(u"h2 %1 %2"_s.arg(i).arg(engine)));
        call->start();
        calls.append(call);
    }
    runUntil([&] { return allFinished(calls); }, 60s);
    f.h2Ok = 0;
    for (LoopbackClient *call : calls) {
        f.h2Ok += call->response().status == 200;
        delete call;
    }
    runUntil([] { return false; }, 300ms);
    QSet<QByteArray> sessions;
    for (const QByteArray &line : h2.readAll().split('\n')) {
        if (line.startsWith("[id=") && line.contains("recv SETTINGS"))
            sessions.insert(line.left(line.indexOf(']')));
    }
    f.h2Connections = int(sessions.size());
}

qint64 missStorm(const QString &engine, const QUrl &upstream, const QStringList &extra, std::chrono::milliseconds length)
{
    Child child(engine, upstream, extra);
    Peak peak(child.pid());
    loadFor(child.port(), 50, [&](int i) { return distinctRequests(child.port(), 500 + i); }, 0ms, length);
    peak.stop();
    return peak.residentKiB();
}

QString mb(qint64 kib)
{
    return kib < 0 ? u"-"_s : QString::number(double(kib) / 1024.0, 'f', 1);
}

} // namespace

int engineBench()
{
    raiseOpenFiles();
    const QStringList engines = option(u"--engines"_s, u"thread,shared,curl"_s).split(u',');
    const QString portkey = option(u"--portkey"_s);
    const auto stormLength = std::chrono::milliseconds(qint64(option(u"--storm-seconds"_s, u"60"_s).toDouble() * 1000));
    const double scale = option(u"--scale"_s, u"1"_s).toDouble();
    const int sequential = qMax(100, int(3000 * scale));
    const int firstBytes = qMax(20, int(300 * scale));

    ServiceThread<MockProvider> mockThread(u"mock"_s, [] { return new MockProvider(0); });
    MockProvider *mock = mockThread.service();
    mock->setLatency(0ms);
    mock->setChunkInterval(0ms);
    const QUrl upstream = mock->openaiBaseUrl();

    // The HTTP/2 upstream: nghttpd answering /v1/chat/completions from a file.
    QTemporaryDir htdocs;
    QDir(htdocs.path()).mkpath(u"v1/chat"_s);
    QFile answer(htdocs.path() + u"/v1/chat/completions"_s);
    answer.open(QIODevice::WriteOnly);
    answer.write(R"({"id":"h2","object":"chat.completion","model":"gpt-4o-mini","choices":[{"index":0,"message":{"role":"assistant","content":"over h2"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}})");
    answer.close();
    const QString tls = QStringLiteral(BREAKWATER_SOURCE_DIR "/tests/data/tls/");
    const quint16 h2Port = freePort();
    QProcess h2;
    h2.setProcessChannelMode(QProcess::MergedChannels);
    h2.start(u"nghttpd"_s, {u"-v"_s, u"--htdocs=%1"_s.arg(htdocs.path()), u"--address=127.0.0.1"_s,
                            QString::number(h2Port), tls + u"server.key"_s, tls + u"server.pem"_s});
    const bool h2Up = h2.waitForStarted(5000) && waitForPort(h2Port, h2);

    std::printf("engine: issue 23's targets, each proxy alone in a child process, mock provider latency 0;\n"
                "  over direct and hits / direct: direct measured in the rounds between each proxy's (%d and 5 rounds)\n", kRounds);
    Figures direct;
    direct.name = u"direct"_s;
    direct.missRps = rps(loadFor(mock->port(), 50, [&](int i) { return distinctRequests(mock->port(), i); }, 1s, 5s));
    OneClient directOneClient;   // every engine's direct rounds

    double portkeyRps = -1;
    if (!portkey.isEmpty()) {
        const quint16 port = freePort();
        QProcess gateway;
        gateway.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        gateway.setStandardOutputFile(QProcess::nullDevice());
        gateway.start(u"node"_s, {portkey, u"--port=%1"_s.arg(port), u"--headless"_s});
        if (gateway.waitForStarted(5000) && waitForPort(port, gateway)) {
            const HeaderList route{{"x-portkey-provider", "openai"},
                                   {"x-portkey-custom-host", upstream.toString().toUtf8()}};
            const Load load = loadFor(port, 50, [&](int i) { return distinctRequests(port, 100 + i, route); }, 1s, 5s);
            portkeyRps = load.failures == 0 ? rps(load) : -1;
            if (load.failures)
                std::printf("  (Portkey: %d failed answers)\n", load.failures);
        }
        gateway.kill();
        gateway.waitForFinished(5000);
    }

    QList<Figures> all;
    for (const QString &engine : engines) {
        Figures f;
        f.name = engine;
        {
            Child child(engine, upstream, {u"--concurrency"_s, u"1000"_s});
            if (child.port() == 0) {
                std::printf("  %s: the proxy did not start\n", qPrintable(engine));
                continue;
            }
            thousandStreams(f, child, mock);
        }
        {
            Child child(engine, upstream);
            OneClient proxied, direct1;
            for (int r = 0; r < kRounds; ++r) {
                direct1.round(mock->port(), 3000 + r, sequential / kRounds, firstBytes / kRounds);
                proxied.round(child.port(), 3000 + r, sequential / kRounds, firstBytes / kRounds);
            }
            f.missP50 = proxied.missP50();
            f.missP99 = proxied.missP99();
            f.firstByteP50 = proxied.firstP50();
            f.firstByteNewP50 = proxied.firstNewP50();
            f.directMissP50 = direct1.missP50();
            f.directFirstByteP50 = direct1.firstP50();
            f.directFirstByteNewP50 = direct1.firstNewP50();
            directOneClient.missNs += direct1.missNs;
            directOneClient.firstNs += direct1.firstNs;
            directOneClient.firstNewNs += direct1.firstNewNs;
            f.missRps = rps(loadFor(child.port(), 50, [&](int i) { return distinctRequests(child.port(), 200 + i); }, 1s, 5s));
            // Hits against the mock answering directly, in alternating one-second rounds too.
            const QByteArray cached = chatRequest(child.port(), chatBody(u"a cached prompt"_s));
            Load hits, directMisses;
            for (int r = 0; r < 5; ++r) {
                directMisses.add(loadFor(mock->port(), 50, [&](int i) { return distinctRequests(mock->port(), 6000 + 100 * r + i); }, 300ms, 1s));
                hits.add(loadFor(child.port(), 50, [&](int) { return sameRequest(cached); }, 300ms, 1s));
            }
            f.hitRps = rps(hits);
            f.directRps = rps(directMisses);
        }
        if (h2Up)
            http2Calls(f, engine, tls + u"ca.pem"_s, h2Port, h2);
        f.stormPeakKiB = missStorm(engine, upstream, {}, stormLength);
        if (engine == u"curl"_s)
            f.storm8PeakKiB = missStorm(engine, upstream, {u"--cache-size"_s, u"8"_s}, stormLength);
        all.append(f);
    }
    h2.kill();
    h2.waitForFinished(5000);
    direct.missP50 = directOneClient.missP50();
    direct.missP99 = directOneClient.missP99();
    direct.firstByteP50 = directOneClient.firstP50();
    direct.firstByteNewP50 = directOneClient.firstNewP50();

    std::printf("\n  %-34s %10s", "", "direct");
    for (const Figures &f : all)
        std::printf(" %10s", qPrintable(f.name));
    std::printf("   target (curl)\n");
    auto row = [&](const char *label, const QString &directValue, const std::function<QString(const Figures &)> &value,
                   const char *target) {
        std::printf("  %-34s %10s", label, qPrintable(directValue));
        for (const Figures &f : all)
            std::printf(" %10s", qPrintable(value(f)));
        std::printf("   %s\n", target);
    };
    const auto number = [](double v, int decimals) { return QString::number(v, 'f', decimals); };
    row("1,000 streams: RSS in flight, MB", u"-"_s, [](const Figures &f) { return mb(f.streamsResidentKiB); }, "< 80");
    row("1,000 streams: RSS peak, MB", u"-"_s, [](const Figures &f) { return mb(f.streamsPeakKiB); }, "");
    row("1,000 streams: threads in flight", u"-"_s, [](const Figures &f) { return QString::number(f.streamsThreads); }, "<= 16");
    row("1,000 streams: threads peak", u"-"_s, [](const Figures &f) { return QString::number(f.streamsPeakThreads); }, "");
    row("1,000 streams: answered 200", u"-"_s, [](const Figures &f) { return QString::number(f.streamsOk); }, "1000");
    row("idle RSS before, MB", u"-"_s, [](const Figures &f) { return mb(f.idleKiB); }, "");
    row("1 client: miss p50, ms", number(direct.missP50, 3), [&](const Figures &f) { return number(f.missP50, 3); }, "");
    row("1 client: miss p50 over direct, ms", u"-"_s, [&](const Figures &f) { return number(f.missP50 - f.directMissP50, 3); }, "<= 0.3");
    row("1 client: miss p99, ms", number(direct.missP99, 3), [&](const Figures &f) { return number(f.missP99, 3); }, "");
    row("1 client: stream first byte p50, ms", number(direct.firstByteP50, 3), [&](const Figures &f) { return number(f.firstByteP50, 3); }, "");
    row("1 client: first byte over direct, ms", u"-"_s, [&](const Figures &f) { return number(f.firstByteP50 - f.directFirstByteP50, 3); }, "<= 0.3");
    row("new connections: first byte p50, ms", number(direct.firstByteNewP50, 3), [&](const Figures &f) { return number(f.firstByteNewP50, 3); }, "");
    row("new connections: over direct, ms", u"-"_s, [&](const Figures &f) { return number(f.firstByteNewP50 - f.directFirstByteNewP50, 3); }, "(<= 0.3)");
    row("50 conns: misses, requests/s", number(direct.missRps, 0), [&](const Figures &f) { return number(f.missRps, 0); },
        portkeyRps > 0 ? qPrintable(u">= 5 x Portkey (%1/s): %2/s"_s.arg(portkeyRps, 0, 'f', 0).arg(5 * portkeyRps, 0, 'f', 0)) : ">= 5 x Portkey (not run)");
    row("50 conns: hits, requests/s", u"-"_s, [&](const Figures &f) { return number(f.hitRps, 0); }, "");
    row("  direct in the rounds between", u"-"_s, [&](const Figures &f) { return number(f.directRps, 0); }, "");
    row("  hits / direct", u"-"_s, [&](const Figures &f) { return number(f.hitRps / f.directRps, 2); }, ">= 0.95");
    row("HTTP/2: 100 calls answered 200", u"-"_s, [](const Figures &f) { return QString::number(f.h2Ok); }, "100");
    row("HTTP/2: connections at the server", u"-"_s, [](const Figures &f) { return QString::number(f.h2Connections); }, "<= 2");
    row(qPrintable(u"miss storm %1 s: RSS peak, MB"_s.arg(stormLength.count() / 1000)), u"-"_s,
        [](const Figures &f) { return mb(f.stormPeakKiB); }, "<= 64 + 50");
    row("  same, --cache-size 8", u"-"_s, [](const Figures &f) { return mb(f.storm8PeakKiB); }, "<= 8 + 50");
    if (portkeyRps > 0)
        std::printf("  Portkey gateway %s, 50 conns, misses: %.0f requests/s\n", qPrintable(portkey), portkeyRps);
    else
        std::printf("  Portkey gateway: not run (--portkey PATH to its build/start-server.js)\n");
    if (!h2Up)
        std::printf("  HTTP/2: nghttpd did not start (packaging/setup.sh installs nghttp2-server)\n");
    return 0;
}

int proxyOnly()
{
    raiseOpenFiles();
    const QString engineName = option(u"--engine"_s, u"curl"_s);
    ProxyConfig config;
    config.listenPort = 0;
    config.openaiUpstream = QUrl(option(u"--upstream"_s));
    config.anthropicUpstream = config.openaiUpstream;
    config.concurrency = option(u"--concurrency"_s, QString::number(defaults::kConcurrency)).toInt();
    if (const QString size = option(u"--cache-size"_s); !size.isEmpty())
        config.cacheBytes = qint64(size.toDouble() * 1024 * 1024);
    config.caFile = option(u"--ca-file"_s);
    if (!config.caFile.isEmpty()) {
        // Qt's engines read the default TLS configuration (the CurlEngine reads config.caFile).
        QSslConfiguration tls = QSslConfiguration::defaultConfiguration();
        tls.addCaCertificates(QSslCertificate::fromPath(config.caFile));
        QSslConfiguration::setDefaultConfiguration(tls);
    }
    if (engineName == u"thread"_s)
        config.upstreamEngine = std::make_shared<ThreadPerCallEngine>(2 * config.concurrency);
    else if (engineName == u"shared"_s)
        config.upstreamEngine = std::make_shared<SharedThreadEngine>((2 * config.concurrency + 5) / 6);
    SystemClock clock;
    ServiceThread<ProxyServer> proxy(u"proxy"_s, [&] {
        auto *server = new ProxyServer(config, clock);
        if (const Result listening = server->listen(); !listening.ok()) {
            std::fprintf(stderr, "engine bench proxy: %s\n", qPrintable(listening.error()));
            delete server;
            return static_cast<ProxyServer *>(nullptr);
        }
        return server;
    });
    if (!proxy.service())
        return 1;
    std::printf("port %u\n", unsigned(proxy.service()->port()));
    std::fflush(stdout);
    return QCoreApplication::exec();
}

int mockOnly()
{
    ServiceThread<MockProvider> mockThread(u"mock"_s, [] { return new MockProvider(0); });
    mockThread.service()->setLatency(0ms);
    mockThread.service()->setChunkInterval(0ms);
    std::printf("port %u\n", unsigned(mockThread.service()->port()));
    std::fflush(stdout);
    return QCoreApplication::exec();
}
