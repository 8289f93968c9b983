#pragma once

#include <chrono>
#include <functional>

#include <QHash>
#include <QObject>
#include <QtCore/qxpfunctional.h>   // qxp::function_ref, C++26 std::function_ref as Qt 6.4 ships it

#include "sharing/flight.h"

class AnswerCache;
class CircuitBreaker;
class Clock;
struct CachedAnswer;

// How identical requests share one upstream call and its answer: Go's singleflight `Group.Do`, with
// the answer cache in front. For one request, `share` finds a fresh answer in the cache, or seats
// the request as a rider on the flight in progress for its key, or makes a new flight and puts it
// in the table. When the flight's upstream call ends, the flight leaves the table *before* its
// riders are released (a request arriving at that moment hits the cache or makes a new call, and
// never joins a call that has ended); a complete 2xx answer fills the cache, errors and cut streams
// go to every rider but are never kept; then the riders are answered and the flight is deleted.
//
// Every flight belongs to this object, never to the caller that started it, so a rider who hangs
// up only leaves. Whoever makes the upstream call (the proxy: admission, the pool) is asked for it
// through `start`, and only for a new flight. Lives and is touched only on the proxy thread.
class Sharing final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(Sharing)
public:
    using Rider = Flight::Rider;

    // A new flight's upstream call, or none when `start` refused it (and answered the rider itself).
    struct Takeoff
    {
        UpstreamCall *call = nullptr;   // parented to the flight
        // Called once when the call ended, before the flight leaves the table and before any rider
        // is answered: sets the flight's usage and cost, settles spend and tells the breaker.
        std::function<void(Flight &flight)> landed;
        // Set when the call has somewhere else to go (its upstream's fallback): called after
        // `landed`, instead of answering, for a call the upstream refused before any of it reached
        // a rider (Flight::refusedBeforeAnswering). It takes the riders and shares each anew.
        std::function<void(Flight &refused)> fallback;
    };
    // Go's `fn`: admits and submits the one upstream call of `flight`, whose first rider is `rider`.
    // Called during `share` only, so it may refer to the request on the caller's stack.
    using Start = qxp::function_ref<Takeoff(Flight &flight, Rider &rider)>;

    Sharing(AnswerCache &cache, const Clock &clock, double timeoutSeconds, bool recordBodies,
            QObject *parent = nullptr);

    // Answers `rider` (its record filled but for the outcome) for the request key `key`. Answers
    // that cost no upstream call (a hit, a ride on a call already running) are given even while
    // `breaker` is open, since it guards the provider, not the cache; their riders are told its state
    // now, while a new flight's rider is told the state `start` was admitted in. An empty key
    // (Cache-Control: no-cache, a route never shared) always makes a new flight, kept out of the
    // table and the cache, and the rider keeps its outcome.
    void share(const QByteArray &key, ApiStyle style, CircuitBreaker &breaker, Rider rider, Start start);

    // How long a flight whose callers all hung up runs on for a retry to rejoin it, when its answer
    // could be reused; one that cannot be reused is cancelled at once. 0: always at once.
    void setAbandonGrace(std::chrono::milliseconds grace) { m_abandonGrace = grace; }
    // The upstream timeout a flight's timeout error names; for the flights made from now on.
    void setTimeoutSeconds(double seconds) { m_timeoutSeconds = seconds; }

    // Called after each complete answer is put in the cache (the fleet's second level: fleet/).
    void setAnswerStored(std::function<void(const QByteArray &key, const CachedAnswer &answer)> stored)
    {
        m_answerStored = std::move(stored);
    }
    bool isFlying(const QByteArray &key) const { return m_flights.contains(key); }

    int size() const { return int(m_flights.size()); }   // flights in the table
    int riders() const;   // riders on every flight in progress, shared or not
    int inProgress() const;   // flights not yet over, shared or not
    int abandoned() const;
    QList<Flight *> inProgressFlights() const;    // of those, the ones whose callers all hung up (kept for a retry, or ending)

Q_SIGNALS:
    // Every rider's record when its answer is over: cache hits, joiners and the rider who started.
    void riderFinished(const CallRecord &record);

private:
    void answerFromCache(const CachedAnswer &answer, Rider rider);
    void fly(const QByteArray &key, ApiStyle style, Rider rider, Start start);
    void land(Flight *flight, const std::function<void(Flight &)> &landed,
              const std::function<void(Flight &)> &fallback);
    void onAbandoned(Flight *flight);
    void cancel(Flight *flight);

    AnswerCache &m_cache;
    const Clock &m_clock;
    double m_timeoutSeconds = 0;
    bool m_recordBodies = false;
    std::chrono::milliseconds m_abandonGrace{0};
    std::function<void(const QByteArray &, const CachedAnswer &)> m_answerStored;
    QHash<QByteArray, Flight *> m_flights;   // Go's singleflight map: the flights that can be joined
};

// Breakwater's own headers on an answer: how it relates to sharing (x-breakwater-dedup), the
// breaker's state (x-breakwater-breaker) and our x-request-id.
HeaderList ownHeaders(const CallRecord &record);
