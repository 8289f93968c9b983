#include "fleet/flightpublisher.h"

#include <QLoggingCategory>

#include "fleet/fleetflights.h"
#include "fleet/redislink.h"
#include "upstream/upstreamcall.h"

Q_DECLARE_LOGGING_CATEGORY(lcFleetFlights)

namespace {
// One entry and the stream's expiry with it: a stream whose leader dies expires on its own.
const QByteArray kPublishScript
    = "redis.call('XADD', KEYS[1], '*', 'n', ARGV[1], ARGV[2], ARGV[3]) redis.call('PEXPIRE', KEYS[1], ARGV[4]) return 1";

// The end entry, the short expiry of a finished stream, and the lease let go (if still ours).
const QByteArray kEndScript = R"(
redis.call('XADD', KEYS[1], '*', 'n', ARGV[1], 'e', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
if redis.call('GET', KEYS[2]) == ARGV[4] then redis.call('DEL', KEYS[2]) end
return 1)";

// Compare-then-PEXPIRE: a lease that expired (and may be another's now) is not ours to extend.
const QByteArray kRenewScript = R"(
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
return 1)";

// While the call runs the stream outlives the lease, so a joiner can read it to the last entry.
QByteArray runningStreamTtl()
{
    return QByteArray::number((FleetFlights::kLease + FleetFlights::kStreamAfterEnd).count());
}
} // namespace

FlightPublisher::FlightPublisher(FleetFlights &flights, const QByteArray &key, const QByteArray &token,
                                 UpstreamCall *call, QObject *parent)
    : QObject(parent), m_flights(flights), m_key(key), m_token(token), m_stream(FleetFlights::streamKey(key, token))
{
    connect(call, &UpstreamCall::headersReceived, this, [this](int status, const HeaderList &headers) {
        publish("h", FleetFlights::encodeHead(status, headers));
    });
    connect(call, &UpstreamCall::bodyReceived, this, [this](const QByteArray &piece) { publish("b", piece); });
    connect(call, &UpstreamCall::finished, this, [this](const UpstreamResult &result) {
        m_renew.stop();
        // Queued: the flight stores its answer for the fleet in this same signal; the end goes after it.
        QMetaObject::invokeMethod(this, [this, result] { end(result); }, Qt::QueuedConnection);
    });
    // The call is gone without a last word (Breakwater stopping): the lease runs out by itself.
    connect(call, &QObject::destroyed, this, [this] {
        if (m_renew.isActive())
            deleteLater();
    });
    m_renew.setInterval(FleetFlights::kRenewEvery);
    connect(&m_renew, &QTimer::timeout, this, &FlightPublisher::renew);
    m_renew.start();
}

void FlightPublisher::publish(const QByteArray &type, const QByteArray &data)
{
    if (m_broken)
        return;
    m_flights.link().command({"EVAL", kPublishScript, "1", m_stream, QByteArray::number(m_next++), type, data,
                              runningStreamTtl()},
                             this, [this](const RedisReply &reply) {
        if (!reply.answered())
            breakStream();
    });
}

void FlightPublisher::end(const UpstreamResult &result)
{
    UpstreamResult said = result;
    if (m_broken && said.failure == UpstreamFailure::None) {
        said.failure = UpstreamFailure::Cut;
        said.detail = QStringLiteral("the fleet's copy of the answer broke off (Redis was unavailable)");
    }
    m_flights.link().command({"EVAL", kEndScript, "2", m_stream, FleetFlights::leaseKey(m_key),
                              QByteArray::number(m_next++), FleetFlights::encodeEnd(said),
                              QByteArray::number(FleetFlights::kStreamAfterEnd.count()), m_token},
                             this, [this](const RedisReply &) { deleteLater(); });
}

void FlightPublisher::renew()
{
    m_flights.link().command({"EVAL", kRenewScript, "2", FleetFlights::leaseKey(m_key), m_stream, m_token,
                              QByteArray::number(FleetFlights::kLease.count()), runningStreamTtl()},
                             this, [this](const RedisReply &reply) {
        if (!reply.answered() || reply.toInteger() != 1)
            breakStream();
    });
}

void FlightPublisher::breakStream()
{
    if (m_broken)
        return;
    qCInfo(lcFleetFlights) << "the fleet's stream broke off; joiners will be told" << m_key.toHex().left(12);
    m_broken = true;
    m_renew.stop();
}
