#include "fleet/flightfollower.h"

#include <QLoggingCategory>

#include "fleet/redislink.h"
#include "http/protocol.h"
#include "sharing/answercache.h"
#include "upstream/upstreamcall.h"

Q_DECLARE_LOGGING_CATEGORY(lcFleetFlights)

using namespace Qt::StringLiterals;

namespace {
// Who holds the lease now, and the entries after the last one read, in one atomic read.
const QByteArray kReadScript
    = "return {redis.call('GET', KEYS[1]), redis.call('XRANGE', KEYS[2], ARGV[1], '+', 'COUNT', ARGV[2])}";
} // namespace

FlightFollower::FlightFollower(FleetFlights &flights, const QByteArray &key, const QByteArray &token,
                               FleetFlights::Relaunch relaunch, UpstreamCall *call)
    : QObject(call), m_flights(flights), m_key(key), m_token(token), m_relaunch(std::move(relaunch)), m_call(call)
{
    m_poll.setSingleShot(true);
    connect(&m_poll, &QTimer::timeout, this, &FlightFollower::poll);
    call->setInterrupt([this] {
        if (UpstreamCall *inner = m_inner.data()) {
            inner->cancel();   // its finished is passed on
            return;
        }
        m_poll.stop();
        // Queued, as UpstreamCall::cancel promises: `finished` comes after cancel() returned.
        QMetaObject::invokeMethod(this, [this] { finish({UpstreamFailure::Cancelled, u"cancelled"_s, 0}); },
                                  Qt::QueuedConnection);
    });
    // As a pool's call does: started on the next turn, never inside the caller's code.
    QMetaObject::invokeMethod(this, [this] {
        Q_EMIT m_call->started(0);
        poll();
    }, Qt::QueuedConnection);
}

void FlightFollower::poll()
{
    if (m_done || m_inner)
        return;
    m_flights.link().command({"EVAL", kReadScript, "2", FleetFlights::leaseKey(m_key),
                              FleetFlights::streamKey(m_key, m_token), m_after,
                              QByteArray::number(FleetFlights::kReadCount)},
                             this, [this](const RedisReply &reply) { onRead(reply); });
}

void FlightFollower::onRead(const RedisReply &reply)
{
    if (m_done || m_inner)
        return;
    if (reply.kind != RedisReply::Kind::Array || reply.items.size() != 2) {
        lost(u"Redis is unavailable: "_s + QString::fromUtf8(reply.text));
        return;
    }
    const RedisReply &holder = reply.items[0];
    const QList<RedisReply> &entries = reply.items[1].items;
    for (const RedisReply &entry : entries) {
        if (entry.items.size() != 2 || !play(entry.items[1])) {
            lost(u"the fleet's stream has a gap"_s);
            return;
        }
        m_after = '(' + entry.items[0].text;
        if (m_done)
            return;
        if (m_leaderStopped) {
            lost(u"the fleet's leader stopped its call"_s);
            return;
        }
    }
    if (entries.size() >= FleetFlights::kReadCount) {
        poll();   // more waiting
        return;
    }
    // Read together with the entries: a lease that is no longer this stream's, with no end read,
    // means the leader stopped without one (its end and its release are one script).
    if (holder.kind != RedisReply::Kind::String || holder.text != m_token) {
        lost(u"the fleet's leader for this call is gone"_s);
        return;
    }
    m_poll.start(FleetFlights::kPollEvery);
}

