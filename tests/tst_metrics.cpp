#include <QJsonArray>
#include <QProcess>
#include <QStandardPaths>
#include <QTest>

#include "accounting/callrecord.h"
#include "accounting/metrics.h"
#include "proxysnapshot.h"
#include "upstream/circuitbreaker.h"

using namespace Qt::StringLiterals;

namespace {

// The value of one exact series ("name{labels}") in the text, or "absent".
QByteArray sample(const QByteArray &text, const QByteArray &series)
{
    for (const QByteArray &line : text.split('\n')) {
        if (line.startsWith(QByteArray(series + ' ')))
            return line.mid(series.size() + 1);
    }
    return "absent";
}

CallRecord record(Outcome outcome, qint64 totalMs, const QByteArray &upstream = "openai")
{
    CallRecord r;
    r.route = "/v1/chat/completions";
    r.upstream = upstream;
    r.outcome = outcome;
    r.status = 200;
    r.receivedAtMs = 1'000'000;
    r.endAtMs = r.receivedAtMs + totalMs;
    return r;
}

ProxySnapshot gauges()
{
    ProxySnapshot g;
    g.upstreams = {{"openai", BreakerState::Open, 3, 7, 64}, {"anthropic", BreakerState::Closed, 0, 0, 64}};
    g.flightsInProgress = 3;
    g.cacheEntries = 12;
    g.cacheBytes = 4096;
    g.spentTodayUsd = 1.5;
    g.spendCapUsd = 10;
    return g;
}

} // namespace

// /metrics and /breakwater/stats: the figures, their shape, and promtool's verdict.
class TestMetrics : public QObject
{
    Q_OBJECT

private slots:
    void sharedAnswers_countRequestsButNotUpstreamCalls();
    void histograms_areCumulativeWithSumAndCount();
    void gauges_showCurrentBreakerStateAndQueues();
    void transitions_areCountedByNewState();
    void labelValues_areEscaped();
    void text_passesPromtool();
    void statsJson_carriesTheSameFigures();
};

void TestMetrics::sharedAnswers_countRequestsButNotUpstreamCalls()
{
    Metrics metrics;
    CallRecord miss = record(Outcome::Miss, 800);
    miss.upstreamStartAtMs = miss.receivedAtMs + 2;
    miss.inputTokens = 100;
    miss.outputTokens = 20;
    miss.cachedTokens = 64;
    miss.costUsd = 0.5;
    metrics.record(miss);
    for (int i = 0; i < 3; ++i) {
        CallRecord joined = record(Outcome::Joined, 790);
        joined.upstreamStartAtMs = miss.upstreamStartAtMs;   // shares the call's times
        joined.inputTokens = 100;
        joined.costUsd = 0.5;
        joined.costSavedUsd = 0.5;
        metrics.record(joined);
    }
    CallRecord hit = record(Outcome::Hit, 1);
    hit.costSavedUsd = 0.5;
    metrics.record(hit);
    CallRecord unpriced = record(Outcome::Bypass, 100, "anthropic");
    unpriced.upstreamStartAtMs = unpriced.receivedAtMs;
    unpriced.status = 502;
    unpriced.errorKind = "stream_cut";
    metrics.record(unpriced);
    metrics.record(record(Outcome::BreakerRefused, 0));

    const QByteArray text = metrics.prometheusText({});
    QCOMPARE(sample(text, R"(breakwater_requests_total{route="/v1/chat/completions",outcome="miss"})"), "1"_ba);
    QCOMPARE(sample(text, R"(breakwater_requests_total{route="/v1/chat/completions",outcome="joined"})"), "3"_ba);
    QCOMPARE(sample(text, R"(breakwater_requests_total{route="/v1/chat/completions",outcome="hit"})"), "1"_ba);
    QCOMPARE(sample(text, R"(breakwater_requests_total{route="/v1/chat/completions",outcome="breaker_refused"})"), "1"_ba);
    QCOMPARE(sample(text, R"(breakwater_upstream_calls_total{upstream="openai",status="200"})"), "1"_ba);
    QCOMPARE(sample(text, R"(breakwater_upstream_calls_total{upstream="anthropic",status="502"})"), "1"_ba);
    QCOMPARE(sample(text, R"(breakwater_upstream_errors_total{upstream="anthropic",kind="stream_cut"})"), "1"_ba);
    QCOMPARE(sample(text, R"(breakwater_tokens_total{direction="input"})"), "100"_ba);
    QCOMPARE(sample(text, R"(breakwater_tokens_total{direction="output"})"), "20"_ba);
    QCOMPARE(sample(text, R"(breakwater_tokens_total{direction="cached"})"), "64"_ba);
    QCOMPARE(sample(text, "breakwater_cost_usd_total"), "0.5"_ba);
    QCOMPARE(sample(text, "breakwater_cost_saved_usd_total"), "2"_ba);
    QCOMPARE(sample(text, "breakwater_unknown_cost_calls_total"), "1"_ba);
    QCOMPARE(sample(text, "breakwater_queue_wait_seconds_count"), "2"_ba);
}

