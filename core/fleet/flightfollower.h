#pragma once

#include <QByteArray>
#include <QObject>
#include <QPointer>
#include <QTimer>

#include "fleet/fleetflights.h"
#include "http/apierror.h"

class UpstreamCall;
struct CachedAnswer;
struct RedisReply;
struct UpstreamResult;

// A joiner's side of a fleet flight: plays the leader's Redis stream as an upstream call, so the
// local Flight and its riders cannot tell it from one (a late local rider gets what came so far,
// then the rest, as with any flight). Reads the stream from its first entry, then polls for more
// (one script: the lease's holder and the new entries; kPollEvery while nothing is new, at once
// while there is), since a blocking XREAD would hold the link's other commands behind it.
//
// A leader whose call ended for its own reasons (every caller there hung up, shutting down) counts
// as gone too. An event stream is passed on as it comes; any other answer is kept until its end, so
// nothing has reached a client before the end. When the leader is gone (its lease expired or was
// taken, a gap in the numbers) or Redis fails: with nothing passed on yet, it takes over. It claims
// the lease again and then makes a fresh upstream call and leads it, follows the new leader, reads
// on (the same leader still holds it: a read failed, not the leader), or passes the answer a new
// leader stored meanwhile; with Redis unavailable it makes a fresh call of its own. With part of a
// stream passed on, it ends Cut, which the flight gives every rider as an error event in its API's
// shape. Never a clean end of a short stream. A child of the call it plays. Proxy thread only.
class FlightFollower final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(FlightFollower)
public:
    FlightFollower(FleetFlights &flights, const QByteArray &key, const QByteArray &token,
                   FleetFlights::Relaunch relaunch, UpstreamCall *call);

private:
    void poll();
    void onRead(const RedisReply &reply);
    bool play(const RedisReply &fields);   // false: a gap or an entry it cannot read
    void lost(const QString &why);
    void onClaim(const FleetFlights::Claim &claim);
    void relaunch(const QByteArray &leadToken);
    void passStored(const CachedAnswer &answer);   // the fleet's stored answer, as if it came from the leader
    void finish(const UpstreamResult &result);

    static constexpr int kMaxTakeovers = 3;

    FleetFlights &m_flights;
    QByteArray m_key;
    QByteArray m_token;
    FleetFlights::Relaunch m_relaunch;
    UpstreamCall *m_call;            // the parent: what the flight follows
    QPointer<UpstreamCall> m_inner;  // after a relaunch: the fresh call, passed on
    QByteArray m_after = "-";        // XRANGE start: "-", then "(<last id>"
    qint64 m_next = 0;               // the next entry's number
    bool m_passing = false;          // an event stream: its head and pieces went on as they came
    bool m_passedHead = false;
    int m_status = 0;
    HeaderList m_headers;
    QByteArray m_kept;               // a non-stream answer's body, until its end
    bool m_done = false;
    bool m_leaderStopped = false;    // its end said Cancelled or Shutdown: not an answer for us
    int m_takeovers = 0;
    QTimer m_poll;
};
