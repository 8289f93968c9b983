#pragma once

#include "upstream/stuckcallrule.h"
#include "accounting/callrecord.h"
#include "accounting/metrics.h"
#include "accounting/pricetable.h"
#include "clock.h"
#include "http/apierror.h"
#include "http/incomingrequest.h"
#include "livesettings.h"
#include "proxyconfig.h"
#include "proxysnapshot.h"
#include "result.h"
#include "sharing/answercache.h"
#include "sharing/sharing.h"
#include "upstream/circuitbreaker.h"

#include <deque>
#include <functional>

#include <QAbstractHttpServer>
#include <QDeadlineTimer>
#include <QHostAddress>
#include <QJsonObject>
#include <QTimer>

class BreakerProbe;
class EventFeed;
class CircuitBreaker;
class FaultInjector;
struct ProxyRoute;
class FrontDoor;
class ResponseWriter;
class SharedState;
class SpendGuard;
class UpstreamEngine;
class UpstreamPool;

// The proxy: routes each request (the table: proxyroutes.h), parses it, keys it and hands it to
// Sharing, which answers it from the cache, from a flight in progress, or asks the proxy to admit
// (spend, breaker) and start a new upstream call. Lives on the proxy thread, which owns every piece
// of per-request state (flights, cache, pools' bookkeeping), so none of it needs locks.
class MemberGate;

class ProxyServer final : public QAbstractHttpServer
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ProxyServer)
public:
    explicit ProxyServer(const ProxyConfig &config, const Clock &clock, QObject *parent = nullptr);
    ~ProxyServer() override;

    // Loads the user's price file (if any) and binds the front door; a failure says why.
    Result listen();
    quint16 port() const;
    QString baseUrl() const;   // http://HOST:PORT/v1

    // One upstream provider and what guards it.
    struct Upstream
    {
        QByteArray name;          // "openai", "anthropic", "gemini" or a routed upstream's name
        QUrl baseUrl;
        ApiStyle style = ApiStyle::OpenAI;
        UpstreamPool *pool = nullptr;
        CircuitBreaker *breaker = nullptr;
        BreakerProbe *probe = nullptr;
        StuckCallRule stuck;      // what counts as stuck once a call to it timed out
    };

    const ProxyConfig &config() const { return m_config; }
    const Upstream &openai() const { return m_openai; }
    const Upstream &anthropic() const { return m_anthropic; }
    // Every upstream: the two defaults, then the routed ones in their order (routing/upstreamroutes.h).
    QList<const Upstream *> upstreams() const;
    const Upstream *upstreamNamed(const QByteArray &name) const;
    const AnswerCache &cache() const { return m_cache; }
    int flightsInProgress() const { return m_flights.size(); }
    int ridersInFlight() const { return m_flights.riders(); }   // callers waiting on an upstream call
    int flightsAbandoned() const { return m_flights.abandoned(); }   // upstream calls whose callers all left
    SpendGuard *spendGuard() const { return m_spend; }
    // The armed fault-injection rules (proxy thread only; the control API and the dashboard use it).
    FaultInjector *faults() const { return m_faults; }
    SharedState *sharedState() const { return m_fleet; }   // null without --shared-state
    // The live figures, for the dashboard and the tray (snapshotReady) and for /metrics and
    // /breakwater/stats alike. Reads only: taking one moves no breaker.
    ProxySnapshot snapshot();

    // Graceful shutdown, like nginx's quit or Envoy's drain: stops accepting connections, answers
    // new requests on open ones 503 `shutting_down`, lets the calls in flight finish for `grace`,
    // then ends the rest (a stream with an error event), so every call is answered and published
    // before `drained`. Calling it again with a shorter grace ends the calls sooner.
    void drain(std::chrono::milliseconds grace);
    bool isDraining() const { return m_draining; }

    // Live control (README, "Live control"): the values that change without a restart, the
    // breaker buttons and pausing admission, for the dashboard (queued onto this thread) and the
    // control API (controlapi.h). What a change does to calls in flight: each unit's setter says.
    LiveSettings liveSettings() const { return LiveSettings::of(m_config); }
    void applyLiveSettings(const LiveSettings &settings);
    // A breaker button on "openai" or "anthropic" (nullopt for another name); false when it had
    // nothing to do (already in that state; probe: the breaker is not open).
    std::optional<bool> actOnBreaker(const QByteArray &upstream, BreakerAction action);
    // Paused, every new request on a /v1 route is answered 503 `paused` (x-should-retry: false,
    // retry-after) before the cache or a flight is looked at: refused rather than held, since a
    // held client would meet its own timeout. Calls in flight go on; /healthz says "paused".
    void setAdmissionPaused(bool paused);
    bool isAdmissionPaused() const { return m_admissionPaused; }

    // GET /breakwater/events opens with the latest call records: `history(limit)` gives them,
    // oldest first (the call log's latest rows, read on this thread). None set: it opens with none.
    void setCallHistory(std::function<QList<CallRecord>(int limit)> history) { m_callHistory = std::move(history); }
    static constexpr int kEventHistoryRows = 500;
    int eventWatchers() const;   // the streams of /breakwater/events open now

