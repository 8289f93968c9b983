#include "dashboardmodel.h"

#include <algorithm>

#include "drill/faultwindows.h"

using namespace Qt::StringLiterals;

namespace {

int severity(BreakerState state)
{
    switch (state) {
    case BreakerState::Closed: return 0;
    case BreakerState::HalfOpen: return 1;
    case BreakerState::Open: return 2;
    }
    return 0;
}

} // namespace

DashboardModel::Category DashboardModel::categoryOf(Outcome outcome)
{
    switch (servedOf(outcome)) {
    case Served::Miss: return Category::Miss;
    case Served::Joined: return Category::Joined;
    case Served::Hit: return Category::Hit;
    case Served::Bypass: return Category::Bypass;
    case Served::Refused: return Category::Refused;
    }
    return Category::Refused;
}

DashboardModel::Category DashboardModel::categoryOf(const CallRecord &record)
{
    if (isFailure(endingOf(record)))
        return Category::Failed;
    return record.fallbackFrom.isEmpty() ? categoryOf(record.outcome) : Category::Fallback;
}

QString DashboardModel::categoryName(Category category)
{
    // Shown in legends and tooltips only; the wire and the call log use outcome names of their own.
    switch (category) {
    case Category::Miss: return tr("miss");
    case Category::Joined: return tr("joined");
    case Category::Hit: return tr("hit");
    case Category::Bypass: return tr("bypass");
    case Category::Fallback: return tr("fallback");
    case Category::Refused: return tr("refused");
    case Category::Failed: return tr("failed");
    }
    return tr("failed");
}

DashboardModel::DashboardModel(QObject *parent)
    : QObject(parent)
{
}

void DashboardModel::addRecord(const CallRecord &record)
{
    // A fallback's refused attempt ends no request: its request is still in flight at the fallback.
    if (record.isClientRequest())
        m_inFlight.remove(record.requestId);
    count(record);
    bump();
    if (record.outcome == Outcome::SpendRefused)
        Q_EMIT spendRefused(record);
}

void DashboardModel::addStarted(const CallRecord &record)
{
    if (m_inFlight.size() >= kMaxInFlight)
        return;
    m_inFlight.insert(record.requestId, record);
    noteTime(record.receivedAtMs);
    bump();
}

void DashboardModel::count(const CallRecord &record)
{
    // A fallback's refused attempt is a row of the table, not a request: the request it was part
    // of is counted once, by its answer's row (CallRecord::isClientRequest).
    if (!record.isClientRequest()) {
        ++m_totals.providerCalls;   // it reached the provider, which refused it: an upstream call
        noteTime(record.endAtMs > 0 ? record.endAtMs : record.receivedAtMs);
        keep(record);
        return;
    }
    const Category served = categoryOf(record.outcome);
    const Ending ending = endingOf(record);
    ++m_totals.requests;
    ++m_totals.perCategory[size_t(served)];
    ++m_totals.perEnding[size_t(ending)];
    m_totals.providerCalls += FaultWindows::reachedProvider(record);
    if (isFailure(ending)) {
        ++m_totals.perCategory[size_t(Category::Failed)];
        if (ending == Ending::UpstreamError)
            ++m_totals.upstreamErrorStatuses[record.status];
    } else if (!record.fallbackFrom.isEmpty()) {
        ++m_totals.perCategory[size_t(Category::Fallback)];
    }
    // Only the caller that started an upstream call pays for it; riders and hits save its cost.
    if ((served == Category::Miss || served == Category::Bypass) && record.costUsd >= 0) {
        m_totals.costSpentUsd += record.costUsd;
        ++m_totals.pricedCalls;
    }
    if (record.costSavedUsd > 0)
        m_totals.costSavedUsd += record.costSavedUsd;

    // Placed by arrival, as every other view places it; the latency samples are thinned per
    // second of completion, when they are known.
    addToBucket(record.receivedAtMs, categoryOf(record));
    const qint64 end = record.endAtMs > 0 ? record.endAtMs : record.receivedAtMs;
    addSample(record, end);
    noteTime(end);
    keep(record);
}

void DashboardModel::keep(const CallRecord &record)
{
    m_records.push_back(record);
    if (m_records.size() > size_t(kMaxRecords))
        m_records.pop_front();
    ++m_recordSequence;
}

void DashboardModel::addHistory(const QList<CallRecord> &records)
{
    if (records.isEmpty())
        return;
    for (const CallRecord &record : records) {
        count(record);
        m_history.fromMs = m_history.calls == 0 ? record.receivedAtMs : std::min(m_history.fromMs, record.receivedAtMs);
        m_history.toMs = std::max({m_history.toMs, record.receivedAtMs, record.endAtMs});
        ++m_history.calls;
    }
    addHistoricBreakerStates(records);
    bump();
}

