#include "accounting/metrics.h"

#include <QJsonArray>
#include <QLocale>

#include "accounting/callending.h"
#include "accounting/callrecord.h"
#include "drill/faultwindows.h"
#include "proxysnapshot.h"
#include "upstream/circuitbreaker.h"

using namespace Qt::StringLiterals;

namespace {

// An upstream call is a record that started one (a miss or bypass; an error after the call began).
// Joined and cached answers share another record's call and must not count it again.
bool isUpstreamCall(const CallRecord &record)
{
    return record.upstreamStartAtMs > 0
           && (record.outcome == Outcome::Miss || record.outcome == Outcome::Bypass
               || record.outcome == Outcome::Error || record.outcome == Outcome::FellBack);
}

QByteArray number(double value)
{
    return QByteArray::number(value, 'g', QLocale::FloatingPointShortest);
}

// Label values may hold anything a client sent (a route is fixed, an upstream name is ours, but
// escape anyway): backslash, double quote and newline, as the text format requires.
QByteArray escaped(const QByteArray &value)
{
    QByteArray out;
    out.reserve(value.size());
    for (char c : value) {
        if (c == '\\' || c == '"')
            out += '\\';
        if (c == '\n') {
            out += "\\n";
            continue;
        }
        out += c;
    }
    return out;
}

class TextWriter
{
public:
    void family(const char *name, const char *type, const char *help)
    {
        m_text += "# HELP "_ba + name + ' ' + help + "\n# TYPE " + name + ' ' + type + '\n';
    }
    void sample(const QByteArray &name, const QList<QPair<const char *, QByteArray>> &labels, const QByteArray &value)
    {
        m_text += name;
        if (!labels.isEmpty()) {
            m_text += '{';
            for (qsizetype i = 0; i < labels.size(); ++i)
                m_text += (i ? ","_ba : ""_ba) + labels[i].first + "=\"" + escaped(labels[i].second) + '"';
            m_text += '}';
        }
        m_text += ' ' + value + '\n';
    }
    QByteArray text() const { return m_text; }

private:
    QByteArray m_text;
};

QJsonObject nested(const QMap<QPair<QByteArray, QByteArray>, quint64> &counts)
{
    QJsonObject outer;
    for (auto it = counts.cbegin(); it != counts.cend(); ++it) {
        const QString first = QString::fromUtf8(it.key().first);
        QJsonObject inner = outer.value(first).toObject();
        inner.insert(QString::fromUtf8(it.key().second), qint64(it.value()));
        outer.insert(first, inner);
    }
    return outer;
}

// In the order the breaker_state samples have always been written.
constexpr std::array kBreakerStates{BreakerState::Closed, BreakerState::Open, BreakerState::HalfOpen};

} // namespace

void Metrics::Histogram::observe(double seconds)
{
    qsizetype bucket = 0;
    while (bucket < qsizetype(kBuckets.size()) && seconds > kBuckets[bucket])
        ++bucket;
    ++counts[bucket];
    sum += seconds;
    ++count;
}

void Metrics::record(const CallRecord &record)
{
    if (!record.isClientRequest()) {
        ++m_providerCalls;            // it reached the provider, which refused it
        recordUpstreamCall(record);   // a fallback's refused attempt: an upstream call, no request
        return;
    }
    ++m_requests[{record.route, outcomeName(record.outcome)}];
    if (!record.fallbackFrom.isEmpty())
        ++m_fallbacks[{record.fallbackFrom, record.upstream}];
    ++m_endings[{record.route, endingName(endingOf(record))}];
    m_costSavedUsd += qMax(record.costSavedUsd, 0.0);
    if (!record.member.isEmpty()) {
        ++m_memberRequests[{record.member.toUtf8(), outcomeName(record.outcome)}];
        if (record.costUsd > 0)
            m_memberCostUsd[record.member.toUtf8()] += record.costUsd;
    }
    if (record.endAtMs > 0)
        m_duration.observe(record.totalMs() / 1000.0);
    if (record.firstByteAtMs > 0 && record.receivedAtMs > 0)
        m_firstByte.observe((record.firstByteAtMs - record.receivedAtMs) / 1000.0);
    m_providerCalls += FaultWindows::reachedProvider(record);
    if (isUpstreamCall(record))
        recordUpstreamCall(record);
}