Q_SIGNALS:
    // Published on the proxy thread for every request that reaches sharing (every proxied call but
    // one refused as bad input), when it is received: the dashboard draws it in flight until its
    // callCompleted (same requestId) arrives.
    void callStarted(const CallRecord &record);
    // Published on the proxy thread for every request when its response is over.
    void callCompleted(const CallRecord &record);
    void breakerChanged(const BreakerTransition &transition);
    // Every kSnapshotInterval, for the dashboard and the tray.
    void snapshotReady(const ProxySnapshot &snapshot);
    // After `drain`: no call is in flight any more and every record was published.
    void drained();

protected:
    bool handleRequest(const QHttpServerRequest &request, QTcpSocket *socket) override;
    void missingHandler(const QHttpServerRequest &request, QTcpSocket *socket) override;

private:
    using Route = ProxyRoute;
    // One request, in its turn on its connection (handleRequest): guards, then its route.
    void answer(const IncomingRequest &request, QTcpSocket *socket);
    void handleProxied(const Route &route, const IncomingRequest &request, ResponseWriter writer);
    void handlePassThrough(const Route &route, const IncomingRequest &request, ResponseWriter writer);
    // GET /v1/models with routed OpenAI-API upstreams: the union of every one's list (routing/modelsunion.h).
    void answerModelsUnion(const Route &route, const IncomingRequest &request, ResponseWriter writer);
    void share(const Route &route, const QByteArray &key, const IncomingRequest &request, const QJsonObject &body,
               CallRecord record, ResponseWriter writer);
    // With --shared-state, a key neither cached nor flying here is first looked up in the fleet's
    // answers (within the link's deadline), then shared here as usual. False: not asked.
    bool askFleetFirst(const Route &route, const QByteArray &key, const IncomingRequest &request,
                       const QJsonObject &body, CallRecord &record, ResponseWriter &writer);
    // The upstream a call of `style` for `model` goes to: the first routed one whose patterns match,
    // else the family's default.
    Upstream &upstreamFor(ApiStyle style, const QString &model = {});
    QList<Upstream *> allUpstreams();
    Upstream &upstreamOf(const CallRecord &record);   // the one its record names
    // The fallback to send a call for `upstream` to instead, if its breaker refuses calls and it names one.
    Upstream *fallbackFor(const Upstream &upstream);
    Upstream *namedFallback(const Upstream &upstream);   // the one it names, whatever its breaker says
    // The call as it goes to `fallback` instead of its record's upstream: marked as a fallback, its
    // model renamed by the fallback's models_map (in `record`, `request` and `body`).
    void redirect(const Upstream &fallback, CallRecord &record, IncomingRequest &request, QJsonObject &body) const;
    // The request key of a call to `upstream` (empty: never shared), its inputs told in `record`.
    QByteArray keyFor(const Route &route, const Upstream &upstream, const IncomingRequest &request,
                      const QJsonObject &body, CallRecord &record) const;
    // The riders of a call `from` refused before answering (Sharing::Takeoff::fallback), shared anew for `to`.
    void fallBack(const Route &route, const IncomingRequest &request, const QJsonObject &body, Flight &refused,
                  Upstream &to);
    void setUpUpstream(Upstream &upstream, const QByteArray &name, const QUrl &baseUrl, ApiStyle style);
    // What admitting one upstream call holds until `settle`: spend reserved for it and, in half-open,
    // the breaker's one trial.
    struct Admitted
    {
        bool modelCall = false;           // may be the trial, and report a success (ProxyRoute::Call)
        bool trial = false;               // the breaker's half-open trial
        std::optional<quint64> reservation;   // spend reserved for this call (with or without a cap)
        double estimateUsd = 0;
        qint64 inputTokensEstimate = 0;
        QByteArray fleetReservation;      // the fleet's budget's reservation for it (--shared-state)
    };
    Sharing::Takeoff takeOff(const Route &route, const IncomingRequest &request, const QJsonObject &body,
                             Flight &flight, Flight::Rider &rider);
    Sharing::Takeoff followFleet(const Route &route, const IncomingRequest &request, const QByteArray &leader,
                                 Flight &flight, Flight::Rider &rider);
    std::optional<Admitted> admit(Upstream &upstream, const Route &route, const IncomingRequest &request,
                                  const QJsonObject &body, Flight::Rider &rider);
    // The spend a model call reserves: the most it can cost (its input and its max_tokens); the
    // reservation is empty when the guard refused it. The price's bound, nullopt for a model
    // without a price. For admit and for a fleet follower that takes a dead leader's call over.
    std::optional<double> reserveSpend(Admitted &admitted, const QString &model, const QByteArray &rawBody,
                                       const QJsonObject &body);
    void land(Flight &flight, Upstream &upstream, const Admitted &admitted, bool reachedProvider);
    void settle(Upstream &upstream, const Admitted &admitted, const Flight *landed);
    void countStuckCalls(Upstream &upstream, const Flight *timedOut);
    void answerStats(const IncomingRequest &request, ResponseWriter writer);
    void answerError(ApiStyle style, const ApiError &error, CallRecord record, ResponseWriter writer,
                     const HeaderList &extra = {});
    void publish(CallRecord record);
    CallRecord newRecord(const Route &route, const IncomingRequest &request) const;
    // A team's Breakwater: the member the API call is for (its headers rewritten), or answered.
    bool admitMember(const Route &route, IncomingRequest &request, ResponseWriter &writer);

    ProxyConfig m_config;
    const Clock &m_clock;
    FrontDoor *m_frontDoor = nullptr;
    quint16 m_port = 0;
    std::shared_ptr<UpstreamEngine> m_engine;   // every upstream call of both pools runs on it
    Upstream m_openai;
    Upstream m_anthropic;
    // Listed (snapshot, dashboard lanes, /metrics) from the first call for it, or from the start when
    // --gemini-upstream or a Gemini routed upstream was given: most users never call Gemini.
    Upstream m_gemini;
    bool m_geminiListed = false;
    std::deque<Upstream> m_routed;   // a deque: calls hold references to their upstream
    UpstreamRoutes m_routes;
    // Which upstream each flight in progress was sent to (countStuckCalls); set at take-off, gone at landing.
    QHash<const Flight *, Upstream *> m_flightUpstream;
    AnswerCache m_cache;
    Sharing m_flights;   // the flights in progress, and how requests share them and the cache
    PriceTable m_prices;
    SpendGuard *m_spend = nullptr;
    FaultInjector *m_faults = nullptr;
    SharedState *m_fleet = nullptr;   // --shared-state only
    QByteArray m_fleetReservation;    // during askFleetFirst's share only: the reservation takeOff claims
    Metrics m_metrics;
    QTimer m_snapshotTimer;
    bool m_draining = false;
    QTimer m_drainCheck;              // while draining: are the calls in flight done?
    QDeadlineTimer m_drainDeadline;   // then the calls left are ended
    bool m_drainEnding = false;       // the pools were told to end their calls
    bool m_admissionPaused = false;
    EventFeed *m_events = nullptr;
    std::function<QList<CallRecord>(int limit)> m_callHistory;
    std::unique_ptr<MemberGate> m_members;   // --access-tokens; none: every caller is the owner
};
