#pragma once

#include <QHash>
#include <QObject>
#include <QPointer>
#include <QTimer>

#include <algorithm>
#include <chrono>
#include <functional>

#include "fleet/redistarget.h"
#include "fleet/redisreply.h"

struct redisAsyncContext;

// One connection to the fleet's Redis, driven by hiredis's async API on this object's thread (the
// proxy thread: the socket is watched by QSocketNotifiers, so nothing here ever blocks it).
//
// Redis is a peer that can fail. hiredis 0.14 has no timeouts, so every command carries its own
// deadline (the target's timeout, 100 ms by default): Redis answers in order, so when the oldest command is past it the
// connection is stalled (SIGSTOP, a long script, a dead host); every waiting command is answered
// Unavailable at once, the connection is dropped and remade with backoff. While it is not usable
// (down, stalled, refusing the password, refusing writes: OOM, READONLY) the link is *degraded*:
// commands are answered Unavailable without being sent, and the proxy runs on local state. A
// heartbeat write every kHeartbeat (the instance's key, which the fleet view reads) proves writes
// work; its first success makes the link shared again.
class RedisLink final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(RedisLink)
public:
    static constexpr std::chrono::milliseconds kConnectDeadline{500};
    static constexpr std::chrono::milliseconds kHeartbeat{1000};
    static constexpr std::chrono::milliseconds kHeartbeatTtl = 3 * kHeartbeat;   // the instance's key outlives it by this
    static constexpr std::chrono::milliseconds kFirstBackoff{100};
    static constexpr std::chrono::milliseconds kMaxBackoff{2000};

    RedisLink(const RedisTarget &target, const QByteArray &instanceId, QObject *parent = nullptr);
    ~RedisLink() override;

    void start();

    using Done = std::function<void(const RedisReply &)>;
    // Sends `args` when shared; `done` is called exactly once on this thread (never inside this
    // call), within the target's timeout, unless `context` is gone by then.
    void command(const QList<QByteArray> &args, QObject *context, Done done);

    bool isShared() const { return m_shared; }
    QString degradedReason() const { return m_reason; }   // empty while shared
    int degradedCount() const { return m_degradedCount; }   // times it went shared -> degraded
    const RedisTarget &target() const { return m_target; }
    QByteArray instanceId() const { return m_instanceId; }
    // What the heartbeat writes into the instance's key (the fleet view's figures); the time by default.
    void setHeartbeatValue(std::function<QByteArray()> value) { m_heartbeatValue = std::move(value); }

Q_SIGNALS:
    void sharedChanged(bool shared);

private:
    struct Pending
    {
        qint64 deadlineMs = 0;
        QPointer<QObject> context;
        Done done;
        bool internal = false;   // sent by the link itself (AUTH, SELECT, heartbeat): even while degraded
    };
    // A new connection's first commands (AUTH, SELECT, the first heartbeat) also wait for the connect.
    std::chrono::milliseconds connectDeadline() const { return std::max(kConnectDeadline, m_target.timeout); }
    void connectNow();
    void send(const QList<QByteArray> &args, Pending pending);
    void onReply(quint64 id, const RedisReply &reply);
    void onDisconnected(const QString &why);
    void checkDeadlines();
    void heartbeat();
    void degrade(const QString &reason);
    void becomeShared();
    void dropConnection(const QString &why);   // fails every pending command, frees the context, retries
    void scheduleReconnect();
    void finish(Pending pending, const RedisReply &reply);

    static void replyCallback(redisAsyncContext *context, void *reply, void *privdata);
    static void connectCallback(const redisAsyncContext *context, int status);
    static void disconnectCallback(const redisAsyncContext *context, int status);

    RedisTarget m_target;
    QByteArray m_instanceId;
    redisAsyncContext *m_context = nullptr;
    bool m_connected = false;
    quint64 m_connections = 0;   // connections made so far: an internal answer from an older one is ignored
    bool m_shared = false;
    QString m_reason = QStringLiteral("not connected yet");
    int m_degradedCount = 0;
    std::chrono::milliseconds m_backoff = kFirstBackoff;
    quint64 m_nextId = 1;
    QHash<quint64, Pending> m_pending;   // in send order, which is Redis's answer order
    QList<quint64> m_order;
    QTimer m_deadlineTimer;
    QTimer m_heartbeatTimer;
    QTimer m_reconnectTimer;
    QTimer m_connectDeadline;
    std::function<QByteArray()> m_heartbeatValue;
    QString m_resolvedHost;   // the address hiredis connects to (resolved by Qt, never blocking)
};
