// The dashboard tells the truth about failures, calls in flight and history: failures counted by
// kind and drawn in their own colours, calls in flight drawn while they last and placed (like every
// call) by their arrival, the call log's rows loaded into every view after a restart, and the
// demo's second proxy's calls in that log.

#include "accounting/calllog.h"
#include "breakertimeline.h"
#include "dashboardmodel.h"
#include "dashboardwindow.h"
#include "democontroller.h"
#include "figurespanel.h"
#include "latencyscatter.h"
#include "latencystaircase.h"
#include "outcomechart.h"
#include "proxyharness.h"
#include "requestpanel.h"

#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace std::chrono_literals;

Q_DECLARE_METATYPE(DemoScenarios::Result)

namespace {

CallRecord call(const QByteArray &id, Outcome outcome, qint64 receivedAt, qint64 endAt, int status = 200,
                const QByteArray &kind = {}, const QByteArray &breaker = "closed")
{
    CallRecord r;
    r.requestId = id;
    r.route = "/v1/chat/completions";
    r.upstream = "openai";
    r.model = u"gpt-4o-mini"_s;
    r.outcome = outcome;
    r.status = status;
    r.errorKind = kind;
    r.breakerState = breaker;
    r.receivedAtMs = receivedAt;
    r.endAtMs = endAt;
    if (outcome == Outcome::Miss)
        r.upstreamStartAtMs = receivedAt + 1;
    return r;
}

// Two fine calls, two upstream 503s, a timeout, an unreachable upstream and a breaker refusal.
QList<CallRecord> outage(qint64 t)
{
    return {call("ok-0", Outcome::Miss, t, t + 400),
            call("503-0", Outcome::Miss, t + 1000, t + 1100, 503),
            call("503-1", Outcome::Miss, t + 2000, t + 2100, 503),
            call("slow", Outcome::Miss, t + 3000, t + 8000, 504, "upstream_timeout"),
            call("gone", Outcome::Miss, t + 4000, t + 4010, 502, "upstream_unreachable"),
            call("refused", Outcome::BreakerRefused, t + 9000, t + 9001, 503, "breaker_open", "open"),
            call("ok-1", Outcome::Hit, t + 10000, t + 10001)};
}

} // namespace

class TestDashboardHistory final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { qRegisterMetaType<DemoScenarios::Result>(); }
    void failures_countedByKindAndFiltered();
    void inFlight_drawnWhileInFlightAndPlacedByArrival();
    void history_loadsIntoEveryViewAfterRestart();
    void demo_secondProxyCallsAreLogged();
};

void TestDashboardHistory::failures_countedByKindAndFiltered()
{
    constexpr qint64 T = 1'800'000'000'000;
    DashboardModel model;
    for (const CallRecord &r : outage(T))
        model.addRecord(r);
    using C = DashboardModel::Category;
    const DashboardModel::Totals &totals = model.totals();
    QCOMPARE(totals.requests, 7);
    QCOMPARE(totals.count(C::Miss), 5);      // served: the failed calls were made
    QCOMPARE(totals.failures(), 4);          // ended: 2 x 503, a timeout, unreachable
    QCOMPARE(totals.count(C::Refused), 1);   // a refusal is not a failure of the upstream
    QCOMPARE(totals.count(Ending::UpstreamError), 2);
    QCOMPARE(totals.upstreamErrorStatuses.value(503), 2);
    QCOMPARE(totals.count(Ending::Timeout), 1);
    QCOMPARE(totals.count(Ending::Unreachable), 1);
    // The outcome chart draws them as failed, where they arrived.
    const QList<DashboardModel::Counts> buckets = model.outcomeBuckets(T, T + 11000, 1000);
    QCOMPARE(buckets[3][size_t(C::Failed)], 1);   // the timeout arrived at +3 s, ended at +8 s
    QCOMPARE(buckets[8][size_t(C::Failed)], 0);

    DashboardWindow window(&model);
    window.setClock([] { return T + 11000; });
    window.redraw();
    QCOMPARE(window.figures()->figure(u"failed"_s), u"4"_s);
    // The caption names the most frequent kind and how many other failures (it must fit a laptop's width);
    // the tooltip has every kind.
    QCOMPARE(window.figures()->caption(u"failed"_s), u"failed: 503 ×2 +2 other"_s);
    const QString kinds = window.figures()->toolTip(u"failed"_s);
    QVERIFY2(kinds.contains(u"503 ×2"_s) && kinds.contains(u"timeout ×1"_s) && kinds.contains(u"unreachable ×1"_s),
             qPrintable(kinds));
    QCOMPARE(window.figures()->figure(u"refused"_s), u"1"_s);

    RequestPanel *table = window.requests();
    QCOMPARE(table->rowCount(), 7);
    table->setFailedOnly(true);
    QCOMPARE(table->rowCount(), 4);
    table->setFailedOnly(false);
    QCOMPARE(table->rowCount(), 7);
}

