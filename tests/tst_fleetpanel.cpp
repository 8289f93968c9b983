// The dashboard's Fleet tab and the tray's fleet line, from a snapshot with a fleet in it
// (--shared-state): the live instances with their calls, the fleet's totals beside this
// instance's, degraded Redis, and nothing at all without --shared-state.
#include <QHeaderView>
#include <QScrollBar>
#include <QTabWidget>
#include <QTableWidget>
#include <QTest>

#include "accounting/metrics.h"
#include "attach/eventjson.h"
#include "dashboardfixture.h"
#include "dashboardmodel.h"
#include "dashboardwindow.h"
#include "fleetpanel.h"
#include "traycontroller.h"

using namespace Qt::StringLiterals;
using namespace dashboardtest;

class TestFleetPanel final : public QObject
{
    Q_OBJECT
private slots:
    void threeInstances_listedWithTheirCalls_andTheFleetsTotals();
    void degraded_saysSo_andListsThisInstanceAlone();
    void withoutSharedState_noFleetTab_noTrayLine();
    void attached_readsTheFleetBackFromStats();
};

namespace {

QString trayToolTip(DashboardModel &model, QWidget &window)
{
    TrayController tray({&model, &window, u"http://127.0.0.1:41435/v1"_s, u"http://127.0.0.1:41435"_s, nullptr});
    return tray.toolTip();
}

} // namespace

void TestFleetPanel::threeInstances_listedWithTheirCalls_andTheFleetsTotals()
{
    DashboardModel model;
    DashboardWindow window(&model);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QCOMPARE(window.screen()->geometry().size(), QSize(1366, 768));
    ProxySnapshot s = snapshot(T, BreakerState::Closed, 0, 0);
    s.sharedState = "shared";
    s.fleet = fleet(3);
    model.setSnapshot(s);
    window.redraw();

    FleetPanel *panel = window.fleetPanel();
    QTabWidget *tabs = window.tabs();
    QCOMPARE(tabs->tabText(tabs->indexOf(panel)), u"Fleet (3)"_s);
    tabs->setCurrentWidget(panel);
    window.redraw();
    QCOMPARE(panel->rowCount(), 4);   // three instances and the fleet
    QCOMPARE(panel->textAt(0, FleetPanel::Instance), u"dev-laptop-1:41435 (this one)"_s);
    QStringList calls;
    for (int row = 0; row < 3; ++row)
        calls << panel->textAt(row, FleetPanel::Instance).section(u' ', 0, 0) + u'=' + panel->textAt(row, FleetPanel::Calls);
    QCOMPARE(calls, (QStringList{u"dev-laptop-1:41435=3"_s, u"dev-laptop-2:41436=4"_s, u"dev-laptop-3:41437=5"_s}));
    QCOMPARE(panel->textAt(3, FleetPanel::Instance), u"Whole fleet (3 instances)"_s);
    QCOMPARE(panel->textAt(3, FleetPanel::Calls), u"12"_s);
    QCOMPARE(panel->textAt(3, FleetPanel::Joined), u"12"_s);
    QCOMPARE(panel->textAt(3, FleetPanel::Misses), u"6"_s);
    QCOMPARE(panel->textAt(3, FleetPanel::Hits), u"9"_s);
    QCOMPARE(panel->textAt(1, FleetPanel::LastSeen), u"200 ms ago"_s);
    // The fleet's joined and misses beside this instance's, in one line.
    const QString summary = panel->summaryText();
    QVERIFY2(summary.contains(u"3 instances alive"_s), qPrintable(summary));
    QVERIFY2(summary.contains(u"fleet-wide 12 joined, 6 misses"_s), qPrintable(summary));
    QVERIFY2(summary.contains(u"this instance 4 joined, 1 miss"_s), qPrintable(summary));
    // At a laptop's width the table fits: no sideways scrolling, every figure whole.
    QVERIFY(!panel->view()->horizontalScrollBar()->isVisible());
    for (int column = FleetPanel::Calls; column < FleetPanel::ColumnCount; ++column) {
        const int needed = panel->view()->fontMetrics().horizontalAdvance(panel->textAt(1, column));
        QVERIFY2(panel->view()->columnWidth(column) >= needed, qPrintable(QString::number(column)));
    }
    QVERIFY(trayToolTip(model, window).contains(u"\nfleet: 3 instances, shared"_s));
}

void TestFleetPanel::degraded_saysSo_andListsThisInstanceAlone()
{
    DashboardModel model;
    DashboardWindow window(&model);
    ProxySnapshot s = snapshot(T, BreakerState::Closed, 0, 0);
    s.sharedState = "degraded";
    s.fleet = fleet(1);
    s.fleet.shared = false;
    s.fleet.reason = u"Redis did not answer within 100 ms"_s;
    model.setSnapshot(s);
    window.redraw();
    FleetPanel *panel = window.fleetPanel();
    QCOMPARE(window.tabs()->tabText(window.tabs()->indexOf(panel)), u"Fleet (degraded)"_s);
    QCOMPARE(panel->rowCount(), 2);
    QCOMPARE(panel->textAt(1, FleetPanel::Instance), u"Whole fleet (1 instance)"_s);
    QVERIFY2(panel->summaryText().contains(u"degraded"_s), qPrintable(panel->summaryText()));
    QVERIFY2(panel->summaryText().contains(u"100 ms"_s), qPrintable(panel->summaryText()));
    QVERIFY(trayToolTip(model, window).contains(u"\nfleet: degraded (local only)"_s));
}

void TestFleetPanel::withoutSharedState_noFleetTab_noTrayLine()
{
    DashboardModel model;
    DashboardWindow window(&model);
    model.setSnapshot(snapshot(T, BreakerState::Closed, 0, 0));
    window.redraw();
    QCOMPARE(window.tabs()->indexOf(window.fleetPanel()), -1);
    QCOMPARE(window.tabs()->count(), 4);
    QVERIFY(!trayToolTip(model, window).contains(u"fleet"_s));
}

void TestFleetPanel::attached_readsTheFleetBackFromStats()
{
    // breakwater --attach: the fleet as /breakwater/stats writes it, read back into the snapshot.
    ProxySnapshot s = snapshot(T, BreakerState::Closed, 0, 0);
    s.sharedState = "shared";
    s.fleet = fleet(3);
    const ProxySnapshot back = snapshotFromStats(Metrics().statsJson(s));
    QVERIFY(back.fleet.enabled);
    QVERIFY(back.fleet.shared);
    QCOMPARE(back.fleet.instances.size(), 3);
    QVERIFY(back.fleet.instances[0].self);
    QCOMPARE(back.fleet.instances[2].label, u"dev-laptop-3:41437"_s);
    QCOMPARE(back.fleet.instances[2].ageMs, 400);
    QCOMPARE(back.fleet.totals().calls, 12);
    QCOMPARE(back.fleet.totals().hits, 9);
    // Without --shared-state the stats have no fleet, and nothing comes back.
    QVERIFY(!Metrics().statsJson(snapshot(T, BreakerState::Closed, 0, 0)).contains(u"fleet"_s));
    QVERIFY(!snapshotFromStats(Metrics().statsJson(snapshot(T, BreakerState::Closed, 0, 0))).fleet.enabled);
}

DASHBOARD_TEST_MAIN(TestFleetPanel)
#include "tst_fleetpanel.moc"