void TestMetrics::histograms_areCumulativeWithSumAndCount()
{
    Metrics metrics;
    for (qint64 ms : {3, 5, 40, 700, 700, 45'000, 120'000})
        metrics.record(record(Outcome::Hit, ms));
    const QByteArray text = metrics.prometheusText({});
    const auto bucket = [&](const char *le) {
        return sample(text, "breakwater_request_duration_seconds_bucket{le=\""_ba + le + "\"}");
    };
    QCOMPARE(bucket("0.005"), "2"_ba);   // 5 ms sits on the bound: le means <=
    QCOMPARE(bucket("0.01"), "2"_ba);
    QCOMPARE(bucket("0.05"), "3"_ba);
    QCOMPARE(bucket("1"), "5"_ba);
    QCOMPARE(bucket("30"), "5"_ba);
    QCOMPARE(bucket("60"), "6"_ba);
    QCOMPARE(bucket("+Inf"), "7"_ba);
    QCOMPARE(sample(text, "breakwater_request_duration_seconds_count"), "7"_ba);
    QCOMPARE(sample(text, "breakwater_request_duration_seconds_sum").toDouble(), 166.448);
    QCOMPARE(sample(text, "breakwater_first_byte_seconds_count"), "0"_ba);   // no first byte recorded
}

void TestMetrics::gauges_showCurrentBreakerStateAndQueues()
{
    const QByteArray text = Metrics().prometheusText(gauges());
    QCOMPARE(sample(text, R"(breakwater_breaker_state{upstream="openai",state="open"})"), "1"_ba);
    QCOMPARE(sample(text, R"(breakwater_breaker_state{upstream="openai",state="closed"})"), "0"_ba);
    QCOMPARE(sample(text, R"(breakwater_breaker_state{upstream="openai",state="half-open"})"), "0"_ba);
    QCOMPARE(sample(text, R"(breakwater_breaker_state{upstream="anthropic",state="closed"})"), "1"_ba);
    QCOMPARE(sample(text, R"(breakwater_inflight_calls{upstream="openai"})"), "3"_ba);
    QCOMPARE(sample(text, R"(breakwater_queued_calls{upstream="openai"})"), "7"_ba);
    QCOMPARE(sample(text, "breakwater_answer_cache_bytes"), "4096"_ba);
    QCOMPARE(sample(text, "breakwater_spend_today_usd"), "1.5"_ba);
}

void TestMetrics::transitions_areCountedByNewState()
{
    Metrics metrics;
    metrics.recordTransition({u"openai"_s, 1, BreakerState::Closed, BreakerState::Open, {}});
    metrics.recordTransition({u"openai"_s, 2, BreakerState::Open, BreakerState::HalfOpen, {}});
    metrics.recordTransition({u"openai"_s, 3, BreakerState::HalfOpen, BreakerState::Open, {}});
    const QByteArray text = metrics.prometheusText({});
    QCOMPARE(sample(text, R"(breakwater_breaker_transitions_total{upstream="openai",to="open"})"), "2"_ba);
    QCOMPARE(sample(text, R"(breakwater_breaker_transitions_total{upstream="openai",to="half-open"})"), "1"_ba);
    QCOMPARE(sample(text, R"(breakwater_breaker_transitions_total{upstream="openai",to="closed"})"), "absent"_ba);
}