bool FlightFollower::play(const RedisReply &fields)
{
    // n <number> <type> <data>
    if (fields.items.size() != 4 || fields.items[0].text != "n" || fields.items[1].text.toLongLong() != m_next)
        return false;
    ++m_next;
    const QByteArray &type = fields.items[2].text;
    const QByteArray &data = fields.items[3].text;
    if (type == "h") {
        if (!FleetFlights::decodeHead(data, m_status, m_headers))
            return false;
        m_passing = isEventStream(m_headers);
        if (m_passing) {
            m_passedHead = true;
            Q_EMIT m_call->headersReceived(m_status, m_headers);
        }
    } else if (type == "b") {
        if (m_passing)
            Q_EMIT m_call->bodyReceived(data);
        else
            m_kept += data;
    } else if (type == "e") {
        const std::optional<UpstreamResult> result = FleetFlights::decodeEnd(data);
        if (!result)
            return false;
        // Ended for the leader's own reasons (its callers all hung up, it is shutting down), not the
        // provider's: the riders here still want the answer.
        if (result->failure == UpstreamFailure::Cancelled || result->failure == UpstreamFailure::Shutdown) {
            m_leaderStopped = true;
            return true;
        }
        if (!m_passing && m_status != 0) {
            Q_EMIT m_call->headersReceived(m_status, m_headers);
            m_passedHead = true;
            if (!m_kept.isEmpty())
                Q_EMIT m_call->bodyReceived(m_kept);
        }
        finish(*result);
    } else {
        return false;
    }
    return true;
}

void FlightFollower::lost(const QString &why)
{
    qCInfo(lcFleetFlights).noquote() << "following" << m_key.toHex().left(12) << "stopped:" << why;
    if (m_passedHead || m_takeovers >= kMaxTakeovers) {
        // Part of the answer is out: ending it cleanly would pass a short stream for a whole one.
        finish({UpstreamFailure::Cut, u"the fleet's call broke off before its end (%1)"_s.arg(why), m_status});
        return;
    }
    ++m_takeovers;
    m_flights.claim(m_key, this, [this](const FleetFlights::Claim &claim) { onClaim(claim); });
}

void FlightFollower::onClaim(const FleetFlights::Claim &claim)
{
    if (m_done)
        return;
    switch (claim.role) {
    case FleetFlights::Claim::Role::Follow:
        // The same leader still holds the lease (a read failed, its leader did not): read on where
        // this left off. Calling alone here made a second takeover call beside the one that leads.
        if (claim.token != m_token) {   // a new leader: its stream, from the start
            m_token = claim.token;
            m_after = "-";
            m_next = 0;
            m_leaderStopped = false;
            m_status = 0;
            m_headers.clear();
            m_kept.clear();
        }
        poll();
        return;
    case FleetFlights::Claim::Role::Lead:
        relaunch(claim.token);
        return;
    case FleetFlights::Claim::Role::Answered:
        // The new leader finished before this saw it take over: its stored answer is this call's.
        // A fresh call here would pay twice for one answer.
        if (claim.answer) {
            passStored(claim.answer->answer);
            return;
        }
        relaunch({});
        return;
    case FleetFlights::Claim::Role::Local:
        relaunch({});
        return;
    }
}

void FlightFollower::relaunch(const QByteArray &leadToken)
{
    UpstreamCall *inner = m_relaunch ? m_relaunch(this) : nullptr;
    if (!inner) {   // a lease won here is let go by FleetFlights::claim, since nothing leads it
        finish({UpstreamFailure::Unreachable, u"the fleet's leader is gone, and this instance cannot call the upstream in its place "
                 "(its queue is full or the spend cap is reached)"_s, 0});
        return;
    }
    qCInfo(lcFleetFlights) << "taking over" << m_key.toHex().left(12) << (leadToken.isEmpty() ? "alone" : "for the fleet");
    m_inner = inner;
    if (!leadToken.isEmpty())
        m_flights.lead(m_key, inner);   // inside the claim's answer, so the lease won is this call's
    connect(inner, &UpstreamCall::headersReceived, m_call, &UpstreamCall::headersReceived);
    connect(inner, &UpstreamCall::bodyReceived, m_call, &UpstreamCall::bodyReceived);
    connect(inner, &UpstreamCall::finished, this, [this](const UpstreamResult &result) { finish(result); });
}

void FlightFollower::passStored(const CachedAnswer &answer)
{
    m_passedHead = true;
    Q_EMIT m_call->headersReceived(answer.status, answer.headers);
    if (!answer.body.isEmpty())
        Q_EMIT m_call->bodyReceived(answer.body);
    finish({UpstreamFailure::None, {}, answer.status});
}

void FlightFollower::finish(const UpstreamResult &result)
{
    if (m_done)
        return;
    m_done = true;
    m_poll.stop();
    Q_EMIT m_call->finished(result);
}