void TestDashboardHistory::inFlight_drawnWhileInFlightAndPlacedByArrival()
{
    constexpr qint64 T = 1'800'000'000'000;
    DashboardModel model;
    DashboardWindow window(&model);
    qint64 now = T + 5000;
    window.setClock([&now] { return now; });
    window.setWindowMs(60'000);
    model.addRecord(call("done", Outcome::Miss, T - 1000, T - 500));
    for (int i = 0; i < 3; ++i) {
        CallRecord started = call("stuck-" + QByteArray::number(i), Outcome::Miss, T + i * 100, 0);
        started.upstreamStartAtMs = 0;
        model.addStarted(started);
    }
    window.redraw();
    QCOMPARE(window.staircase()->barCount(), 4);
    QCOMPARE(window.staircase()->inFlightBarCount(), 3);
    QCOMPARE(window.figures()->figure(u"oldest"_s), u"5.00 s"_s);
    QVERIFY(window.outcomeChart()->peakRate() >= 3);   // three calls in flight in one second
    now = T + 7000;
    window.redraw();
    QCOMPARE(window.figures()->figure(u"oldest"_s), u"7.00 s"_s);

    // The first ends after 60 s: it is counted where it arrived, and no longer in flight.
    model.addRecord(call("stuck-0", Outcome::Miss, T, T + 60'000, 504, "upstream_timeout"));
    now = T + 60'500;
    window.redraw();
    QCOMPARE(window.staircase()->inFlightBarCount(), 2);
    QCOMPARE(model.outcomeBuckets(T, T + 1000, 1000)[0][size_t(DashboardModel::Category::Failed)], 1);
    QCOMPARE(window.figures()->figure(u"oldest"_s), u"1 min 0 s"_s);
}

// A log with N calls written by one run; a new model and window (the next start) load it.
void TestDashboardHistory::history_loadsIntoEveryViewAfterRestart()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(u"calls.sqlite"_s);
    const qint64 t = QDateTime::currentMSecsSinceEpoch() - 120'000;   // two minutes ago
    const QList<CallRecord> logged = outage(t);
    {
        CallLog log;
        QVERIFY(log.open(path).ok());
        for (const CallRecord &r : logged)
            log.append(r);
    }   // written on close

    CallLog log;
    QVERIFY(log.open(path).ok());
    DashboardModel model;
    model.addHistory(log.recent(DashboardModel::kMaxRecords));
    DashboardWindow window(&model);
    window.setWindowMs(5 * 60'000);
    window.redraw();

    const int n = int(logged.size());
    QCOMPARE(window.figures()->figure(u"requests"_s), QString::number(n));
    QCOMPARE(window.figures()->figure(u"failed"_s), u"4"_s);
    QCOMPARE(window.figures()->figure(u"refused"_s), u"1"_s);
    QVERIFY2(window.figures()->historyText().startsWith(u"history from "_s), qPrintable(window.figures()->historyText()));
    QCOMPARE(window.staircase()->barCount(), n);
    QCOMPARE(window.latencyScatter()->pointCount(), n);
    QCOMPARE(window.requests()->totalRowCount(), n);
    qint64 bucketed = 0;
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    for (const DashboardModel::Counts &bucket : model.outcomeBuckets(now - 5 * 60'000, now, 2000)) {
        for (const qint64 count : bucket)
            bucketed += count;
    }
    QCOMPARE(bucketed, qint64(n));   // every call once, each where it arrived
    QVERIFY(window.outcomeChart()->peakRate() > 0);
    // The breaker was open for the refusal and closed for the hit after it, as logged.
    QCOMPARE(model.transitions(u"openai"_s, now - 5 * 60'000, now).size(), 2);
    QVERIFY(window.breakerTimeline()->bandCount() >= 3);
    QCOMPARE(model.breakerState(u"openai"_s), BreakerState::Closed);
}

void TestDashboardHistory::demo_secondProxyCallsAreLogged()
{
    ProxyHarness harness;
    QTemporaryDir dir;
    CallLog log;
    QVERIFY(log.open(dir.filePath(u"calls.sqlite"_s)).ok());
    DashboardModel model;
    DemoController demo(&model, harness.port(), harness.mock(), harness.config());
    demo.setCallLog(&log);
    DemoScenarios::Options options = demo.scenarios()->options();
    options.burstSize = 6;
    options.slowLatency = 20ms;
    options.restoreLatency = 0ms;
    demo.scenarios()->setOptions(options);
    QSignalSpy finished(demo.scenarios(), &DemoScenarios::finished);
    QVERIFY(harness.config().concurrency != 1);
    QVERIFY(demo.startBurst(1));   // through a second proxy with concurrency 1
    QVERIFY(finished.wait(20000));
    QTRY_COMPARE(model.totals().requests, 6);
    log.flush();
    QCOMPARE(log.recent(100).size(), 6);
    QVERIFY(model.inFlightCalls().isEmpty());   // each start was ended by its record
}

QTEST_MAIN(TestDashboardHistory)
#include "tst_dashboardhistory.moc"