void TestMetrics::labelValues_areEscaped()
{
    Metrics metrics;
    CallRecord odd = record(Outcome::Error, 1);
    odd.route = "/v1/\"odd\"\\\nroute";
    metrics.record(odd);
    const QByteArray text = metrics.prometheusText({});
    // The exposition form of /v1/"odd"\<newline>route: /v1/\"odd\"\\\nroute
    const QByteArray series = "breakwater_requests_total{route=\"/v1/\\\"odd\\\"\\\\\\nroute\",outcome=\"error\"}";
    QCOMPARE(sample(text, series), "1"_ba);
}

void TestMetrics::text_passesPromtool()
{
    const QString promtool = QStandardPaths::findExecutable(u"promtool"_s);
    if (promtool.isEmpty())
        QSKIP("promtool is not installed (Debian package: prometheus)");
    Metrics metrics;
    CallRecord miss = record(Outcome::Miss, 1200);
    miss.upstreamStartAtMs = miss.receivedAtMs + 15;
    miss.firstByteAtMs = miss.receivedAtMs + 300;
    miss.queueWaitMs = 15;
    miss.costUsd = 0.001;
    metrics.record(miss);
    metrics.record(record(Outcome::Hit, 2));
    CallRecord odd = record(Outcome::Error, 1);
    odd.route = "/v1/\"odd\"\\\nroute";
    metrics.record(odd);
    metrics.recordTransition({u"openai"_s, 1, BreakerState::Closed, BreakerState::Open, {}});

    for (const QByteArray &text : {metrics.prometheusText(gauges()), Metrics().prometheusText({})}) {
        QProcess check;
        check.start(promtool, {u"check"_s, u"metrics"_s});
        QVERIFY(check.waitForStarted());
        check.write(text);
        check.closeWriteChannel();
        QVERIFY(check.waitForFinished());
        const QByteArray said = check.readAllStandardOutput() + check.readAllStandardError();
        QVERIFY2(check.exitCode() == 0 && said.trimmed().isEmpty(), said.constData());
    }
}

void TestMetrics::statsJson_carriesTheSameFigures()
{
    Metrics metrics;
    CallRecord miss = record(Outcome::Miss, 250);
    miss.upstreamStartAtMs = miss.receivedAtMs;
    miss.inputTokens = 10;
    miss.outputTokens = 5;
    miss.costUsd = 0.25;
    metrics.record(miss);
    CallRecord joined = record(Outcome::Joined, 240);
    joined.costSavedUsd = 0.25;
    metrics.record(joined);
    metrics.recordTransition({u"openai"_s, 1, BreakerState::Closed, BreakerState::Open, {}});

    const QJsonObject stats = metrics.statsJson(gauges());
    QCOMPARE(stats[u"requestsTotal"_s].toInteger(), 2);
    QCOMPARE(stats[u"requests"_s][u"/v1/chat/completions"_s][u"joined"_s].toInteger(), 1);
    QCOMPARE(stats[u"upstreamCalls"_s][u"openai"_s][u"200"_s].toInteger(), 1);
    QCOMPARE(stats[u"breakerTransitions"_s][u"openai"_s][u"open"_s].toInteger(), 1);
    QCOMPARE(stats[u"upstreams"_s][0][u"queued"_s].toInt(), 7);
    QCOMPARE(stats[u"upstreams"_s][0][u"breaker"_s].toString(), u"open"_s);
    QCOMPARE(stats[u"tokens"_s][u"input"_s].toInteger(), 10);
    QCOMPARE(stats[u"costUsd"_s].toDouble(), 0.25);
    QCOMPARE(stats[u"costSavedUsd"_s].toDouble(), 0.25);
    QCOMPARE(stats[u"cache"_s][u"entries"_s].toInt(), 12);
    QCOMPARE(stats[u"spend"_s][u"capUsd"_s].toDouble(), 10.0);
    const QJsonObject total = stats[u"latencySeconds"_s][u"total"_s].toObject();
    QCOMPARE(total[u"count"_s].toInteger(), 2);
    QCOMPARE(total[u"sum"_s].toDouble(), 0.49);
    const QJsonArray buckets = total[u"buckets"_s].toArray();
    QCOMPARE(buckets.size(), qsizetype(Metrics::kBuckets.size() + 1));
    QCOMPARE(buckets[5][u"le"_s].toDouble(), 0.25);
    QCOMPARE(buckets[5][u"count"_s].toInteger(), 2);
    QCOMPARE(buckets[4][u"count"_s].toInteger(), 0);
}

QTEST_GUILESS_MAIN(TestMetrics)
#include "tst_metrics.moc"