void Metrics::recordUpstreamCall(const CallRecord &record)
{
    ++m_upstreamCalls[{record.upstream, QByteArray::number(record.status)}];
    if (!record.errorKind.isEmpty())
        ++m_upstreamErrors[{record.upstream, record.errorKind}];
    m_queueWait.observe(qMax<qint64>(record.queueWaitMs, 0) / 1000.0);
    m_inputTokens += qMax<qint64>(record.inputTokens, 0);
    m_outputTokens += qMax<qint64>(record.outputTokens, 0);
    m_cachedTokens += qMax<qint64>(record.cachedTokens, 0);
    if (record.costUsd >= 0)
        m_costUsd += record.costUsd;
    else
        ++m_unknownCostCalls;
}

void Metrics::recordTransition(const BreakerTransition &transition)
{
    ++m_transitions[{transition.upstream.toUtf8(), breakerStateName(transition.to)}];
}

QByteArray Metrics::prometheusText(const ProxySnapshot &gauges) const
{
    TextWriter out;
    const auto counterPairs = [&out](const char *name, const char *first, const char *second,
                                     const QMap<LabelPair, quint64> &counts) {
        for (auto it = counts.cbegin(); it != counts.cend(); ++it)
            out.sample(name, {{first, it.key().first}, {second, it.key().second}}, QByteArray::number(it.value()));
    };
    const auto histogram = [&out](const char *name, const char *help, const Histogram &h) {
        out.family(name, "histogram", help);
        const QByteArray base(name);
        quint64 cumulative = 0;
        for (size_t i = 0; i < kBuckets.size(); ++i) {
            cumulative += h.counts[i];
            out.sample(base + "_bucket", {{"le", number(kBuckets[i])}}, QByteArray::number(cumulative));
        }
        out.sample(base + "_bucket", {{"le", "+Inf"}}, QByteArray::number(h.count));
        out.sample(base + "_sum", {}, number(h.sum));
        out.sample(base + "_count", {}, QByteArray::number(h.count));
    };

    out.family("breakwater_requests_total", "counter", "Client requests by route and outcome.");
    counterPairs("breakwater_requests_total", "route", "outcome", m_requests);
    out.family("breakwater_requests_ended_total", "counter",
               "Client requests by route and how they ended (ok, upstream_error, timeout, ...).");
    counterPairs("breakwater_requests_ended_total", "route", "ended", m_endings);
    out.family("breakwater_upstream_calls_total", "counter",
               "Calls made to an upstream, by the HTTP status the client got.");
    counterPairs("breakwater_upstream_calls_total", "upstream", "status", m_upstreamCalls);
    out.family("breakwater_upstream_errors_total", "counter",
               "Upstream calls that failed, by kind (timeout, unreachable, stream_cut, ...).");
    counterPairs("breakwater_upstream_errors_total", "upstream", "kind", m_upstreamErrors);
    out.family("breakwater_fallbacks_total", "counter",
               "Requests sent to an upstream's fallback (its breaker was open, or it refused the call before a byte), by upstream and fallback.");
    counterPairs("breakwater_fallbacks_total", "from", "to", m_fallbacks);
    out.family("breakwater_breaker_transitions_total", "counter", "Circuit breaker state changes, by new state.");
    counterPairs("breakwater_breaker_transitions_total", "upstream", "to", m_transitions);
    out.family("breakwater_faults_injected_total", "counter",
               "Upstream calls answered by an injected fault instead of the provider, by kind.");
    counterPairs("breakwater_faults_injected_total", "upstream", "kind", gauges.faultsInjected);

    if (!m_memberRequests.isEmpty()) {   // a team's Breakwater (--access-tokens)
        out.family("breakwater_member_requests_total", "counter", "Client requests by team member and outcome.");
        counterPairs("breakwater_member_requests_total", "member", "outcome", m_memberRequests);
        out.family("breakwater_member_cost_usd_total", "counter", "What each team member's upstream calls cost, where known.");
        for (auto it = m_memberCostUsd.cbegin(); it != m_memberCostUsd.cend(); ++it)
            out.sample("breakwater_member_cost_usd_total", {{"member", it.key()}}, number(it.value()));
    }

    out.family("breakwater_inflight_calls", "gauge", "Upstream calls in progress.");
    for (const UpstreamSnapshot &u : gauges.upstreams)
        out.sample("breakwater_inflight_calls", {{"upstream", u.name}}, QByteArray::number(u.running));
    out.family("breakwater_queued_calls", "gauge", "Calls waiting for a free upstream slot.");
    for (const UpstreamSnapshot &u : gauges.upstreams)
        out.sample("breakwater_queued_calls", {{"upstream", u.name}}, QByteArray::number(u.queued));
    out.family("breakwater_breaker_state", "gauge", "Circuit breaker state: 1 for the current state.");
    for (const UpstreamSnapshot &u : gauges.upstreams) {
        for (const BreakerState state : kBreakerStates)
            out.sample("breakwater_breaker_state", {{"upstream", u.name}, {"state", breakerStateName(state)}},
                       u.breakerState == state ? "1" : "0");
    }
    out.family("breakwater_flights_in_progress", "gauge", "Distinct requests being answered upstream right now.");
    out.sample("breakwater_flights_in_progress", {}, QByteArray::number(gauges.flightsInProgress));
    out.family("breakwater_answer_cache_entries", "gauge", "Answers held for reuse.");
    out.sample("breakwater_answer_cache_entries", {}, QByteArray::number(gauges.cacheEntries));
    out.family("breakwater_answer_cache_bytes", "gauge", "Bytes held by the answer cache.");
    out.sample("breakwater_answer_cache_bytes", {}, QByteArray::number(gauges.cacheBytes));

    histogram("breakwater_queue_wait_seconds", "Time upstream calls waited for a free slot.", m_queueWait);
    histogram("breakwater_first_byte_seconds", "Time from a request's arrival to its first response byte.", m_firstByte);
    histogram("breakwater_request_duration_seconds", "Time from a request's arrival to its last response byte.", m_duration);

    out.family("breakwater_tokens_total", "counter", "Tokens billed by upstreams, by direction (cached is part of input).");
    out.sample("breakwater_tokens_total", {{"direction", "input"}}, QByteArray::number(m_inputTokens));
    out.sample("breakwater_tokens_total", {{"direction", "output"}}, QByteArray::number(m_outputTokens));
    out.sample("breakwater_tokens_total", {{"direction", "cached"}}, QByteArray::number(m_cachedTokens));
    out.family("breakwater_cost_usd_total", "counter", "What upstream calls cost, where the price is known.");
    out.sample("breakwater_cost_usd_total", {}, number(m_costUsd));
    out.family("breakwater_unknown_cost_calls_total", "counter", "Upstream calls whose cost is unknown (no price or no usage).");
    out.sample("breakwater_unknown_cost_calls_total", {}, QByteArray::number(m_unknownCostCalls));
    out.family("breakwater_cost_saved_usd_total", "counter", "What joined and cached answers would have cost.");
    out.sample("breakwater_cost_saved_usd_total", {}, number(m_costSavedUsd));
    out.family("breakwater_spend_today_usd", "gauge", "Spend on the current local calendar day.");
    out.sample("breakwater_spend_today_usd", {}, number(gauges.spentTodayUsd));
    if (!gauges.sharedState.isEmpty()) {
        out.family("breakwater_shared_state_degraded", "gauge",
                   "1 while the fleet's Redis (--shared-state) is not usable and this instance runs on local state.");
        out.sample("breakwater_shared_state_degraded", {}, gauges.sharedState == "degraded" ? "1" : "0");
        out.family("breakwater_shared_state_degradations_total", "counter", "Times the shared state went degraded.");
        out.sample("breakwater_shared_state_degradations_total", {}, QByteArray::number(gauges.sharedStateDegradations));
        // Sums over the live instances: one leaving takes its share with it, so these are gauges.
        const FleetView::Totals fleet = gauges.fleet.totals();
        out.family("breakwater_fleet_instances", "gauge", "Live instances of the fleet this one sees (itself included; only itself while degraded).");
        out.sample("breakwater_fleet_instances", {}, QByteArray::number(fleet.instances));
        out.family("breakwater_fleet_upstream_calls", "gauge", "Upstream calls made by the fleet's live instances together.");
        out.sample("breakwater_fleet_upstream_calls", {}, QByteArray::number(fleet.calls));
        out.family("breakwater_fleet_requests", "gauge", "Client requests answered by the fleet's live instances together, by outcome.");
        out.sample("breakwater_fleet_requests", {{"outcome", "miss"}}, QByteArray::number(fleet.misses));
        out.sample("breakwater_fleet_requests", {{"outcome", "joined"}}, QByteArray::number(fleet.joined));
        out.sample("breakwater_fleet_requests", {{"outcome", "hit"}}, QByteArray::number(fleet.hits));
    }
    out.family("breakwater_spend_reserved_usd", "gauge", "Spend reserved by calls in progress.");
    out.sample("breakwater_spend_reserved_usd", {}, number(gauges.reservedUsd));
    out.family("breakwater_spend_cap_usd", "gauge", "The daily spend cap (0 = none).");
    out.sample("breakwater_spend_cap_usd", {}, number(gauges.spendCapUsd));
    return out.text();
}

