// The dashboard's model and the window's live behaviour: a recorded sequence of records, breaker
// transitions and snapshots is fed into the model and the window, and the figures, bands,
// transitions and bars are checked. Also the redraw throttle, the live wiring (the demo's second
// proxy's pools included), the tray's gating, Clear, Quit, and an idle window repainting nothing.
// The charts' pixels and formats are in tst_dashboardcharts, the panels, table and the window's
// size in tst_dashboardpanels; the offscreen screen is 1366x768 (dashboardfixture.h).

#include "breakertimeline.h"
#include "dashboardfixture.h"
#include "dashboardmodel.h"
#include "dashboardstyle.h"
#include "dashboardwindow.h"
#include "democontroller.h"
#include "desktopapp.h"
#include "figurespanel.h"
#include "latencyscatter.h"
#include "latencystaircase.h"
#include "mockprovider.h"
#include "outcomechart.h"
#include "proxyharness.h"
#include "requestpanel.h"
#include "traycontroller.h"

#include <QApplication>
#include <QMenu>
#include <QSignalSpy>
#include <QStatusBar>
#include <QSystemTrayIcon>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace std::chrono_literals;
using namespace dashboardtest;

class TestDashboard final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void model_countsFiguresFromRecords();
    void model_injectedAnswerWithoutACall_isNoUpstreamCall();
    void model_bandsAndTransitionsFollowTheBreaker();
    void model_boundsRecordsAndBuckets();
    void window_showsTheRecordedSequence();
    void window_clearStartsAfresh();
    void window_redrawsAtMostTenTimesASecond();
    void window_followsALiveProxyQueued();
    void model_countsTheSideProxysPools();
    void demo_burstOneAtATime_queuedCountsTheSideProxy();
    void demo_fallbackIsInTheMenu_andTheStandInAnswersWhileThePrimaryIsOverloaded();
    void tray_gatedOnAvailability();
    void clear_resetsTheBreakerTimelineAndStatusBar();
    void quit_ctrlQInWindowAndTray();
    void close_withoutTray_asksFirst();
    void window_idleRepaintsNothing();
};

void TestDashboard::model_injectedAnswerWithoutACall_isNoUpstreamCall()
{
    // The "upstream calls" tile says what the provider bills: an injected 503 never reached it, an
    // injected delay did (the rule only held the real call back), as a drill's report counts them.
    DashboardModel model;
    CallRecord real = record("real", Outcome::Miss, 1000, 1200);
    CallRecord status = record("status", Outcome::Miss, 1100, 1101, 503);
    status.injected = u"#1 503:count=1"_s;
    CallRecord delayed = record("delayed", Outcome::Miss, 1200, 3200);
    delayed.injected = u"#2 delay=2s:count=1"_s;
    for (const CallRecord &r : {real, status, delayed})
        model.addRecord(r);
    QCOMPARE(model.totals().count(DashboardModel::Category::Miss), 3);
    QCOMPARE(model.totals().upstreamCalls(), 2);
}

void TestDashboard::model_countsFiguresFromRecords()
{
    DashboardModel model;
    feed(model, recording());
    const DashboardModel::Totals &totals = model.totals();
    using C = DashboardModel::Category;
    QCOMPARE(totals.requests, 24);
    QCOMPARE(totals.count(C::Miss), 7);
    QCOMPARE(totals.count(C::Joined), 9);
    QCOMPARE(totals.count(C::Hit), 3);
    QCOMPARE(totals.count(C::Bypass), 1);
    QCOMPARE(totals.count(C::Refused), 4);
    QCOMPARE(totals.upstreamCalls(), 8);   // misses + bypass
    QCOMPARE(qRound(totals.costSpentUsd * 1000), 16);   // 8 calls x $0.002
    QCOMPARE(qRound(totals.costSavedUsd * 1000), 24);   // 12 answers x $0.002
    QCOMPARE(model.inFlight(), 3);
    QCOMPARE(model.queued(), 2);
    QCOMPARE(model.upstreams(), QStringList({u"openai"_s, u"anthropic"_s}));
}

