#pragma once

#include "accounting/callrecord.h"
#include "accounting/usage.h"
#include "http/apierror.h"
#include "http/responsewriter.h"
#include "http/streamtiming.h"
#include "http/streamverdict.h"
#include "message.h"
#include "upstream/upstreamcall.h"

#include <QObject>

#include <optional>

class Clock;

// What one finished upstream call tells its upstream's breaker. The breaker hears each call once,
// however many riders shared it.
struct BreakerVerdict
{
    enum class Kind {
        Success,
        Failure,   // an upstream fault: 5xx, unreachable, our timeout, a cut stream, a garbage answer
        None,      // says nothing of the provider's health: a 429, Breakwater shutting down, no call
    };
    Kind kind = Kind::None;
    Message reason;   // with Failure, for the breaker's timeline: "timeout", "HTTP 503", ...
};

// One upstream call and everyone waiting for its answer (Go's singleflight `call`). The flight is
// owned by Sharing, never by the caller that started it: a rider who hangs up only leaves, and the
// call runs on for the others and for the cache.
//
// A streamed answer (text/event-stream) goes to every rider as it arrives; a rider who joins late
// first gets every piece received so far, then the live ones. Other answers are buffered and sent
// whole. A stream is judged by its parsed events (StreamVerdict): complete at its API's final event,
// failed at an error event inside the 200 (then every rider has the provider's own error, and the
// call is a failure for the cache, the breaker and spend alike), cut when it ends with neither.
// A pass-through call's answer, whatever its type, is relayed as it arrives too (a 500 MB file
// download is never held): only its first kKeptBytes are kept, for the log and usage, and it is
// judged by its transport alone. Touched only on the proxy thread.
class Flight final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(Flight)
public:
    struct Rider
    {
        ResponseWriter writer;
        CallRecord record;
        HeaderList extraHeaders;   // x-breakwater-* and x-request-id for this rider
    };

    Flight(const QByteArray &key, ApiStyle style, double timeoutSeconds, const Clock &clock,
           QObject *parent = nullptr);

    // Takes ownership of the call (reparents it) and follows its signals.
    void follow(UpstreamCall *call);
    void addRider(Rider rider);
    // Before the call starts: the flight of one pass-through call (never shared, never cached).
    // `relay` false keeps the answer whole (a HEAD answer, which has no body to relay).
    void setPassThrough(bool relay);
    static constexpr qsizetype kKeptBytes = 1024 * 1024;

    QByteArray key() const { return m_key; }
    ApiStyle style() const { return m_style; }
    bool isStreaming() const { return m_streaming; }
    int riderCount() const { return int(m_riders.size()); }

    // After the upstream finished: what it means for the breaker, the cache and the riders.
    const UpstreamResult &result() const { return m_result; }
    int status() const { return m_status; }
    const HeaderList &headers() const { return m_headers; }
    const QByteArray &body() const { return m_body; }
    // The token counts the upstream's answer reports (accounting/usage.h); a complete non-streamed
    // JSON answer is parsed once, at the end, for this and for the garbage check.
    Usage reportedUsage() const;
    // The error every rider gets instead of the upstream's answer, if any.
    std::optional<ApiError> failure() const;
    BreakerVerdict breakerVerdict() const;
    // A complete 2xx answer: fit for the answer cache, and billed even when it reports no usage.
    // Never a stream that carried an error event or a Responses failure.
    bool isCacheable() const;
    // What the stream's own events say of its end (Open for an answer that is no stream).
    const StreamVerdict &streamVerdict() const { return m_verdict; }

    qint64 upstreamStartAtMs() const { return m_upstreamStartAtMs; }   // 0 while queued
    bool hasHeaders() const { return m_headersReceived; }
    // Counted as a breaker failure while still in flight (ProxyServer's stuck-call rule): its own
    // failure, when it comes, is not counted again.
    bool countedAsStuck() const { return m_countedAsStuck; }
    void setCountedAsStuck() { m_countedAsStuck = true; }
    qint64 firstByteAtMs() const { return m_firstByteAtMs; }
    qint64 queueWaitMs() const { return m_queueWaitMs; }

    // For the In flight list (sharing/inflight.h), while the call runs: its first rider (the
    // leader, whose request made the call; a flight always has one once `share` seated it), the
    // riders whose connection closed, what came from the upstream so far, and whether the pool has
    // started the exchange.
    const CallRecord &leaderRecord() const { return m_riders.first().record; }
    int hungUpCount() const;
    qint64 bytesReceived() const { return m_bytesReceived; }
    qint64 eventsReceived() const { return m_timing.events(); }
    bool hasStarted() const { return m_started; }
    // The breaker's half-open trial, until its verdict (ProxyServer::takeOff).
    void setTrial(bool trial) { m_trial = trial; }
    bool isTrial() const { return m_trial; }

    QString model() const { return m_model; }
    void setModel(const QString &model) { m_model = model; }
    void setRecordBodies(bool record) { m_recordBodies = record; }
    // Before the first rider: the call is an injected fault (FaultRule::label()); every rider, the
    // joiners too, gets `x-breakwater-fault` and has it in its record.
    void setInjected(const QString &fault) { m_injected = fault; }
    QString injected() const { return m_injected; }
    // What the upstream call used and cost (nullopt: unknown model or usage); goes into every
    // rider's record: the rider who made the call paid it, the others saved it.
    void setUsage(const Usage &usage, std::optional<double> costUsd);
    const Usage &usage() const { return m_usage; }
    std::optional<double> costUsd() const { return m_costUsd; }

    // Every rider has hung up (before the answer was over).
    bool isAbandoned() const;
    // How many times every rider had hung up: a grace timer started at one abandonment is not the
    // judge of the next (Sharing::onAbandoned).
    int abandonments() const { return m_abandonments; }
    // The answer is already known to be a failure while the call still runs: its stream carried the
    // provider's error. Such a flight takes no new riders (Sharing::share).
    bool hasFailedEarly() const;
    // The upstream refused the call before any of it reached a rider: a 429 or 5xx answer that is
    // no stream, or no answer at all (unreachable, or our timeout before its headers). Such a call
    // may go to the upstream's fallback (Sharing::land); once a stream has begun it never does.
    bool refusedBeforeAnswering() const;
    // Hands every rider over (to be sent to a fallback): the flight then answers nobody.
    QList<Rider> takeRiders();
    // The call itself as it ended, for the row of a refused attempt (Outcome::FellBack): `record`
    // (its first rider's, as it arrived) with the upstream's timings, status, error and cost.
    CallRecord attemptRecord(CallRecord record) const;
    // Ends the upstream call now; it lands as UpstreamFailure::Cancelled (Sharing decides when).
    void cancel();
    bool isCancelled() const { return m_call && m_call->isCancelled(); }

    // Answers every rider and publishes each rider's record. Call once, after `upstreamFinished`.
    void release();
    bool isReleased() const { return m_released; }