void DashboardModel::addHistoricBreakerStates(QList<CallRecord> byArrival)
{
    std::stable_sort(byArrival.begin(), byArrival.end(), [](const CallRecord &a, const CallRecord &b) {
        return a.receivedAtMs < b.receivedAtMs;
    });
    const auto stateOf = [](const QByteArray &name) {
        for (const BreakerState state : {BreakerState::Closed, BreakerState::HalfOpen, BreakerState::Open}) {
            if (breakerStateName(state) == name)
                return state;
        }
        return BreakerState::Closed;
    };
    for (const CallRecord &record : byArrival) {
        if (record.upstream.isEmpty())
            continue;
        const QString upstream = QString::fromLatin1(record.upstream);
        const bool known = m_breakers.contains(upstream);
        BreakerHistory &history = historyFor(upstream, record.receivedAtMs);
        const BreakerState state = stateOf(record.breakerState);
        if (!known) {
            history.initial = state;
            history.current = state;
        } else if (state != history.current) {
            appendTransition({upstream, record.receivedAtMs, history.current, state, tr("seen in the call log")});
        }
    }
    // This run's breakers start closed.
    for (const QString &upstream : m_upstreamOrder) {
        BreakerHistory &history = m_breakers[upstream];
        if (history.current != BreakerState::Closed)
            appendTransition({upstream, m_history.toMs, history.current, BreakerState::Closed, tr("Breakwater restarted")});
    }
}

void DashboardModel::addTransition(const BreakerTransition &transition)
{
    appendTransition(transition);
    bump();
    Q_EMIT breakerTransitioned(transition);
}

void DashboardModel::appendTransition(const BreakerTransition &transition)
{
    BreakerHistory &history = historyFor(transition.upstream, transition.atMs);
    if (history.transitions.empty() && transition.atMs <= history.firstSeenMs)
        history.firstSeenMs = transition.atMs;
    if (history.transitions.empty())
        history.initial = transition.from;
    history.transitions.push_back(transition);
    if (history.transitions.size() > size_t(kMaxTransitions)) {
        // The dropped transition's target becomes the known starting state.
        const BreakerTransition &dropped = history.transitions.front();
        history.initial = dropped.to;
        history.firstSeenMs = dropped.atMs;
        history.transitions.pop_front();
    }
    history.current = transition.to;
    noteTime(transition.atMs);
}

void DashboardModel::setSnapshot(const ProxySnapshot &snapshot)
{
    // The same figures at a later time change nothing on screen: no redraw for them (issue 26).
    if (m_snapshot.atMs > 0 && snapshot.sameFigures(m_snapshot)) {
        m_snapshot.atMs = snapshot.atMs;
        m_snapshot.steadyMs = snapshot.steadyMs;
        noteTime(snapshot.atMs);
        return;
    }
    // Admission paused refuses every call as an open breaker does: its spans go on the timeline.
    if (snapshot.admissionPaused != m_snapshot.admissionPaused && snapshot.atMs > 0) {
        if (snapshot.admissionPaused)
            m_pausedSpans.append({snapshot.atMs, 0});
        else if (!m_pausedSpans.isEmpty() && m_pausedSpans.last().second == 0)
            m_pausedSpans.last().second = snapshot.atMs;
        while (m_pausedSpans.size() > kMaxPausedSpans)
            m_pausedSpans.removeFirst();
    }
    m_snapshot = snapshot;
    for (const UpstreamSnapshot &upstream : snapshot.upstreams) {
        const QString name = QString::fromLatin1(upstream.name);
        const bool known = m_breakers.contains(name);
        BreakerHistory &history = historyFor(name, snapshot.atMs);
        if (!known || history.transitions.empty()) {
            history.initial = upstream.breakerState;
            history.current = upstream.breakerState;
        }
    }
    noteTime(snapshot.atMs);
    bump();
}

void DashboardModel::setSideSnapshot(const QString &source, const ProxySnapshot &snapshot)
{
    SidePools pools;
    for (const UpstreamSnapshot &upstream : snapshot.upstreams) {
        pools.running += upstream.running;
        pools.queued += upstream.queued;
    }
    SidePools &kept = m_sides[source];
    // Published four times a second while idle too: only a change is worth a redraw.
    if (kept.running == pools.running && kept.queued == pools.queued)
        return;
    kept = pools;
    bump();
}

