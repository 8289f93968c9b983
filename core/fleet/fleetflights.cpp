#include "fleet/fleetflights.h"

#include <QDataStream>
#include <QIODevice>
#include <QLoggingCategory>
#include <QRandomGenerator>

#include "fleet/flightfollower.h"
#include "fleet/flightpublisher.h"
#include "fleet/headercodec.h"
#include "fleet/redislink.h"
#include "upstream/upstreamcall.h"

Q_LOGGING_CATEGORY(lcFleetFlights, "breakwater.fleet.flights", QtInfoMsg)

namespace {
constexpr quint32 kFormat = 2;   // of the head and end entries (2: headers in HeaderCodec's bounded form)

// One round trip: the answer if it was stored since the caller looked, else the lease for the
// caller, else who holds it. SET NX GET (Redis 7.0) writes nothing when the key exists.
const QByteArray kClaimScript = R"(
local answer = redis.call('GET', KEYS[1])
if answer then return {'answered', answer, redis.call('PTTL', KEYS[1])} end
local holder = redis.call('SET', KEYS[2], ARGV[1], 'NX', 'PX', ARGV[2], 'GET')
if holder then return {'follow', holder} end
return {'lead'})";

// Compare-and-delete, as the SET documentation prescribes for a lock: never another's lease.
const QByteArray kReleaseScript
    = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0";
} // namespace

FleetFlights::FleetFlights(RedisLink &link, QObject *parent) : QObject(parent), m_link(link) {}

QByteArray FleetFlights::newToken() const
{
    return m_link.instanceId() + ':' + QByteArray::number(QRandomGenerator::system()->generate64(), 16);
}

QByteArray FleetFlights::leaseKey(const QByteArray &key)
{
    return "bw:v1:{" + key.toHex() + "}:flight";
}

QByteArray FleetFlights::streamKey(const QByteArray &key, const QByteArray &token)
{
    return "bw:v1:{" + key.toHex() + "}:ev:" + token;
}

void FleetFlights::claim(const QByteArray &key, QObject *context, std::function<void(const Claim &)> done)
{
    auto &waiting = m_claims[key];
    waiting.append({context, std::move(done)});
    if (waiting.size() > 1)
        return;   // claimed already: this one is answered with the others
    const QByteArray token = newToken();
    m_link.command({"EVAL", kClaimScript, "2", SharedAnswers::redisKey(key), leaseKey(key), token,
                    QByteArray::number(kLease.count())},
                   this, [this, key, token](const RedisReply &reply) {
        Claim claim;
        if (reply.kind == RedisReply::Kind::Array && !reply.items.isEmpty()) {
            const QByteArray role = reply.items[0].text;
            if (role == "lead") {
                claim = {Claim::Role::Lead, token, std::nullopt};
            } else if (role == "follow" && reply.items.size() == 2) {
                claim = {Claim::Role::Follow, reply.items[1].text, std::nullopt};
            } else if (role == "answered" && reply.items.size() == 3) {
                std::optional<CachedAnswer> answer = SharedAnswers::decode(reply.items[1].text);
                const qint64 leftMs = reply.items[2].toInteger();
                if (answer && leftMs > 0)
                    claim = {Claim::Role::Answered, {}, SharedAnswers::Found{std::move(*answer), leftMs}};
            }
        }
        if (claim.role == Claim::Role::Local && reply.answered())   // Redis said something this does not read
            qCWarning(lcFleetFlights).noquote() << "claim of" << key.toHex().left(12) << "read as local-only:"
                                                << int(reply.kind) << reply.text.left(200) << reply.items.size();
        if (claim.role == Claim::Role::Lead)
            m_seating.insert(key, token);
        for (const auto &[context, done] : m_claims.take(key)) {
            if (context)
                done(claim);
        }
        // Every waiter was refused before its call (spend, breaker, a full queue): let it go now, so
        // the fleet's next request leads instead of waiting out the lease.
        if (m_seating.remove(key))
            m_link.command({"EVAL", kReleaseScript, "1", leaseKey(key), token}, this, [](const RedisReply &) {});
    });
}

void FleetFlights::lead(const QByteArray &key, UpstreamCall *call)
{
    const QByteArray token = m_seating.take(key);
    if (!token.isEmpty())
        startPublishing(key, token, call);
}

void FleetFlights::startPublishing(const QByteArray &key, const QByteArray &token, UpstreamCall *call)
{
    qCDebug(lcFleetFlights) << "leading" << key.toHex().left(12);
    ++m_leading;
    auto *publisher = new FlightPublisher(*this, key, token, call, this);
    connect(publisher, &QObject::destroyed, this, [this] { --m_leading; });
}

UpstreamCall *FleetFlights::follow(const QByteArray &key, const QByteArray &token, Relaunch relaunch, QObject *owner)
{
    qCDebug(lcFleetFlights) << "following" << key.toHex().left(12);
    auto *call = new UpstreamCall(owner);
    ++m_following;
    auto *follower = new FlightFollower(*this, key, token, std::move(relaunch), call);
    connect(follower, &QObject::destroyed, this, [this] { --m_following; });
    return call;
}

QByteArray FleetFlights::encodeHead(int status, const HeaderList &headers)
{
    QByteArray bytes;
    QDataStream out(&bytes, QIODevice::WriteOnly);
    out.setVersion(QDataStream::Qt_6_4);
    out << kFormat << qint32(status);
    HeaderCodec::write(out, headers);
    return bytes;
}

bool FleetFlights::decodeHead(const QByteArray &bytes, int &status, HeaderList &headers)
{
    QDataStream in(bytes);
    in.setVersion(QDataStream::Qt_6_4);
    quint32 format = 0;
    qint32 code = 0;
    in >> format >> code;
    status = code;
    return format == kFormat && HeaderCodec::read(in, headers);
}

QByteArray FleetFlights::encodeEnd(const UpstreamResult &result)
{
    QByteArray bytes;
    QDataStream out(&bytes, QIODevice::WriteOnly);
    out.setVersion(QDataStream::Qt_6_4);
    out << kFormat << quint8(result.failure) << result.detail << qint32(result.status);
    return bytes;
}

std::optional<UpstreamResult> FleetFlights::decodeEnd(const QByteArray &bytes)
{
    QDataStream in(bytes);
    in.setVersion(QDataStream::Qt_6_4);
    quint32 format = 0;
    quint8 failure = 0;
    qint32 status = 0;
    UpstreamResult result;
    in >> format >> failure >> result.detail >> status;
    if (format != kFormat || in.status() != QDataStream::Ok || failure > quint8(UpstreamFailure::Cancelled))
        return std::nullopt;
    result.failure = UpstreamFailure(failure);
    result.status = status;
    return result;
}
