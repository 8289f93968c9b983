#pragma once

#include <QObject>
#include <QTimer>

#include <chrono>

class CircuitBreaker;
class RedisLink;
struct BreakerTransition;
struct RedisReply;

// One upstream's breaker for the whole fleet. The local CircuitBreaker still decides every call (so
// a degraded Redis leaves a working breaker); this keeps it in step with the fleet's:
// - each failure and success it hears is counted in Redis (consecutive across instances); the
//   failure that reaches the threshold opens the fleet's breaker, with the server's clock (TIME);
// - a local opening (its own count, a failed trial, the button) is published; a re-open keeps the
//   later of the two deadlines, never the shorter one (LiteLLM #42149);
// - every kPoll (and on reconnect) the fleet's state is read back and applied: open elsewhere means
//   open here until the same deadline; closed by another instance's trial or button means closed here.
// Pub/sub would be faster but is at-most-once; a 250 ms read is well inside "about a second".
class FleetBreaker final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(FleetBreaker)
public:
    static constexpr std::chrono::milliseconds kPoll{250};

    FleetBreaker(RedisLink &link, CircuitBreaker &breaker, QObject *parent = nullptr);

    static QByteArray redisKey(const QString &upstream);

private:
    void onFailure();
    void onSuccess();
    void onTransition(const BreakerTransition &transition);
    void poll();
    void applyFleetState(const RedisReply &reply, bool current);
    void run(const QByteArray &script, const QList<QByteArray> &args);

    RedisLink &m_link;
    CircuitBreaker &m_breaker;
    QByteArray m_key;
    bool m_applying = false;   // moving the local breaker to the fleet's state: not published back
    quint64 m_localMoves = 0;   // transitions this instance made by itself (published)
    QTimer m_pollTimer;
};