void TestDashboard::model_bandsAndTransitionsFollowTheBreaker()
{
    DashboardModel model;
    feed(model, recording());
    const QList<DashboardModel::Band> bands = model.bands(u"openai"_s, T, T + 30000);
    QCOMPARE(bands.size(), 4);
    QCOMPARE(bands[0].state, BreakerState::Closed);
    QCOMPARE(bands[1].state, BreakerState::Open);
    QCOMPARE(bands[1].startMs, T + 9600);
    QCOMPARE(bands[1].endMs, T + 20000);
    QCOMPARE(bands[2].state, BreakerState::HalfOpen);
    QCOMPARE(bands[3].state, BreakerState::Closed);
    QCOMPARE(bands[3].endMs, T + 30000);
    QCOMPARE(model.transitions(u"openai"_s, T, T + 30000).size(), 3);
    QCOMPARE(model.bands(u"anthropic"_s, T, T + 30000).size(), 1);
    // A window that starts inside the outage begins with the open band.
    const QList<DashboardModel::Band> late = model.bands(u"openai"_s, T + 15000, T + 30000);
    QCOMPARE(late.size(), 3);
    QCOMPARE(late[0].state, BreakerState::Open);
    QCOMPARE(late[0].startMs, T + 15000);
    QCOMPARE(model.breakerState(u"openai"_s), BreakerState::Closed);

    // The worst state across upstreams drives the tray icon.
    model.addTransition(transition(T + 26000, BreakerState::Closed, BreakerState::Open, u"again"_s));
    QCOMPARE(model.worstBreakerState(), BreakerState::Open);
}

void TestDashboard::model_boundsRecordsAndBuckets()
{
    DashboardModel model;
    for (int i = 0; i < DashboardModel::kMaxRecords + 500; ++i)
        model.addRecord(record("r" + QByteArray::number(i), Outcome::Hit, T + i * 10, T + i * 10 + 1));
    QCOMPARE(qsizetype(model.records().size()), qsizetype(DashboardModel::kMaxRecords));
    QCOMPARE(model.records().back().requestId, "r" + QByteArray::number(DashboardModel::kMaxRecords + 499));
    QCOMPARE(model.totals().requests, DashboardModel::kMaxRecords + 500);   // totals are not bounded

    // 2,500 hits over 25 s: per-second buckets add up to 100 a second.
    const QList<DashboardModel::Counts> buckets = model.outcomeBuckets(T, T + 25000, 1000);
    QCOMPARE(buckets.size(), 25);
    for (const DashboardModel::Counts &bucket : buckets)
        QCOMPARE(bucket[size_t(DashboardModel::Category::Hit)], 100);
    const QList<DashboardModel::Counts> wide = model.outcomeBuckets(T, T + 25000, 5000);
    QCOMPARE(wide.size(), 5);
    QCOMPARE(wide[0][size_t(DashboardModel::Category::Hit)], 500);
}

