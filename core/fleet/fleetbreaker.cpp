#include "fleet/fleetbreaker.h"

#include "fleet/redislink.h"
#include "upstream/circuitbreaker.h"

using namespace Qt::StringLiterals;

namespace {

// Every script answers {consecutive failures, ms the fleet's breaker stays open}: -1 when it is not
// open, 0 when its cool-down is over (each instance's own half-open trial decides then).
#define BW_NOW "local t = redis.call('TIME') local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) "
#define BW_ANSWER \
    "redis.call('PEXPIRE', KEYS[1], 86400000) " \
    "local u = tonumber(redis.call('HGET', KEYS[1], 'until') or '-1') " \
    "local f = tonumber(redis.call('HGET', KEYS[1], 'fails') or '0') " \
    "if u < 0 then return {f, -1} end if u <= now then return {f, 0} end return {f, u - now}"

// ARGV: threshold, cool-down ms. The failure that reaches the threshold opens it (and starts the count again).
const QByteArray kFailure = BW_NOW
    "local f = redis.call('HINCRBY', KEYS[1], 'fails', 1) "
    "local u = tonumber(redis.call('HGET', KEYS[1], 'until') or '-1') "
    "if f >= tonumber(ARGV[1]) and u < now then "
    "  redis.call('HSET', KEYS[1], 'until', now + tonumber(ARGV[2]), 'fails', 0) end " BW_ANSWER;
const QByteArray kSuccess = BW_NOW "redis.call('HSET', KEYS[1], 'fails', 0) " BW_ANSWER;
// ARGV: ms left of the local opening. Never shortens a live deadline.
const QByteArray kOpen = BW_NOW
    "local u = tonumber(redis.call('HGET', KEYS[1], 'until') or '-1') "
    "local mine = now + tonumber(ARGV[1]) "
    "if mine > u then redis.call('HSET', KEYS[1], 'until', mine) end " BW_ANSWER;
const QByteArray kClose = BW_NOW "redis.call('HDEL', KEYS[1], 'until') redis.call('HSET', KEYS[1], 'fails', 0) " BW_ANSWER;
const QByteArray kRead = BW_NOW BW_ANSWER;

} // namespace

FleetBreaker::FleetBreaker(RedisLink &link, CircuitBreaker &breaker, QObject *parent)
    : QObject(parent), m_link(link), m_breaker(breaker), m_key(redisKey(breaker.upstream()))
{
    connect(&breaker, &CircuitBreaker::failureRecorded, this, &FleetBreaker::onFailure);
    connect(&breaker, &CircuitBreaker::successRecorded, this, &FleetBreaker::onSuccess);
    connect(&breaker, &CircuitBreaker::stateChanged, this, &FleetBreaker::onTransition);
    connect(&link, &RedisLink::sharedChanged, this, [this](bool shared) {
        if (!shared)
            return;
        // Back in the fleet: what opened here meanwhile is told first, then the fleet's state read.
        if (m_breaker.state() == BreakerState::Open)
            run(kOpen, {QByteArray::number(qMax<qint64>(m_breaker.cooldownLeftMs(), 1))});
        poll();
    });
    m_pollTimer.setInterval(kPoll);
    connect(&m_pollTimer, &QTimer::timeout, this, &FleetBreaker::poll);
    m_pollTimer.start();
}

QByteArray FleetBreaker::redisKey(const QString &upstream)
{
    return "bw:v1:breaker:" + upstream.toUtf8();
}

void FleetBreaker::run(const QByteArray &script, const QList<QByteArray> &args)
{
    if (!m_link.isShared())
        return;
    // A reply to a command sent before this instance's breaker last moved by itself may predate
    // that move's publication: it may still open the breaker here, never close it.
    m_link.command(QList<QByteArray>{"EVAL", script, "1", m_key} + args, this,
                   [this, sentAt = m_localMoves](const RedisReply &reply) { applyFleetState(reply, sentAt == m_localMoves); });
}

void FleetBreaker::onFailure()
{
    run(kFailure, {QByteArray::number(m_breaker.failureThreshold()), QByteArray::number(m_breaker.currentCooldownMs())});
}

void FleetBreaker::onSuccess()
{
    run(kSuccess, {});
}

void FleetBreaker::onTransition(const BreakerTransition &transition)
{
    if (m_applying)
        return;
    ++m_localMoves;
    if (transition.to == BreakerState::Open)
        run(kOpen, {QByteArray::number(qMax<qint64>(m_breaker.cooldownLeftMs(), 1))});
    else if (transition.to == BreakerState::Closed)
        run(kClose, {});
}

void FleetBreaker::poll()
{
    run(kRead, {});
}

void FleetBreaker::applyFleetState(const RedisReply &reply, bool current)
{
    if (reply.kind != RedisReply::Kind::Array || reply.items.size() != 2)
        return;
    const qint64 openLeftMs = reply.items[1].toInteger();
    m_applying = true;
    if (openLeftMs > 0) {
        m_breaker.holdOpenFor(std::chrono::milliseconds(openLeftMs), Message(QT_TRANSLATE_NOOP("Message", "open on the fleet")));
    } else if (openLeftMs < 0 && current && m_breaker.state() == BreakerState::Open) {
        // Closed by another instance (its trial succeeded, or its button).
        m_breaker.forceClose(Message(QT_TRANSLATE_NOOP("Message", "closed on the fleet")));
    }
    m_applying = false;
}