void DashboardModel::clear()
{
    m_totals = {};
    m_buckets.clear();
    m_records.clear();
    m_samples.clear();
    m_samplesThisSecond = 0;
    m_history = {};
    ++m_clearCount;
    bump();
}

void DashboardModel::clearBreakerHistory(qint64 nowMs)
{
    for (BreakerHistory &history : m_breakers) {
        history.initial = history.current;
        history.firstSeenMs = nowMs;
        history.transitions.clear();
    }
    bump();
}

// Both from the snapshot's list of flights, the one source the In flight tab and its title read
// too: the pools' own counts miss a call Breakwater itself holds (an injected hang never takes a
// pool slot), and the tile said "0 in flight" beside a tab titled "In flight (1)" (issue 27).
// The list's newer omitted flights count as running: the list is oldest first, and a pool's queue
// is its newest calls, so this can only err with more than InFlight::kMaxListed flights.
int DashboardModel::inFlight() const
{
    int running = sideInFlight() + m_snapshot.flightsOmitted;
    for (const InFlight &flight : m_snapshot.flights)
        running += flight.state == InFlight::State::Queued ? 0 : 1;
    return running;
}

int DashboardModel::queued() const
{
    int waiting = sideQueued();
    for (const InFlight &flight : m_snapshot.flights)
        waiting += flight.state == InFlight::State::Queued ? 1 : 0;
    return waiting;
}

int DashboardModel::flightsListed() const
{
    return int(m_snapshot.flights.size()) + m_snapshot.flightsOmitted;
}

qint64 DashboardModel::oldestFlightStartMs() const
{
    // A request received whose flight the snapshot has not listed yet counts too (records and
    // snapshots arrive apart): the oldest unanswered request, never younger than the list's.
    qint64 oldest = oldestInFlightMs();
    for (const InFlight &flight : m_snapshot.flights) {
        if (oldest == 0 || flight.startedAtMs < oldest)
            oldest = flight.startedAtMs;
    }
    return oldest;
}

int DashboardModel::sideInFlight() const
{
    int running = 0;
    for (const SidePools &side : m_sides)
        running += side.running;
    return running;
}

int DashboardModel::sideQueued() const
{
    int waiting = 0;
    for (const SidePools &side : m_sides)
        waiting += side.queued;
    return waiting;
}

QList<CallRecord> DashboardModel::inFlightCalls() const
{
    QList<CallRecord> calls(m_inFlight.cbegin(), m_inFlight.cend());
    std::sort(calls.begin(), calls.end(), [](const CallRecord &a, const CallRecord &b) {
        return a.receivedAtMs != b.receivedAtMs ? a.receivedAtMs < b.receivedAtMs : a.requestId < b.requestId;
    });
    return calls;
}

qint64 DashboardModel::oldestInFlightMs() const
{
    qint64 oldest = 0;
    for (const CallRecord &call : m_inFlight) {
        if (oldest == 0 || call.receivedAtMs < oldest)
            oldest = call.receivedAtMs;
    }
    return oldest;
}

QList<std::pair<qint64, qint64>> DashboardModel::pausedSpans(qint64 fromMs, qint64 toMs) const
{
    QList<std::pair<qint64, qint64>> spans;
    for (const auto &[start, end] : m_pausedSpans) {
        const qint64 until = end == 0 ? toMs : end;
        if (until >= fromMs && start <= toMs)
            spans.append({std::max(start, fromMs), std::min(until, toMs)});
    }
    return spans;
}

BreakerState DashboardModel::breakerState(const QString &upstream) const
{
    const auto it = m_breakers.constFind(upstream);
    return it == m_breakers.constEnd() ? BreakerState::Closed : it->current;
}

BreakerState DashboardModel::worstBreakerState() const
{
    BreakerState worst = BreakerState::Closed;
    for (const BreakerHistory &history : m_breakers) {
        if (severity(history.current) > severity(worst))
            worst = history.current;
    }
    return worst;
}

QList<DashboardModel::Band> DashboardModel::bands(const QString &upstream, qint64 fromMs, qint64 toMs) const
{
    QList<Band> result;
    const auto it = m_breakers.constFind(upstream);
    if (it == m_breakers.constEnd() || toMs <= fromMs)
        return result;
    const BreakerHistory &history = *it;
    BreakerState state = history.initial;
    qint64 start = std::max(fromMs, history.firstSeenMs);
    for (const BreakerTransition &transition : history.transitions) {
        if (transition.atMs >= toMs)
            break;
        if (transition.atMs > start) {
            result.append({start, transition.atMs, state});
            start = transition.atMs;
        }
        state = transition.to;
    }
    if (toMs > start)
        result.append({start, toMs, state});
    return result;
}

