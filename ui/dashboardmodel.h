#pragma once

#include <array>
#include <deque>

#include <QHash>
#include <QList>
#include <QMap>
#include <QObject>
#include <QStringList>

#include "accounting/callending.h"
#include "accounting/callrecord.h"
#include "proxysnapshot.h"
#include "upstream/circuitbreaker.h"

// Everything the dashboard shows, as plain data: running totals, per-second outcome buckets, each
// upstream's breaker history, the latest live figures, the most recent records and the calls in
// flight. Every view places a call by its arrival (receivedAtMs), whether it is finished or not. The proxy's
// events reach it queued on the GUI thread and cost O(1) each; the widgets read it on their own
// redraw timer, so a burst of 5,000 events a second never turns into 5,000 repaints.
// Holds no widgets, so tests can feed it a recorded sequence and check the figures directly.
class DashboardModel final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(DashboardModel)
public:
    // The classes drawn as stacked series: how an answered call was served (refused: no upstream
    // call, breaker, spend, queue or bad input), Fallback for a call its upstream's fallback
    // answered well (x-breakwater-fallback), and Failed for a call that was served but did not
    // end well (accounting/callending.h), whatever served it.
    enum class Category : quint8 { Miss, Joined, Hit, Bypass, Fallback, Refused, Failed };
    static constexpr int kCategoryCount = 7;
    using Counts = std::array<qint64, kCategoryCount>;
    static Category categoryOf(Outcome outcome);            // how it was served: never Fallback or Failed
    static Category categoryOf(const CallRecord &record);   // as drawn: a failure is Failed, a fallback's answer Fallback
    static QString categoryName(Category category);

    static constexpr int kMaxRecords = 2000;           // recent records kept for table and staircase
    static constexpr int kMaxTransitions = 500;        // per upstream
    static constexpr int kMaxInFlight = 10'000;        // calls in flight tracked (more are not drawn)
    static constexpr qint64 kBucketHistoryMs = 16 * 60 * 1000;   // a little over the widest window

    struct Totals
    {
        qint64 requests = 0;
        // By how the call was served; Failed counts the failures too, so a failed miss is counted
        // under Miss and under Failed, and Fallback the answers of fallbacks (a miss and a fallback).
        Counts perCategory{};
        std::array<qint64, kEndingCount> perEnding{};
        QMap<int, qint64> upstreamErrorStatuses;   // the failures ended upstream_error, by status
        double costSpentUsd = 0;
        double costSavedUsd = 0;
        qint64 pricedCalls = 0;         // records whose cost was known
        qint64 providerCalls = 0;       // FaultWindows::reachedProvider, as a drill's report counts them
        // Misses + bypasses that reached the provider (an injected 503 never did): what it bills.
        qint64 upstreamCalls() const { return providerCalls; }
        qint64 count(Category category) const { return perCategory[size_t(category)]; }
        qint64 count(Ending ending) const { return perEnding[size_t(ending)]; }
        qint64 failures() const { return count(Category::Failed); }
    };

    // The call log's rows loaded by addHistory: how many and the arrivals they span.
    struct History
    {
        qint64 calls = 0;
        qint64 fromMs = 0;
        qint64 toMs = 0;
    };

    // One dot of "latency vs arrival". At most kSamplesPerSecond are kept per second of completions
    // (the first ones, and the slowest of the rest), so the chart covers the whole window at any rate.
    struct LatencySample
    {
        qint64 arrivalMs = 0;
        qint64 totalMs = 0;
        Outcome outcome = Outcome::Miss;
        int status = 0;
        Ending ending = Ending::Ok;
    };
    static constexpr int kSamplesPerSecond = 20;

    struct Band
    {
        qint64 startMs = 0;
        qint64 endMs = 0;
        BreakerState state = BreakerState::Closed;
    };

    explicit DashboardModel(QObject *parent = nullptr);

    // Event intake: connect the proxy's signals here (queued).
    void addRecord(const CallRecord &record);
    // A call received and not yet finished (ProxyServer::callStarted); its addRecord ends it.
    void addStarted(const CallRecord &record);
    void addTransition(const BreakerTransition &transition);
    void setSnapshot(const ProxySnapshot &snapshot);
    // The pools of another proxy whose calls feed this model (the demo's second proxy for the
    // bursts at concurrency 1 and 4), by a name for it: only its running and queued calls count,
    // in inFlight() and queued(); its breakers are its own and are not shown.
    void setSideSnapshot(const QString &source, const ProxySnapshot &snapshot);
    // Records from before this run (the call log), oldest first: counted and drawn in every view as
    // this run's are (no spend notifications), with their range in history(). The breakers'
    // states at admission become the breaker timeline of that time, closed again at its end (a
    // restarted proxy starts with closed breakers).
    void addHistory(const QList<CallRecord> &records);
    // Starts the request figures afresh (the "Clear" button): totals, buckets, records and history
    // go. The breakers' history and the calls in flight stay: they are state, not counts.
    void clear();
    // Forgets the breakers' transitions too (the toolbar's Clear starts every view afresh): each
    // timeline restarts at `nowMs` in the breaker's current state.
    void clearBreakerHistory(qint64 nowMs);

    const Totals &totals() const { return m_totals; }
    const ProxySnapshot &snapshot() const { return m_snapshot; }
    // Upstream calls running now and calls waiting for a pool slot, from the snapshot's flights and
    // the side proxies' pools; flightsListed() is the In flight tab's count (this proxy's, both).
    int inFlight() const;
    int queued() const;
    int flightsListed() const;
    qint64 oldestFlightStartMs() const;   // the oldest flight's or unanswered call's arrival (0: none)
    int sideInFlight() const;   // the side proxies' share of inFlight() ...
    int sideQueued() const;     // ... and of queued()
    // Calls received and not finished, by arrival, and the oldest one's arrival (0: none).
    QList<CallRecord> inFlightCalls() const;
    qint64 oldestInFlightMs() const;
    const History &history() const { return m_history; }
    // When admission was paused, clipped to [fromMs, toMs] (an ongoing pause ends at toMs).
    QList<std::pair<qint64, qint64>> pausedSpans(qint64 fromMs, qint64 toMs) const;

    QStringList upstreams() const { return m_upstreamOrder; }
    BreakerState breakerState(const QString &upstream) const;
    BreakerState worstBreakerState() const;
    // The breaker's states over [fromMs, toMs] as contiguous bands, and the transitions inside it.
    QList<Band> bands(const QString &upstream, qint64 fromMs, qint64 toMs) const;
    QList<BreakerTransition> transitions(const QString &upstream, qint64 fromMs, qint64 toMs) const;

    // Outcomes per bucket over [fromMs, toMs): one entry per bucket of `bucketMs`, oldest first.
    QList<Counts> outcomeBuckets(qint64 fromMs, qint64 toMs, qint64 bucketMs) const;

    // The newest `count` records in arrival order (oldest arrival first).
    QList<CallRecord> recentByArrival(int count) const;
    const std::deque<LatencySample> &latencySamples() const { return m_samples; }
    const std::deque<CallRecord> &records() const { return m_records; }
    // Sequence number of the newest record; records().back() has this number.
    quint64 recordSequence() const { return m_recordSequence; }

    // Bumped by every change, so views redraw only when something happened.
    quint64 revision() const { return m_revision; }
    quint64 clearCount() const { return m_clearCount; }
    // The newest event time seen (wall ms); the views' clock when no live clock is given.
    qint64 latestEventMs() const { return m_latestEventMs; }