QJsonObject Metrics::histogramJson(const Histogram &histogram)
{
    QJsonArray buckets;
    quint64 cumulative = 0;
    for (size_t i = 0; i < kBuckets.size(); ++i) {
        cumulative += histogram.counts[i];
        buckets.append(QJsonObject{{u"le"_s, kBuckets[i]}, {u"count"_s, qint64(cumulative)}});
    }
    buckets.append(QJsonObject{{u"le"_s, u"+Inf"_s}, {u"count"_s, qint64(histogram.count)}});
    return {{u"count"_s, qint64(histogram.count)}, {u"sum"_s, histogram.sum}, {u"buckets"_s, buckets}};
}

qint64 Metrics::requestsWithOutcome(const QByteArray &outcome) const
{
    qint64 requests = 0;
    for (auto it = m_requests.cbegin(); it != m_requests.cend(); ++it) {
        if (outcome.isEmpty() || it.key().second == outcome)
            requests += qint64(it.value());
    }
    return requests;
}

QJsonObject Metrics::statsJson(const ProxySnapshot &gauges) const
{
    QJsonArray upstreams;
    for (const UpstreamSnapshot &u : gauges.upstreams) {
        QJsonObject upstream{{u"name"_s, QString::fromUtf8(u.name)}, {u"inflight"_s, u.running},
                             {u"queued"_s, u.queued},
                             {u"protocol"_s, QString::fromLatin1(u.protocol)},
                             {u"breaker"_s, QString::fromLatin1(breakerStateName(u.breakerState))},
                             // The breaker's health, as the dashboard shows it (also for --attach).
                             {u"concurrency"_s, u.concurrency},
                             {u"consecutiveFailures"_s, u.consecutiveFailures},
                             {u"failureThreshold"_s, u.failureThreshold},
                             {u"cooldownLeftMs"_s, u.cooldownLeftMs},
                             {u"lastFailureAtMs"_s, u.lastFailureAtMs},
                             {u"lastProbeAtMs"_s, u.lastProbeAtMs},
                             {u"lastProbeResult"_s, u.lastProbeResult},
                             {u"lastProbeAlive"_s, u.lastProbeAlive},
                             {u"url"_s, u.url}};
        insertMessage(upstream, u"lastFailure"_s, u.lastFailure);
        upstreams.append(upstream);
    }
    const qint64 requests = requestsWithOutcome();
    QJsonArray faults;   // the armed fault rules
    for (const FaultRule &rule : gauges.faults)
        faults.append(rule.toJson(gauges.steadyMs));
    QJsonObject stats{
        {u"requestsTotal"_s, requests},
        {u"requests"_s, nested(m_requests)},
        {u"ended"_s, nested(m_endings)},
        {u"upstreamCalls"_s, nested(m_upstreamCalls)},
        {u"upstreamErrors"_s, nested(m_upstreamErrors)},
        {u"breakerTransitions"_s, nested(m_transitions)},
        {u"upstreams"_s, upstreams},
        {u"flightsInProgress"_s, gauges.flightsInProgress},
        {u"cache"_s, QJsonObject{{u"entries"_s, gauges.cacheEntries}, {u"bytes"_s, gauges.cacheBytes}}},
        {u"latencySeconds"_s, QJsonObject{{u"queueWait"_s, histogramJson(m_queueWait)},
                                          {u"firstByte"_s, histogramJson(m_firstByte)},
                                          {u"total"_s, histogramJson(m_duration)}}},
        {u"tokens"_s, QJsonObject{{u"input"_s, m_inputTokens}, {u"output"_s, m_outputTokens},
                                  {u"cached"_s, m_cachedTokens}}},
        {u"costUsd"_s, m_costUsd},
        {u"costSavedUsd"_s, m_costSavedUsd},
        {u"unknownCostCalls"_s, qint64(m_unknownCostCalls)},
        {u"spend"_s, QJsonObject{{u"todayUsd"_s, gauges.spentTodayUsd}, {u"reservedUsd"_s, gauges.reservedUsd},
                                 {u"capUsd"_s, gauges.spendCapUsd}}},
        {u"settings"_s, gauges.settings.toJson()},
        {u"admissionPaused"_s, gauges.admissionPaused},
        {u"faults"_s, faults},
        {u"faultsInjected"_s, nested(gauges.faultsInjected)},
        {u"flights"_s, InFlight::toJson(gauges.flights)},
        {u"flightsOmitted"_s, gauges.flightsOmitted},
        {u"atMs"_s, gauges.atMs},
        {u"steadyMs"_s, gauges.steadyMs},
        {u"sharedState"_s, QString::fromLatin1(gauges.sharedState)},
        {u"sharedStateDegradations"_s, gauges.sharedStateDegradations},
    };
    if (gauges.fleet.enabled)
        stats.insert(u"fleet"_s, gauges.fleet.toJson());
    return stats;
}