void TestDashboard::window_showsTheRecordedSequence()
{
    DashboardModel model;
    DashboardWindow window(&model);
    window.setClock([] { return T + 30000; });
    window.setWindowMs(60'000);
    feed(model, recording());
    window.redraw();

    FiguresPanel *figures = window.figures();
    QCOMPARE(figures->figure(u"requests"_s), u"24"_s);
    QCOMPARE(figures->figure(u"upstream"_s), u"8"_s);
    QCOMPARE(figures->figure(u"joined"_s), u"9"_s);
    QCOMPARE(figures->figure(u"hits"_s), u"3"_s);
    QCOMPARE(figures->figure(u"refused"_s), u"4"_s);
    QCOMPARE(figures->figure(u"spent"_s), u"$0.0160"_s);
    QCOMPARE(figures->figure(u"saved"_s), u"$0.0240"_s);
    QCOMPARE(figures->figure(u"inflight"_s), u"3"_s);
    QCOMPARE(figures->figure(u"queued"_s), u"2"_s);
    QCOMPARE(figures->figure(u"breaker:openai"_s), u"closed"_s);
    QCOMPARE(figures->figure(u"breaker:anthropic"_s), u"closed"_s);

    QCOMPARE(window.breakerTimeline()->bandCount(), 5);        // openai 4 + anthropic 1
    QCOMPARE(window.breakerTimeline()->transitionCount(), 3);
    QCOMPARE(window.staircase()->barCount(), 24);
    QCOMPARE(window.requests()->rowCount(), 24);
    QCOMPARE(window.latencyScatter()->pointCount(), 24);
    QVERIFY(window.outcomeChart()->pointCount() > 0);
    QVERIFY(window.outcomeChart()->pointCount() <= 2000);

    // Bars are in arrival order, top to bottom.
    QList<CallRecord> byArrival = recording().records;
    std::stable_sort(byArrival.begin(), byArrival.end(),
                     [](const CallRecord &a, const CallRecord &b) { return a.receivedAtMs < b.receivedAtMs; });
    QList<QByteArray> expected;
    for (const CallRecord &r : byArrival)
        expected.append(r.requestId);
    QCOMPARE(window.staircase()->barRequestIds(), expected);
}

void TestDashboard::window_clearStartsAfresh()
{
    DashboardModel model;
    DashboardWindow window(&model);
    window.setClock([] { return T + 30000; });
    feed(model, recording());
    window.redraw();
    QCOMPARE(window.requests()->totalRowCount(), 24);
    model.clear();
    model.addRecord(record("new", Outcome::Hit, T + 30500, T + 30501));
    window.setClock([] { return T + 31000; });
    window.redraw();
    QCOMPARE(window.figures()->figure(u"requests"_s), u"1"_s);
    QCOMPARE(window.requests()->totalRowCount(), 1);
    QCOMPARE(window.staircase()->barCount(), 1);
    QCOMPARE(window.outcomeChart()->peakRate(), 0.5);   // one hit in a 2 s bucket (5-minute window)
    // The breakers' history is state, not a count: the model's clear() keeps it (the toolbar's
    // Clear forgets it too: clear_resetsTheBreakerTimelineAndStatusBar).
    QCOMPARE(window.breakerTimeline()->transitionCount(), 3);
}

void TestDashboard::window_redrawsAtMostTenTimesASecond()
{
    DashboardModel model;
    DashboardWindow window(&model);
    window.setWindowMs(15 * 60'000);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    const int before = window.redrawCount();
    QElapsedTimer elapsed;
    elapsed.start();
    // 5,000 events a second for one second, delivered as a queued connection would: in bursts.
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    for (int tick = 0; tick < 20; ++tick) {
        for (int i = 0; i < 250; ++i) {
            const qint64 at = now - 15 * 60'000 + (tick * 250 + i) * 180;   // spread over the window
            model.addRecord(record("b" + QByteArray::number(tick * 250 + i), Outcome(i % 7), at, at + i % 97));
        }
        QTest::qWait(50);
    }
    const double seconds = double(elapsed.elapsed()) / 1000.0;
    const int redraws = window.redrawCount() - before;
    QVERIFY2(redraws <= int(seconds * 10) + 2, qPrintable(u"%1 redraws in %2 s"_s.arg(redraws).arg(seconds)));
    QVERIFY(redraws >= 1);
    QVERIFY2(window.outcomeChart()->pointCount() <= 2000, qPrintable(QString::number(window.outcomeChart()->pointCount())));
    QVERIFY(window.latencyScatter()->pointCount() <= LatencyScatter::kMaxPoints);

    // Paused: events are still counted, nothing is drawn.
    window.setPaused(true);
    const int paused = window.redrawCount();
    model.addRecord(record("p", Outcome::Miss, now, now + 5));
    QTest::qWait(300);
    QCOMPARE(window.redrawCount(), paused);
    QCOMPARE(model.totals().requests, 5001);
}

void TestDashboard::window_followsALiveProxyQueued()
{
    ProxyHarness harness;
    DashboardModel model;
    connectProxyToModel(harness.proxy(), &model);
    QCOMPARE(harness.post("/v1/chat/completions", chatBody(u"hello dashboard"_s)).status, 200);
    QTRY_COMPARE(model.totals().requests, 1);
    QCOMPARE(model.totals().upstreamCalls(), 1);
    QTRY_VERIFY(model.snapshot().upstreams.size() == 2);   // the 250 ms snapshot arrived
    QCOMPARE(model.records().back().model, u"gpt-4o-mini"_s);
}

void TestDashboard::model_countsTheSideProxysPools()
{
    // The demo's second proxy (a burst at concurrency 1) holds 1 running and 19 waiting: "in
    // flight" and "queued" count them with the main proxy's, and their captions say where.
    DashboardModel model;
    DashboardWindow window(&model);
    feed(model, recording());   // the main proxy: 3 running, 2 queued
    ProxySnapshot side = snapshot(T + 25000, BreakerState::Open, 1, 19);
    model.setSideSnapshot(u"concurrency 1"_s, side);
    QCOMPARE(model.inFlight(), 3 + 1);
    QCOMPARE(model.queued(), 2 + 19);
    QCOMPARE(model.sideQueued(), 19);
    QCOMPARE(model.sideInFlight(), 1);
    // Its breaker is its own: the main proxy's tiles do not take it.
    QCOMPARE(model.breakerState(u"openai"_s), BreakerState::Closed);
    window.redraw();
    QCOMPARE(window.figures()->figure(u"queued"_s), u"21"_s);
    QCOMPARE(window.figures()->caption(u"queued"_s), u"queued, 19 on 2nd proxy"_s);
    QCOMPARE(window.figures()->figure(u"inflight"_s), u"4"_s);
    QCOMPARE(window.figures()->caption(u"inflight"_s), u"in flight, 1 on 2nd proxy"_s);

    // Once its burst is over it counts nothing, and an unchanged snapshot is no change at all.
    model.setSideSnapshot(u"concurrency 1"_s, snapshot(T + 26000, BreakerState::Closed, 0, 0));
    const quint64 revision = model.revision();
    model.setSideSnapshot(u"concurrency 1"_s, snapshot(T + 26250, BreakerState::Closed, 0, 0));
    QCOMPARE(model.revision(), revision);
    window.redraw();
    QCOMPARE(window.figures()->figure(u"queued"_s), u"2"_s);
    QCOMPARE(window.figures()->caption(u"queued"_s), u"queued"_s);
}

void TestDashboard::demo_burstOneAtATime_queuedCountsTheSideProxy()
{
    // The field test saw "queued 0 while 19 calls waited": the burst one at a time ran through the
    // demo's second proxy, whose queue the header did not read.
    ProxyHarness harness;
    harness.mock()->setLatency(300ms);
    DashboardModel model;
    connectProxyToModel(harness.proxy(), &model);
    DemoController demo(&model, harness.port(), harness.mock(), harness.config());
    DemoScenarios::Options options = demo.scenarios()->options();
    options.burstSize = 6;
    options.slowLatency = 300ms;
    demo.scenarios()->setOptions(options);
    QSignalSpy finished(demo.scenarios(), &DemoScenarios::finished);
    QVERIFY(demo.startBurst(1));
    QVERIFY(demo.sideProxyPort(1) != 0);
    // One runs, the other five wait in the side proxy's queue: seen in a snapshot (every 250 ms).
    QTRY_VERIFY_WITH_TIMEOUT(model.sideQueued() >= 3, 10000);
    QVERIFY(model.queued() >= model.sideQueued());
    QCOMPARE(model.sideInFlight(), 1);
    QVERIFY(finished.wait(20000));
    QTRY_COMPARE_WITH_TIMEOUT(model.sideQueued(), 0, 10000);
    QTRY_COMPARE(model.totals().requests, 6);
}

// The demo menu's Fallback scenario runs through the demo's proxy with a fallback (the mock, then a
// second mock standing in): the dashboard counts one request per prompt, the fallbacks among them.
void TestDashboard::demo_fallbackIsInTheMenu_andTheStandInAnswersWhileThePrimaryIsOverloaded()
{
    ProxyHarness harness;
    DashboardModel model;
    connectProxyToModel(harness.proxy(), &model);
    DemoController demo(&model, harness.port(), harness.mock(), harness.config());
    DemoScenarios::Options options = demo.scenarios()->options();
    options.timeScale = 0.05;   // 75 prompts in 7.5 s, 529s from 0.75 s to 3.75 s
    options.restoreLatency = 0ms;
    demo.scenarios()->setOptions(options);
    QMenu menu;
    demo.populate(&menu);
    QAction *fallback = nullptr;
    for (QAction *action : menu.actions()) {
        if (action->text().startsWith(u"Fallback:"_s))
            fallback = action;
    }
    QVERIFY(fallback);
    std::optional<DemoScenarios::Result> ended;
    connect(demo.scenarios(), &DemoScenarios::finished, this, [&ended](const DemoScenarios::Result &r) { ended = r; });
    fallback->trigger();
    QVERIFY(demo.fallbackProxyPort() != 0);
    QTRY_VERIFY_WITH_TIMEOUT(ended.has_value(), 30000);
    const DemoScenarios::Result result = *ended;
    QCOMPARE(result.statuses.value(200), 75);
    QVERIFY2(result.fellBack >= 20, qPrintable(result.summary()));
    QTRY_COMPARE(model.totals().requests, 75);   // the refused attempts are rows, not requests
    QCOMPARE(model.totals().count(DashboardModel::Category::Fallback), result.fellBack);
    QVERIFY(model.records().size() > 75);
}

void TestDashboard::tray_gatedOnAvailability()
{
    DashboardModel model;
    DashboardWindow window(&model);
    const TrayController::Wiring wiring{&model, &window, u"http://127.0.0.1:8080/v1"_s,
                                        u"http://127.0.0.1:8080"_s, nullptr};
    // Offscreen (as under Xvfb) there is no tray: no controller, and closing the window quits.
    QVERIFY(!QSystemTrayIcon::isSystemTrayAvailable());
    QVERIFY(QApplication::quitOnLastWindowClosed());
    QCOMPARE(TrayController::install(wiring, QSystemTrayIcon::isSystemTrayAvailable()), nullptr);
    QVERIFY(QApplication::quitOnLastWindowClosed());

    // Where a tray exists, it keeps the app alive and offers the menu.
    std::unique_ptr<TrayController> tray(TrayController::install(wiring, true));
    QVERIFY(tray);
    QVERIFY(!QApplication::quitOnLastWindowClosed());
    QStringList texts;
    for (const QAction *action : tray->menu()->actions())
        texts << action->text();
    QVERIFY(texts.contains(u"Open dashboard"_s));
    QVERIFY(texts.contains(u"Copy export lines"_s));
    QVERIFY(texts.contains(u"Quit Breakwater"_s));
    QVERIFY(!texts.contains(u"Demo scenarios"_s));   // only with --demo
    QCOMPARE(tray->environmentLines(), u"export OPENAI_BASE_URL=http://127.0.0.1:8080/v1\n"
                                       "export ANTHROPIC_BASE_URL=http://127.0.0.1:8080\n"
                                       "# export OPENAI_API_KEY=...     (your own keys: Breakwater passes them through)\n"
                                       "# export ANTHROPIC_API_KEY=...\n"_s);
    feed(model, recording());
    model.addTransition(transition(T + 40000, BreakerState::Closed, BreakerState::Open, u"5 consecutive failures"_s));
    QCOMPARE(tray->shownState(), BreakerState::Open);
    QCOMPARE(tray->notificationsShown(), 3);   // open, closed, open again
    QVERIFY(tray->toolTip().contains(u"24 requests, 8 upstream calls, 9 joined, 3 cache hits"_s));
    QApplication::setQuitOnLastWindowClosed(true);
}

void TestDashboard::clear_resetsTheBreakerTimelineAndStatusBar()
{
    DashboardModel model;
    DashboardWindow window(&model);
    window.setClock([] { return T + 30000; });
    window.setWindowMs(60'000);
    feed(model, recording());
    window.redraw();
    QCOMPARE(window.breakerTimeline()->transitionCount(), 3);
    window.statusBar()->showMessage(u"24 rows saved to /tmp/x.csv"_s);
    window.clearAll();
    QCOMPARE(window.breakerTimeline()->transitionCount(), 0);
    QCOMPARE(window.statusBar()->currentMessage(), QString());
    QCOMPARE(window.figures()->figure(u"requests"_s), u"0"_s);
    QCOMPARE(window.requests()->totalRowCount(), 0);
    QCOMPARE(window.staircase()->barCount(), 0);
    QCOMPARE(window.latencyScatter()->pointCount(), 0);
    QCOMPARE(window.outcomeChart()->peakRate(), 0.0);
    // The breaker keeps its state: the timeline goes on from now, in it.
    QCOMPARE(model.breakerState(u"openai"_s), BreakerState::Closed);
    model.addTransition(transition(T + 31000, BreakerState::Closed, BreakerState::Open, u"5 consecutive failures"_s));
    window.setClock([] { return T + 32000; });
    window.redraw();
    QCOMPARE(window.breakerTimeline()->transitionCount(), 1);
}

void TestDashboard::quit_ctrlQInWindowAndTray()
{
    DashboardModel model;
    DashboardWindow window(&model);
    const QList<QAction *> actions = window.actions();
    const auto quit = std::find_if(actions.cbegin(), actions.cend(),
                                   [](const QAction *a) { return a->shortcut() == QKeySequence(u"Ctrl+Q"_s); });
    QVERIFY(quit != actions.cend());
    QCOMPARE((*quit)->shortcuts(), dashboardstyle::quitShortcuts());

    const TrayController::Wiring wiring{&model, &window, u"http://127.0.0.1:8080/v1"_s, u"http://127.0.0.1:8080"_s, nullptr};
    std::unique_ptr<TrayController> tray(TrayController::install(wiring, true));
    QAction *trayQuit = nullptr;
    for (QAction *action : tray->menu()->actions()) {
        if (action->text() == u"Quit Breakwater"_s)
            trayQuit = action;
    }
    QVERIFY(trayQuit);
    QCOMPARE(trayQuit->shortcut(), QKeySequence(u"Ctrl+Q"_s));
    tray.reset();
    QApplication::setQuitOnLastWindowClosed(true);
}

void TestDashboard::close_withoutTray_asksFirst()
{
    DashboardModel model;
    DashboardWindow window(&model);
    window.setProxyInfo(u"http://127.0.0.1:8080/v1"_s, false);
    QVERIFY(QApplication::quitOnLastWindowClosed());   // no tray offscreen: the window is the app
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    answerMessageBox(u"Keep running"_s);
    QVERIFY(!window.close());
    QVERIFY(window.isVisible());

    // With a tray the window only hides: no question.
    QApplication::setQuitOnLastWindowClosed(false);
    QVERIFY(window.close());
    QApplication::setQuitOnLastWindowClosed(true);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    answerMessageBox(u"Quit Breakwater"_s);
    QVERIFY(window.close());
    QVERIFY(!window.isVisible());
}

void TestDashboard::window_idleRepaintsNothing()
{
    DashboardModel model;
    DashboardWindow window(&model);
    // The recorded calls are half an hour old: nothing in the 5-minute window moves.
    qint64 now = T + 30 * 60'000;
    window.setClock([&now] { return now; });
    feed(model, recording());
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    model.setSnapshot(snapshot(now, BreakerState::Closed, 0, 0));   // the calls are over
    window.redraw();
    QTRY_COMPARE(window.redrawIntervalMs(), 0);   // anything pending is painted, then it rests

    PaintCounter charts({window.outcomeChart()->viewport(), window.breakerTimeline(),
                         window.latencyScatter()->viewport(), window.staircase()});
    const int redrawsBefore = window.redrawCount();
    // Snapshots go on arriving four times a second while nothing happens.
    for (int tick = 0; tick < 10; ++tick) {
        now += DashboardWindow::kRedrawIntervalMs;
        model.setSnapshot(snapshot(now, BreakerState::Closed, 0, 0));
        QTest::qWait(DashboardWindow::kRedrawIntervalMs);
    }
    QCOMPARE(window.redrawIntervalMs(), 0);          // nothing woke the timer...
    QCOMPARE(window.redrawCount(), redrawsBefore);   // ... nothing was drawn
    QCOMPARE(charts.paints, 0);                      // ... and nothing painted

    // A call: the charts show it.
    model.addRecord(record("new", Outcome::Miss, now - 500, now));
    QTRY_VERIFY(charts.paints > 0);
}

DASHBOARD_TEST_MAIN(TestDashboard)

#include "tst_dashboard.moc"