Q_SIGNALS:
    void upstreamFinished(Flight *flight);
    // The last rider hung up while the upstream call was still running.
    void abandoned(Flight *flight);
    void riderFinished(const CallRecord &record);

private:
    void onHeaders(int status, const HeaderList &headers);
    void onBody(const QByteArray &piece);
    void onFinished(const UpstreamResult &result);
    void onRiderLeft();
    void beginRiderStream(Rider &rider);
    void finishRider(Rider &rider);
    void recordInside(CallRecord &record, const ResponseWriter &writer) const;
    bool hasFinalEvent() const;
    bool failedInStream() const;

    QByteArray m_key;
    ApiStyle m_style;
    double m_timeoutSeconds;
    const Clock &m_clock;
    QList<Rider> m_riders;
    UpstreamCall *m_call = nullptr;   // a child: lives as long as the flight
    bool m_headersReceived = false;
    bool m_countedAsStuck = false;
    int m_abandonments = 0;
    bool m_streaming = false;      // an event stream of the route's API
    bool m_passThrough = false;
    bool m_relayAll = false;       // a pass-through relayed as it arrives, whatever its type
    bool m_relaying = false;       // decided with the headers: pieces go to the riders as they arrive
    bool m_finished = false;
    bool m_released = false;
    bool m_garbage = false;        // a 2xx that claims JSON but is not; decided once at the end
    std::optional<Usage> m_answerUsage;   // read then from the same parse
    int m_status = 0;
    HeaderList m_headers;
    QByteArray m_body;
    StreamVerdict m_verdict;       // fed every piece of a stream as it arrives
    StreamTiming m_timing;         // when the verdict's events came, for the records
    UpstreamResult m_result;
    qint64 m_upstreamStartAtMs = 0;
    qint64 m_firstByteAtMs = 0;
    qint64 m_queueWaitMs = 0;
    qint64 m_bytesReceived = 0;    // every body byte, a pass-through's beyond kKeptBytes too
    bool m_started = false;
    bool m_trial = false;
    QString m_model;
    bool m_recordBodies = false;
    QString m_injected;
    Usage m_usage;
    std::optional<double> m_costUsd;
};

// Headers for a rider's response: the upstream's, then `own`. An upstream header named like one
// of ours (its x-request-id; an upstream Breakwater's x-breakwater-dedup, -breaker, -fallback) is
// kept as x-upstream-<name without x->, so that each of ours is one line that speaks for this hop.
HeaderList riderHeaders(const HeaderList &upstream, const HeaderList &own);
