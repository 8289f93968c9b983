// The dashboard's "In flight" list and the breaker band filter, offscreen at 1366x768: flights held
// by the mock's gate in a real proxy are listed (oldest first, riders joined, queue positions) and
// the list empties when they are answered; an empty list that stays empty changes nothing; the age
// ticks with the view's clock; clicking a breaker band filters the Requests table to the calls
// received in it and switches to it; a past interval is replotted from the call log. Counted, with QTRY waits, no sleeps.

#include "accounting/calllog.h"
#include "breakertimeline.h"
#include "dashboardfixture.h"
#include "dashboardmodel.h"
#include "dashboardwindow.h"
#include "dashboardstyle.h"
#include "desktopapp.h"
#include "inflightpanel.h"
#include "inflighttablemodel.h"
#include "latencyscatter.h"
#include "latencystaircase.h"
#include "outcomechart.h"
#include "proxyharness.h"
#include "requestpanel.h"

#include <QApplication>
#include <QPushButton>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace dashboardtest;

namespace {
constexpr int kWait = 30000;   // ms: generous, for a loaded 2-core machine; never reached when it passes
const QByteArray kChat = "/v1/chat/completions";

InFlight flight(const QByteArray &id, qint64 startedAtMs, InFlight::State state = InFlight::State::Waiting)
{
    InFlight f;
    f.requestId = id;
    f.route = kChat;
    f.upstream = "openai";
    f.model = u"gpt-4o-mini"_s;
    f.startedAtMs = startedAtMs;
    f.state = state;
    return f;
}
} // namespace

class TestInFlightPanel final : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { qRegisterMetaType<ProxySnapshot>(); qRegisterMetaType<CallRecord>(); }
    void heldFlights_areListed_andTheListEmptiesWhenReleased();
    void emptyList_thatStaysEmpty_changesNothing();
    void sameFlights_onlyTheAgeTicks();
    void cappedList_saysHowManyWereLeftOut();
    void breakerBandClick_filtersTheTableToThatInterval();
    void pastInterval_replotsEveryChartFromTheLog_untilBackToLive();
};

void TestInFlightPanel::heldFlights_areListed_andTheListEmptiesWhenReleased()
{
    ProxyHarness harness([](ProxyConfig &c) { c.concurrency = 1; });
    DashboardModel model;
    connectProxyToModel(harness.proxy(), &model);
    DashboardWindow window(&model);
    window.show();
    window.tabs()->setCurrentWidget(window.inFlight());
    InFlightPanel *panel = window.inFlight();
    QCOMPARE(panel->rowCount(), 0);

    harness.mock()->setHoldAnswers(true);
    QList<LoopbackClient *> calls;
    calls.append(harness.start(kChat, chatBody(u"held in flight"_s), kOpenAiAuth));
    QTRY_COMPARE_WITH_TIMEOUT(harness.mock()->heldCount(), 1, kWait);
    for (int i = 0; i < 2; ++i)
        calls.append(harness.start(kChat, chatBody(u"held in flight"_s), kOpenAiAuth));
    QTRY_COMPARE_WITH_TIMEOUT(harness.ridersWaiting(), 3, kWait);
    calls.append(harness.start(kChat, chatBody(u"waiting its turn"_s), kOpenAiAuth));
    QTRY_COMPARE_WITH_TIMEOUT(harness.ridersWaiting(), 4, kWait);

    // The window redraws on its own timer from the proxy's snapshots.
    QTRY_COMPARE_WITH_TIMEOUT(panel->rowCount(), 2, kWait);
    QCOMPARE(panel->textAt(0, InFlightTableModel::Riders), u"1 + 2 joined"_s);
    QCOMPARE(panel->textAt(0, InFlightTableModel::State), u"waiting for first byte"_s);
    QCOMPARE(panel->textAt(0, InFlightTableModel::Route), QString::fromLatin1(kChat));
    QCOMPARE(panel->textAt(0, InFlightTableModel::Model), u"gpt-4o-mini"_s);
    QCOMPARE(panel->textAt(1, InFlightTableModel::Riders), u"1"_s);
    QCOMPARE(panel->textAt(1, InFlightTableModel::State), u"queued #1"_s);
    QVERIFY2(panel->summaryText().contains(u"2 upstream calls in flight"_s), qPrintable(panel->summaryText()));
    QCOMPARE(window.tabs()->tabText(window.tabs()->indexOf(panel)), u"In flight (2)"_s);
    const QString age = panel->textAt(0, InFlightTableModel::Age);
    QTRY_VERIFY_WITH_TIMEOUT(panel->textAt(0, InFlightTableModel::Age) != age, kWait);   // it ticks

    harness.mock()->setHoldAnswers(false);
    QTRY_VERIFY_WITH_TIMEOUT(std::all_of(calls.begin(), calls.end(), [](const LoopbackClient *c) { return c->isFinished(); }), kWait);
    QTRY_COMPARE_WITH_TIMEOUT(panel->rowCount(), 0, kWait);
    QCOMPARE(panel->summaryText(), u"No upstream call in flight."_s);
    QTRY_COMPARE_WITH_TIMEOUT(window.tabs()->tabText(window.tabs()->indexOf(panel)), u"In flight"_s, kWait);
}

