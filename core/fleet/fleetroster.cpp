#include "fleet/fleetroster.h"

#include <algorithm>

#include <QDateTime>

#include "fleet/redislink.h"

namespace {

const QByteArray kInstancesKey = "bw:v1:instances";
const QByteArray kInstancePrefix = "bw:v1:instance:";

// KEYS[1] the set of ids, ARGV[1] this instance's id, ARGV[2] the heartbeat keys' prefix. Answers
// {id, value, pttl, ...} for the ids whose key is alive and forgets the others. One script, so a
// read is one round trip however large the fleet.
const QByteArray kReadScript = R"lua(
redis.call('SADD', KEYS[1], ARGV[1])
local out = {}
for _, id in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  local key = ARGV[2] .. id
  local value = redis.call('GET', key)
  if value then
    out[#out + 1] = id
    out[#out + 1] = value
    out[#out + 1] = redis.call('PTTL', key)
  else
    redis.call('SREM', KEYS[1], id)
  end
end
return out
)lua";

} // namespace

FleetRoster::FleetRoster(RedisLink &link, QObject *parent)
    : QObject(parent), m_link(link)
{
    m_timer.setInterval(kReadInterval);
    connect(&m_timer, &QTimer::timeout, this, &FleetRoster::read);
    // Degraded: the others are unknown from now on, not frozen at their last figures.
    connect(&m_link, &RedisLink::sharedChanged, this, [this](bool shared) {
        if (shared)
            read();
        else
            m_others.clear();
    });
}

void FleetRoster::setOwnFigures(std::function<FleetInstance()> own)
{
    m_own = std::move(own);
    m_link.setHeartbeatValue([this] { return this->own().toHeartbeat(); });
}

void FleetRoster::start()
{
    m_timer.start();
}

FleetInstance FleetRoster::own() const
{
    FleetInstance self = m_own ? m_own() : FleetInstance();
    self.id = m_link.instanceId();
    self.lastSeenMs = QDateTime::currentMSecsSinceEpoch();
    self.ageMs = 0;
    self.alive = true;
    self.self = true;
    return self;
}

FleetView FleetRoster::view() const
{
    FleetView view;
    view.enabled = true;
    view.shared = m_link.isShared();
    view.reason = m_link.degradedReason();
    view.instances.append(own());
    if (view.shared)
        view.instances.append(m_others);
    return view;
}

void FleetRoster::read()
{
    if (!m_link.isShared())
        return;
    m_link.command({"EVAL", kReadScript, "1", kInstancesKey, m_link.instanceId(), kInstancePrefix}, this,
                   [this](const RedisReply &reply) {
        if (reply.kind != RedisReply::Kind::Array) {
            m_others.clear();   // unanswered: the link says why (degraded) at once or soon
            return;
        }
        ++m_reads;
        // A heartbeat older than two of them is late: listed, not alive, until its key expires.
        const qint64 lateBelowMs = (RedisLink::kHeartbeatTtl - 2 * RedisLink::kHeartbeat).count();
        QList<FleetInstance> others;
        for (qsizetype i = 0; i + 2 < reply.items.size(); i += 3) {
            const QByteArray id = reply.items[i].text;
            if (id == m_link.instanceId())
                continue;   // this one's figures are taken live, not a heartbeat late
            FleetInstance instance = FleetInstance::fromHeartbeat(id, reply.items[i + 1].text);
            const qint64 pttl = reply.items[i + 2].toInteger();
            instance.ageMs = std::max<qint64>(RedisLink::kHeartbeatTtl.count() - pttl, 0);
            instance.alive = pttl > lateBelowMs;
            others.append(instance);
        }
        std::sort(others.begin(), others.end(), [](const FleetInstance &a, const FleetInstance &b) {
            return a.label != b.label ? a.label < b.label : a.id < b.id;
        });
        m_others = others;
    });
}
