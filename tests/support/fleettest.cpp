#include "fleettest.h"

#include <QDeadlineTimer>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTest>

#include <csignal>

using namespace Qt::StringLiterals;

namespace {
constexpr int kStartWaitMs = 30'000;   // bounded, generous for ASan; never reached when it passes
}

FleetTest::FleetTest(QString breakwater) : m_breakwater(std::move(breakwater)), m_redisPort(freePort())
{
    m_mock = std::make_unique<ServiceThread<MockProvider>>(u"fleet-mock"_s, [] { return new MockProvider; });
}

FleetTest::~FleetTest()
{
    for (int i = 0; i < m_instances.size(); ++i) {
        QProcess &process = *m_instances.at(i)->process;
        endProcess(process);
        // What each instance said is the only trace of a race between processes: shown on failure.
        if (QTest::currentTestFailed())
            qWarning().noquote() << u"instance %1 said:\n"_s.arg(i) + QString::fromLocal8Bit(process.readAllStandardError());
    }
    if (m_redis)
        endProcess(*m_redis);
    m_mock.reset();
}

quint16 FleetTest::freePort()
{
    QTcpServer server;
    server.listen(QHostAddress::LocalHost, 0);
    return server.serverPort();
}

void FleetTest::endProcess(QProcess &process)
{
    if (process.state() == QProcess::NotRunning)
        return;
    ::kill(pid_t(process.processId()), SIGCONT);   // a stopped process would not see SIGTERM until continued
    ::kill(pid_t(process.processId()), SIGTERM);
    if (!process.waitForFinished(10'000)) {
        process.kill();   // SIGKILL to its own pid
        process.waitForFinished(5'000);
    }
}

bool FleetTest::startRedis(const QStringList &extra)
{
    m_redis = std::make_unique<QProcess>();
    m_redis->setProcessChannelMode(QProcess::MergedChannels);
    m_redis->start(u"redis-server"_s, QStringList{u"--port"_s, QString::number(m_redisPort), u"--bind"_s, u"127.0.0.1"_s,
                                      u"--save"_s, u""_s, u"--appendonly"_s, u"no"_s} + extra);
    if (!m_redis->waitForStarted(kStartWaitMs))
        return false;
    const QDeadlineTimer deadline(kStartWaitMs);
    while (!deadline.hasExpired()) {
        if (const QByteArray pong = redisCommand({"PING"}); pong == "+PONG" || pong.startsWith("-NOAUTH"))
            return true;
        QTest::qWait(20);   // polling for readiness, not a verdict
    }
    return false;
}

void FleetTest::killRedis()
{
    if (!m_redis)
        return;
    m_redis->kill();
    m_redis->waitForFinished(5'000);
}

void FleetTest::signalProcess(QProcess *process, int signal)
{
    if (process && process->state() == QProcess::Running)
        ::kill(pid_t(process->processId()), signal);
}

void FleetTest::pauseRedis()
{
    signalProcess(m_redis.get(), SIGSTOP);
}

void FleetTest::resumeRedis()
{
    signalProcess(m_redis.get(), SIGCONT);
}

void FleetTest::pauseInstance(int instance)
{
    signalProcess(m_instances.at(instance)->process.get(), SIGSTOP);
}

void FleetTest::resumeInstance(int instance)
{
    signalProcess(m_instances.at(instance)->process.get(), SIGCONT);
}

QString FleetTest::redisUrl() const
{
    // A second, not the product's 100 ms: on a loaded machine (two builds beside the tests, ASan) a
    // Redis that is up can miss 100 ms, and a test would see its fleet degrade for no reason. A
    // test that stops Redis sees it degrade all the same, a second later.
    return m_redisUrl.isEmpty() ? u"redis://127.0.0.1:%1?timeout=1s"_s.arg(m_redisPort) : m_redisUrl;
}

QByteArray FleetTest::redisCommand(const QList<QByteArray> &args, const QByteArray &password) const
{
    QTcpSocket socket;
    socket.connectToHost(QHostAddress::LocalHost, m_redisPort);
    if (!socket.waitForConnected(1'000))
        return {};
    const auto encode = [](const QList<QByteArray> &command) {
        QByteArray bytes = '*' + QByteArray::number(command.size()) + "\r\n";
        for (const QByteArray &arg : command)
            bytes += '$' + QByteArray::number(arg.size()) + "\r\n" + arg + "\r\n";
        return bytes;
    };
    QByteArray reply;
    if (!password.isEmpty()) {
        socket.write(encode({"AUTH", password}));
        const QDeadlineTimer deadline(2'000);
        while (!reply.contains("\r\n") && !deadline.hasExpired() && socket.waitForReadyRead(int(deadline.remainingTime())))
            reply += socket.readAll();
        reply.clear();
    }
    socket.write(encode(args));
    const QDeadlineTimer deadline(2'000);
    while (!reply.contains("\r\n") && !deadline.hasExpired() && socket.waitForReadyRead(int(deadline.remainingTime())))
        reply += socket.readAll();
    return reply.left(reply.indexOf("\r\n"));
}

int FleetTest::startInstance(const QStringList &extra)
{
    auto instance = std::make_shared<Instance>();
    instance->home = m_dir.filePath(u"instance-%1"_s.arg(m_instances.size()));
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(u"XDG_CONFIG_HOME"_s, instance->home + u"/config"_s);
    environment.insert(u"XDG_DATA_HOME"_s, instance->home + u"/data"_s);
    environment.insert(u"XDG_STATE_HOME"_s, instance->home + u"/state"_s);
    environment.insert(u"QT_QPA_PLATFORM"_s, u"offscreen"_s);
    instance->process = std::make_unique<QProcess>();
    instance->process->setProcessEnvironment(environment);
    QStringList arguments{u"--headless"_s, u"--listen"_s, u"127.0.0.1:0"_s,
                          u"--log-db"_s, instance->home + u"/calls.sqlite"_s,
                          u"--upstream"_s, mock()->openaiBaseUrl().toString(),
                          u"--anthropic-upstream"_s, mock()->anthropicBaseUrl().toString(),
                          u"--shared-state"_s, redisUrl()};
    instance->process->start(m_breakwater, arguments + extra);
    const QRegularExpression listening(u"listening on http://127\\.0\\.0\\.1:(\\d+)/v1"_s);
    QString out;
    const QDeadlineTimer deadline(kStartWaitMs);
    while (!deadline.hasExpired() && instance->process->state() != QProcess::NotRunning) {
        instance->process->waitForReadyRead(100);
        out += QString::fromLocal8Bit(instance->process->readAllStandardOutput());
        if (const QRegularExpressionMatch match = listening.match(out); match.hasMatch()) {
            instance->port = quint16(match.captured(1).toUInt());
            m_instances.append(instance);
            return int(m_instances.size() - 1);
        }
    }
    qWarning().noquote() << "instance did not listen:" << out << instance->process->readAllStandardError();
    endProcess(*instance->process);
    return -1;
}

void FleetTest::killInstance(int instance)
{
    QProcess &process = *m_instances.at(instance)->process;
    process.kill();   // SIGKILL to its own pid
    process.waitForFinished(5'000);
}

QString FleetTest::controlTokenFile(int instance) const
{
    return m_instances.at(instance)->home + u"/config/breakwater/control-token"_s;
}

QByteArray FleetTest::controlToken(int instance) const
{
    QFile file(controlTokenFile(instance));
    return file.open(QIODevice::ReadOnly) ? file.readAll().trimmed() : QByteArray();
}

QJsonObject FleetTest::health(int instance) const
{
    const LoopbackResponse response = fetch(port(instance), "GET", "/healthz", {}, {}, std::chrono::seconds(5));
    return QJsonDocument::fromJson(response.body).object();
}