void TestInFlightPanel::emptyList_thatStaysEmpty_changesNothing()
{
    InFlightPanel panel;
    QSignalSpy resets(panel.tableModel(), &QAbstractItemModel::modelReset);
    QSignalSpy changes(panel.tableModel(), &QAbstractItemModel::dataChanged);
    for (int i = 0; i < 10; ++i)
        QVERIFY(!panel.refresh(snapshot(T + i * 250, BreakerState::Closed, 0, 0), T + i * 250));
    QCOMPARE(resets.size(), 0);
    QCOMPARE(changes.size(), 0);
    QCOMPARE(panel.tableModel()->changeCount(), 0);

    // A flight comes and goes: two changes, then quiet again.
    ProxySnapshot busy = snapshot(T + 3000, BreakerState::Closed, 1, 0);
    busy.flights = {flight("a", T + 2900)};
    QVERIFY(panel.refresh(busy, T + 3000));
    QVERIFY(panel.refresh(snapshot(T + 3250, BreakerState::Closed, 0, 0), T + 3250));
    QVERIFY(!panel.refresh(snapshot(T + 3500, BreakerState::Closed, 0, 0), T + 3500));
    QCOMPARE(resets.size(), 2);
    QCOMPARE(panel.rowCount(), 0);
}

void TestInFlightPanel::sameFlights_onlyTheAgeTicks()
{
    InFlightPanel panel;
    ProxySnapshot busy = snapshot(T, BreakerState::Closed, 1, 1);
    busy.flights = {flight("old", T - 12'000), flight("new", T - 500, InFlight::State::Queued)};
    busy.flights[1].queuePosition = 1;
    busy.flights[0].joined = 4;
    busy.flights[0].trial = true;
    busy.flights[0].injected = u"#1 hang"_s;
    QVERIFY(panel.refresh(busy, T));
    QCOMPARE(panel.textAt(0, InFlightTableModel::Age), u"12.00 s"_s);
    QCOMPARE(panel.textAt(0, InFlightTableModel::Riders), u"1 + 4 joined"_s);
    QCOMPARE(panel.textAt(0, InFlightTableModel::Trial), u"trial"_s);
    QCOMPARE(panel.textAt(0, InFlightTableModel::Injected), u"#1 hang"_s);
    QCOMPARE(panel.textAt(1, InFlightTableModel::State), u"queued #1"_s);

    QSignalSpy resets(panel.tableModel(), &QAbstractItemModel::modelReset);
    QSignalSpy changes(panel.tableModel(), &QAbstractItemModel::dataChanged);
    QVERIFY(panel.refresh(busy, T + 1000));
    QCOMPARE(resets.size(), 0);
    QCOMPARE(changes.size(), 1);
    QCOMPARE(changes.first().at(0).toModelIndex().column(), int(InFlightTableModel::Age));
    QCOMPARE(changes.first().at(1).toModelIndex().column(), int(InFlightTableModel::Age));
    QCOMPARE(panel.textAt(0, InFlightTableModel::Age), u"13.00 s"_s);

    // Values that moved (a rider hung up, bytes came) repaint the rows, not a reset.
    busy.flights[0].hungUp = 1;
    busy.flights[0].bytes = 1234;
    QVERIFY(panel.refresh(busy, T + 1100));
    QCOMPARE(resets.size(), 0);
    QCOMPARE(changes.size(), 2);
    QCOMPARE(panel.textAt(0, InFlightTableModel::Riders), u"1 + 4 joined (1 hung up)"_s);
    QCOMPARE(panel.textAt(0, InFlightTableModel::Bytes), u"1,234"_s);
}

void TestInFlightPanel::cappedList_saysHowManyWereLeftOut()
{
    InFlightPanel panel;
    ProxySnapshot busy = snapshot(T, BreakerState::Closed, 0, 0);
    for (int i = 0; i < InFlight::kMaxListed; ++i)
        busy.flights.append(flight("f" + QByteArray::number(i), T - 10'000 + i));
    busy.flightsOmitted = 7;
    panel.refresh(busy, T);
    QCOMPARE(panel.rowCount(), InFlight::kMaxListed);
    QVERIFY2(panel.summaryText().contains(u"207 upstream calls"_s), qPrintable(panel.summaryText()));
    QVERIFY2(panel.summaryText().contains(u"Showing the 200 oldest; 7 newer not listed"_s), qPrintable(panel.summaryText()));
}

void TestInFlightPanel::breakerBandClick_filtersTheTableToThatInterval()
{
    DashboardModel model;
    feed(model, recording());
    DashboardWindow window(&model);
    window.setClock([] { return T + 30'000; });
    window.setWindowMs(60'000);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.redraw();
    RequestPanel *requests = window.requests();
    const int all = requests->rowCount();
    QVERIFY(all > 4);

    // The openai row: closed, open from T+9.6 s to T+20 s, half-open, closed again.
    BreakerTimeline *timeline = window.breakerTimeline();
    int open = -1;
    for (int i = 0; i < timeline->bandCount(); ++i) {
        if (timeline->toolTipAt(timeline->bandRect(0, i).center()).startsWith(u"openai: open\n"_s))
            open = i;
    }
    QVERIFY(open >= 0);
    QSignalSpy clicked(timeline, &BreakerTimeline::bandClicked);
    QTest::mouseClick(timeline, Qt::LeftButton, {}, timeline->bandRect(0, open).center());
    QCOMPARE(clicked.size(), 1);
    QCOMPARE(clicked.first().at(3).value<BreakerState>(), BreakerState::Open);
    QCOMPARE(clicked.first().at(1).toLongLong(), T + 9600);
    QCOMPARE(clicked.first().at(2).toLongLong(), T + 20000);

    QCOMPARE(window.tabs()->currentWidget(), requests);
    QCOMPARE(requests->rowCount(), 4);   // the four calls refused while it was open
    const QString indicator = requests->timeRangeText();
    QVERIFY2(indicator.contains(dashboardstyle::formatClock(T + 9600, false))
                 && indicator.contains(dashboardstyle::formatClock(T + 20000, false)), qPrintable(indicator));
    QVERIFY(requests->findChild<QPushButton *>() != nullptr);

    requests->clearTimeRange();
    QCOMPARE(requests->rowCount(), all);
    QVERIFY(requests->timeRangeText().isEmpty());
}

// An hour ago, from the call log: six calls, the last three refused while the breaker was open.
void TestInFlightPanel::pastInterval_replotsEveryChartFromTheLog_untilBackToLive()
{
    QTemporaryDir dir;
    CallLog log;
    QVERIFY(log.open(dir.filePath(u"calls.sqlite"_s)).ok());
    const qint64 past = T - 3'600'000;
    for (int i = 0; i < 6; ++i) {
        CallRecord r = record("past-" + QByteArray::number(i), i < 3 ? Outcome::Miss : Outcome::BreakerRefused,
                              past + i * 1000, past + i * 1000 + 300, i < 3 ? 200 : 503);
        r.breakerState = i < 3 ? "closed" : "open";
        log.append(r);
    }
    log.append(record("other-time", Outcome::Miss, past + 60'000, past + 60'300));
    log.flush();

    DashboardModel model;
    feed(model, recording());
    DashboardWindow window(&model);
    window.setClock([] { return T + 30'000; });
    window.setWindowMs(60'000);
    int asked = 0;
    window.setHistorySource([&](qint64 fromMs, qint64 toMs) {
        ++asked;
        return log.between(fromMs, toMs, DashboardModel::kMaxRecords);
    });
    window.show();
    window.redraw();
    const int liveBars = window.staircase()->barCount();

    window.replotInterval(past - 500, past + 6000);
    QCOMPARE(asked, 1);
    QVERIFY(window.isReplotting());
    QCOMPARE(window.tabs()->currentIndex(), 0);
    QCOMPARE(window.staircase()->barCount(), 6);
    QVERIFY(window.outcomeChart()->pointCount() > 0);
    QVERIFY(window.latencyScatter()->pointCount() > 0);
    // The breaker of that time, from the states at admission: closed, then open (then closed again
    // where that history ends, as a restarted proxy's breakers are).
    BreakerTimeline *timeline = window.breakerTimeline();
    QVERIFY(timeline->bandCount() >= 2);
    QVERIFY(timeline->toolTipAt(timeline->bandRect(0, 1).center()).startsWith(u"openai: open\n"_s));
    QVERIFY2(window.replotText().contains(u"(6 calls)"_s) && window.replotText().contains(u"call log"_s),
             qPrintable(window.replotText()));
    // The live timer leaves the replotted charts alone.
    window.redraw();
    QCOMPARE(window.staircase()->barCount(), 6);

    window.backToLive();
    QVERIFY(!window.isReplotting());
    QCOMPARE(window.staircase()->barCount(), liveBars);
    QVERIFY(window.replotText().isEmpty());

    // The breaker band's right-click asks for the same.
    Q_EMIT window.breakerTimeline()->replotRequested(past, past + 6000);
    QCOMPARE(asked, 2);
    QVERIFY(window.isReplotting());
}

DASHBOARD_TEST_MAIN(TestInFlightPanel)

#include "tst_inflightpanel.moc"