Q_SIGNALS:
    // Immediate, for notifications (the tray); views do not redraw on these.
    void breakerTransitioned(const BreakerTransition &transition);
    void spendRefused(const CallRecord &record);
    // Something to draw (the revision moved): wakes a resting dashboard, which draws on its own timer.
    void changed();

private:
    struct Bucket
    {
        qint64 second = 0;
        std::array<int, kCategoryCount> counts{};
    };
    struct BreakerHistory
    {
        BreakerState initial = BreakerState::Closed;   // state before the first kept transition
        qint64 firstSeenMs = 0;
        BreakerState current = BreakerState::Closed;
        std::deque<BreakerTransition> transitions;
    };
    BreakerHistory &historyFor(const QString &upstream, qint64 seenAtMs);
    void appendTransition(const BreakerTransition &transition);
    void count(const CallRecord &record);
    void keep(const CallRecord &record);   // into the recent records (table, staircase)
    void addHistoricBreakerStates(QList<CallRecord> byArrival);
    void addToBucket(qint64 atMs, Category category);
    void addSample(const CallRecord &record, qint64 atMs);
    void noteTime(qint64 atMs);
    void bump();   // the revision moves and changed() says so

    Totals m_totals;
    ProxySnapshot m_snapshot;
    struct SidePools
    {
        int running = 0;
        int queued = 0;
    };
    QHash<QString, SidePools> m_sides;
    QHash<QString, BreakerHistory> m_breakers;
    QStringList m_upstreamOrder;
    std::deque<Bucket> m_buckets;      // sorted by second, sparse
    std::deque<CallRecord> m_records;  // in the order they completed
    QHash<QByteArray, CallRecord> m_inFlight;   // by request id
    static constexpr int kMaxPausedSpans = 100;
    QList<std::pair<qint64, qint64>> m_pausedSpans;   // wall ms [paused, resumed); 0: still paused
    History m_history;
    std::deque<LatencySample> m_samples;   // in the order they completed
    qint64 m_sampleSecond = 0;             // completion second of the newest sample ...
    int m_samplesThisSecond = 0;           // ... and how many that second has
    quint64 m_recordSequence = 0;
    quint64 m_revision = 0;
    quint64 m_clearCount = 0;
    qint64 m_latestEventMs = 0;
};
