#include "fleet/fleetspend.h"

#include "fleet/redislink.h"

namespace {

constexpr qint64 kKeyLifeMs = 2 * 24 * 3600 * 1000;   // a day's keys outlive the day, then go

// KEYS: spent (a float string), reservations (hash id -> USD), their expiries (zset id -> ms).
// ARGV: cap, estimate, id, life ms. Answers {1 reserved | 0 refused, spent, reserved} (floats as
// strings: a Lua number would come back truncated to an integer).
const QByteArray kReserve =
    "local t = redis.call('TIME') local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) "
    "for _, id in ipairs(redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now)) do redis.call('HDEL', KEYS[2], id) end "
    "redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now) "
    "local spent = tonumber(redis.call('GET', KEYS[1]) or '0') "
    "local reserved = 0 "
    "for _, v in ipairs(redis.call('HVALS', KEYS[2])) do reserved = reserved + tonumber(v) end "
    "local amount = tonumber(ARGV[2]) "
    "if spent + reserved + amount > tonumber(ARGV[1]) then return {0, tostring(spent), tostring(reserved)} end "
    "redis.call('HSET', KEYS[2], ARGV[3], ARGV[2]) "
    "redis.call('ZADD', KEYS[3], now + tonumber(ARGV[4]), ARGV[3]) "
    "for i = 1, 3 do redis.call('PEXPIRE', KEYS[i], " + QByteArray::number(kKeyLifeMs) + ") end "
    "return {1, tostring(spent), tostring(reserved + amount)}";

// ARGV: id, charged USD.
const QByteArray kSettle =
    "redis.call('HDEL', KEYS[2], ARGV[1]) redis.call('ZREM', KEYS[3], ARGV[1]) "
    "if tonumber(ARGV[2]) > 0 then redis.call('INCRBYFLOAT', KEYS[1], ARGV[2]) end "
    "redis.call('PEXPIRE', KEYS[1], " + QByteArray::number(kKeyLifeMs) + ") return 1";

} // namespace

FleetSpend::FleetSpend(RedisLink &link, QObject *parent) : QObject(parent), m_link(link) {}

QList<QByteArray> FleetSpend::keysOf(const QDate &day)
{
    // One hash tag: the three keys of a day share a slot, should the Redis be a cluster.
    const QByteArray tag = "bw:v1:{spend:" + day.toString(Qt::ISODate).toLatin1() + "}:";
    return {tag + "spent", tag + "reserved", tag + "expiry"};
}

void FleetSpend::reserve(const QDate &day, double capUsd, double estimateUsd, QObject *context,
                         std::function<void(Verdict, const QByteArray &)> done)
{
    const QByteArray id = m_link.instanceId() + ':' + QByteArray::number(m_next++);
    m_link.command(QList<QByteArray>{"EVAL", kReserve, "3"} + keysOf(day)
                       + QList<QByteArray>{QByteArray::number(capUsd, 'g', 17), QByteArray::number(estimateUsd, 'g', 17), id,
                                           QByteArray::number(kReservationLife.count())},
                   context, [id, done = std::move(done)](const RedisReply &reply) {
        if (reply.kind != RedisReply::Kind::Array || reply.items.isEmpty()) {
            done(Verdict::Unavailable, {});
            return;
        }
        if (reply.items[0].toInteger() == 1)
            done(Verdict::Reserved, id);
        else
            done(Verdict::Refused, {});
    });
}

void FleetSpend::charge(const QDate &day, double chargedUsd)
{
    if (chargedUsd > 0)
        settle(day, "unreserved", chargedUsd);   // no such reservation: the script only adds the charge
}

void FleetSpend::settle(const QDate &day, const QByteArray &reservation, double chargedUsd)
{
    m_link.command(QList<QByteArray>{"EVAL", kSettle, "3"} + keysOf(day)
                       + QList<QByteArray>{reservation, QByteArray::number(qMax(0.0, chargedUsd), 'g', 17)},
                   this, [](const RedisReply &) {});
}
