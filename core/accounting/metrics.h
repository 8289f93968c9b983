#pragma once

#include <array>

#include <QByteArray>
#include <QJsonObject>
#include <QList>
#include <QMap>
#include <QPair>

struct BreakerTransition;
struct CallRecord;
struct ProxySnapshot;

// The figures behind GET /metrics (Prometheus text format, checked by `promtool check metrics`) and
// GET /breakwater/stats (the same as JSON). Counters and latency histograms accumulate from the
// CallRecords the proxy publishes and from breaker transitions; gauges (calls in flight and queued,
// breaker states, cache, spend) are read from the live objects when a page is rendered and passed
// in as the proxy's ProxySnapshot (the one the dashboard gets), so nothing here can drift from them.
// Touched only on the proxy thread.
class Metrics final
{
public:
    // Once per client request, when its response is over, and once per refused attempt of a
    // fallback (Outcome::FellBack), which counts as an upstream call only.
    void record(const CallRecord &record);
    void recordTransition(const BreakerTransition &transition);

    QByteArray prometheusText(const ProxySnapshot &gauges) const;
    QJsonObject statsJson(const ProxySnapshot &gauges) const;

    // This instance's own figures, which the fleet view (--shared-state) publishes for the others:
    // the calls that reached a provider (the dashboard's "upstream calls": not those a fault rule
    // answered instead), and client requests in all or with one outcome ("miss", "joined", "hit").
    qint64 upstreamCallsMade() const { return m_providerCalls; }
    qint64 requestsWithOutcome(const QByteArray &outcome = {}) const;

    // Upper bounds of the latency histograms, in seconds (+Inf is implied).
    static constexpr std::array<double, 13> kBuckets{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5,
                                                     1, 2.5, 5, 10, 30, 60};

private:
    struct Histogram
    {
        std::array<quint64, kBuckets.size() + 1> counts{};   // not cumulative; last is +Inf
        double sum = 0;
        quint64 count = 0;
        void observe(double seconds);
    };
    using LabelPair = QPair<QByteArray, QByteArray>;
    void recordUpstreamCall(const CallRecord &record);   // calls, errors, queue wait, tokens, cost

    QMap<LabelPair, quint64> m_requests;        // route, outcome
    QMap<LabelPair, quint64> m_endings;         // route, ending (accounting/callending.h)
    QMap<LabelPair, quint64> m_upstreamCalls;   // upstream, status
    QMap<LabelPair, quint64> m_upstreamErrors;  // upstream, error kind
    QMap<LabelPair, quint64> m_fallbacks;       // from, to
    QMap<LabelPair, quint64> m_transitions;     // upstream, to
    QMap<LabelPair, quint64> m_memberRequests;  // member, outcome (--access-tokens only)
    QMap<QByteArray, double> m_memberCostUsd;   // member
    Histogram m_queueWait;
    Histogram m_firstByte;
    Histogram m_duration;
    qint64 m_inputTokens = 0;
    qint64 m_outputTokens = 0;
    qint64 m_cachedTokens = 0;
    double m_costUsd = 0;
    double m_costSavedUsd = 0;
    quint64 m_unknownCostCalls = 0;
    qint64 m_providerCalls = 0;

    static QJsonObject histogramJson(const Histogram &histogram);
};