QList<BreakerTransition> DashboardModel::transitions(const QString &upstream, qint64 fromMs, qint64 toMs) const
{
    QList<BreakerTransition> result;
    const auto it = m_breakers.constFind(upstream);
    if (it == m_breakers.constEnd())
        return result;
    for (const BreakerTransition &transition : it->transitions) {
        if (transition.atMs >= fromMs && transition.atMs <= toMs)
            result.append(transition);
    }
    return result;
}

QList<DashboardModel::Counts> DashboardModel::outcomeBuckets(qint64 fromMs, qint64 toMs, qint64 bucketMs) const
{
    QList<Counts> result;
    if (bucketMs <= 0 || toMs <= fromMs)
        return result;
    const qsizetype count = qsizetype((toMs - fromMs + bucketMs - 1) / bucketMs);
    result.resize(count, Counts{});
    // Buckets are sorted: find the first second in range, then walk forward.
    const qint64 firstSecond = fromMs / 1000;
    auto it = std::lower_bound(m_buckets.begin(), m_buckets.end(), firstSecond,
                               [](const Bucket &bucket, qint64 second) { return bucket.second < second; });
    for (; it != m_buckets.end(); ++it) {
        const qint64 atMs = it->second * 1000;
        if (atMs >= toMs)
            break;
        if (atMs < fromMs)
            continue;
        Counts &target = result[qsizetype((atMs - fromMs) / bucketMs)];
        for (int i = 0; i < kCategoryCount; ++i)
            target[size_t(i)] += it->counts[size_t(i)];
    }
    return result;
}

QList<CallRecord> DashboardModel::recentByArrival(int count) const
{
    const size_t take = std::min(m_records.size(), size_t(std::max(count, 0)));
    QList<CallRecord> result(m_records.end() - qsizetype(take), m_records.end());
    std::stable_sort(result.begin(), result.end(), [](const CallRecord &a, const CallRecord &b) {
        return a.receivedAtMs < b.receivedAtMs;
    });
    return result;
}

DashboardModel::BreakerHistory &DashboardModel::historyFor(const QString &upstream, qint64 seenAtMs)
{
    auto it = m_breakers.find(upstream);
    if (it == m_breakers.end()) {
        m_upstreamOrder.append(upstream);
        it = m_breakers.insert(upstream, BreakerHistory{});
        it->firstSeenMs = seenAtMs;
    }
    return *it;
}

void DashboardModel::addToBucket(qint64 atMs, Category category)
{
    const qint64 second = atMs / 1000;
    // Records complete nearly in order, so the newest bucket is almost always the one.
    if (m_buckets.empty() || m_buckets.back().second < second) {
        m_buckets.push_back({second, {}});
    } else if (m_buckets.back().second != second) {
        auto it = std::lower_bound(m_buckets.begin(), m_buckets.end(), second,
                                   [](const Bucket &bucket, qint64 s) { return bucket.second < s; });
        if (it == m_buckets.end() || it->second != second)
            it = m_buckets.insert(it, {second, {}});
        ++it->counts[size_t(category)];
        return;
    }
    ++m_buckets.back().counts[size_t(category)];
    const qint64 oldest = second - kBucketHistoryMs / 1000;
    while (!m_buckets.empty() && m_buckets.front().second < oldest)
        m_buckets.pop_front();
}

void DashboardModel::addSample(const CallRecord &record, qint64 atMs)
{
    const LatencySample sample{record.receivedAtMs, record.totalMs(), record.outcome, record.status, endingOf(record)};
    const qint64 second = atMs / 1000;
    if (second != m_sampleSecond) {
        m_sampleSecond = second;
        m_samplesThisSecond = 0;
    }
    if (m_samplesThisSecond < kSamplesPerSecond) {
        m_samples.push_back(sample);
        ++m_samplesThisSecond;
    } else if (sample.totalMs > m_samples.back().totalMs) {
        m_samples.back() = sample;   // the second's last slot holds its slowest late-comer
    }
    const qint64 oldest = atMs - kBucketHistoryMs;
    while (!m_samples.empty() && m_samples.front().arrivalMs + m_samples.front().totalMs < oldest)
        m_samples.pop_front();
}

void DashboardModel::bump()
{
    ++m_revision;
    Q_EMIT changed();
}

void DashboardModel::noteTime(qint64 atMs)
{
    m_latestEventMs = std::max(m_latestEventMs, atMs);
}
