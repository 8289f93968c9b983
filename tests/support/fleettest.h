#pragma once

#include <QJsonObject>
#include <QList>
#include <QProcess>
#include <QStringList>
#include <QTemporaryDir>

#include <memory>

#include "loopbackclient.h"
#include "mockprovider.h"
#include "servicethread.h"

// A fleet on loopback for one test: its own `redis-server` (free port, no persistence), a mock
// provider in this process as both upstreams, and real `breakwater --headless` processes (the
// built binary) pointed at both with --shared-state. Every process is ended by its own pid, and
// Redis can be killed, paused (SIGSTOP) and started again on the same port mid-test.
class FleetTest final
{
public:
    // `breakwater`: the program to run (its path comes from CMake).
    explicit FleetTest(QString breakwater);
    ~FleetTest();
    FleetTest(const FleetTest &) = delete;
    FleetTest &operator=(const FleetTest &) = delete;

    // Starts Redis (on the port chosen at construction, also after killRedis) and waits (bounded) until it answers PING; false if it never does.
    bool startRedis(const QStringList &extra = {});
    void killRedis();      // SIGKILL, and waits for it to end
    void pauseRedis();     // SIGSTOP
    void resumeRedis();    // SIGCONT
    quint16 redisPort() const { return m_redisPort; }
    QString redisUrl() const;
    void setRedisUrl(const QString &url) { m_redisUrl = url; }   // what the next instances are given
    // One Redis command's reply line (RESP2, first line only), over a connection of its own.
    // `password`: AUTH first.
    QByteArray redisCommand(const QList<QByteArray> &args, const QByteArray &password = {}) const;

    // Starts one more instance with --shared-state and `extra` options; waits (bounded) for its
    // "listening on" line. Returns its index, or -1 if it never listened.
    int startInstance(const QStringList &extra = {});
    void killInstance(int instance);   // SIGKILL (a leader dying mid-call), and waits for it to end
    void pauseInstance(int instance);    // SIGSTOP (an instance that falls behind)
    void resumeInstance(int instance);   // SIGCONT
    quint16 port(int instance) const { return m_instances.at(instance)->port; }
    int instances() const { return int(m_instances.size()); }
    QByteArray controlToken(int instance) const;
    QString controlTokenFile(int instance) const;
    // GET /healthz of an instance, as JSON.
    QJsonObject health(int instance) const;

    MockProvider *mock() const { return m_mock->service(); }
    template <typename R>
    R onMock(std::function<R(MockProvider *)> call) const { return m_mock->template blocking<R>(call); }

private:
    static void signalProcess(QProcess *process, int signal);   // to its own pid, if it runs
    struct Instance
    {
        std::unique_ptr<QProcess> process;
        quint16 port = 0;
        QString home;
    };
    static quint16 freePort();
    void endProcess(QProcess &process);

    QString m_breakwater;
    QTemporaryDir m_dir;
    std::unique_ptr<ServiceThread<MockProvider>> m_mock;
    std::unique_ptr<QProcess> m_redis;
    quint16 m_redisPort = 0;
    QString m_redisUrl;   // empty: redis://127.0.0.1:PORT?timeout=1s
    QList<std::shared_ptr<Instance>> m_instances;
};
