// The Faults tab, offscreen, against a real proxy on its own thread: the Add row builds a rule's
// text and arms it (through queued calls, as the app does), a bad rule shows the parser's message
// and arms nothing, rules armed through the control API show too, Remove and Clear all disarm;
// while a rule is armed the window's strip and the tray (badge, tooltip) say so and stop saying so
// when it goes; the tray's presets arm their rules; an injected call is marked in the table, its
// CSV, the staircase and the failure line; and the demo's injected hang with a short --timeout
// opens the breaker while the window shows the rule. Counted states and QTRY waits, no sleeps.

#include "dashboardmodel.h"
#include "dashboardwindow.h"
#include "demoscenarios.h"
#include "desktopapp.h"
#include "faultbanner.h"
#include "faultcontrol.h"
#include "faultspanel.h"
#include "faults/faultinjector.h"
#include "latencystaircase.h"
#include "outcomechart.h"
#include "proxyharness.h"
#include "requestpanel.h"
#include "requesttablemodel.h"
#include "traycontroller.h"

#include <algorithm>

#include <QCheckBox>
#include <QComboBox>
#include <QDateTime>
#include <QLineEdit>
#include <QMenu>
#include <QPushButton>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace std::chrono_literals;

namespace {
constexpr int kWait = 30000;   // ms: generous, for a loaded 2-core machine; never reached when it passes

QStringList armedRules(const ProxyHarness &harness)
{
    return harness.onProxyThread<QStringList>([](ProxyServer *p) {
        QStringList texts;
        for (const FaultRule &rule : p->faults()->rules())
            texts << rule.text();
        return texts;
    });
}

// The app's wiring of one window (and, when asked, its tray) to the harness's proxy.
struct Dashboard
{
    explicit Dashboard(ProxyHarness &harness)
        : window(&model)
    {
        connectProxyToModel(harness.proxy(), &model);
        faultcontrol::connectPanel(window.faultsPanel(), harness.proxy());
        window.show();
    }
    // Draws as the window's timer would, then hands over the panel.
    FaultsPanel *drawn()
    {
        window.redraw();
        return window.faultsPanel();
    }
    DashboardModel model;
    DashboardWindow window;
};

QAction *menuAction(QMenu *menu, const QString &text)
{
    for (QAction *action : menu->actions()) {
        if (action->text() == text)
            return action;
    }
    return nullptr;
}
} // namespace

class TestFaultsPanel final : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void addRow_buildsTheTextAndArmsItOnTheProxy();
    void badRule_showsTheParsersMessage_armsNothing();
    void wholeFleet_offeredOnlyWhileShared_andSaidInTheScope();
    void removeAndClearAll_disarm_bannerAndTrayFollow();
    void presets_inTrayAndPanel_armTheirRules();
    void injectedCall_markedInTableCsvStaircaseAndFailureLine();
    void injectedHangDemo_shortTimeout_opensTheBreakerWhileTheWindowShowsTheRule();
};

void TestFaultsPanel::initTestCase()
{
    qRegisterMetaType<ProxySnapshot>();
    qRegisterMetaType<DemoScenarios::Result>();
}

void TestFaultsPanel::addRow_buildsTheTextAndArmsItOnTheProxy()
{
    ProxyHarness harness;
    Dashboard dashboard(harness);
    FaultsPanel *panel = dashboard.drawn();
    dashboard.window.tabs()->setCurrentWidget(panel);   // typed into as a user would
    QVERIFY(dashboard.window.faultBanner()->isHidden());
    QVERIFY(!panel->valueField()->isEnabled());   // 503 takes no value

    panel->kindChoice()->setCurrentText(u"cut"_s);
    QVERIFY(panel->valueField()->isEnabled());
    QTest::keyClicks(panel->valueField(), u"3"_s);
    panel->upstreamChoice()->setCurrentIndex(panel->upstreamChoice()->findData(u"anthropic"_s));
    panel->firingChoice()->setCurrentIndex(panel->firingChoice()->findData(u"count"_s));
    QTest::keyClicks(panel->firingField(), u"2"_s);
    QTest::keyClicks(panel->lifetimeField(), u"30s"_s);
    QCOMPARE(panel->ruleField()->text(), u"cut=3:upstream=anthropic:count=2:for=30s"_s);

    panel->addButton()->click();
    QTRY_COMPARE_WITH_TIMEOUT(armedRules(harness), QStringList{u"cut=3:upstream=anthropic:count=2:for=30s"_s}, kWait);
    QTRY_COMPARE_WITH_TIMEOUT(dashboard.drawn()->ruleCount(), 1, kWait);
    QCOMPARE(panel->table()->item(0, FaultsPanel::Rule)->text(), u"#1 cut=3:upstream=anthropic:count=2:for=30s"_s);
    QCOMPARE(panel->table()->item(0, FaultsPanel::Kind)->text(), u"cut"_s);
    QCOMPARE(panel->table()->item(0, FaultsPanel::Scope)->text(), u"anthropic"_s);
    QCOMPARE(panel->table()->item(0, FaultsPanel::Fired)->text(), u"0"_s);
    QVERIFY2(panel->table()->item(0, FaultsPanel::Left)->text().startsWith(u"2 calls, "_s),
             qPrintable(panel->table()->item(0, FaultsPanel::Left)->text()));
    QVERIFY(panel->errorText().isEmpty());

    // The window says so, unmissably, and its tab counts the rule.
    const FaultBanner *banner = dashboard.window.faultBanner();
    QVERIFY(!banner->isHidden());
    QVERIFY2(banner->text().startsWith(u"Fault injection armed: #1 cut=3"_s), qPrintable(banner->text()));
    QTabWidget *tabs = dashboard.window.tabs();
    QCOMPARE(tabs->tabText(tabs->indexOf(panel)), u"Faults (1 armed)"_s);

    // Typed text is armed as typed: the form only writes it.
    panel->ruleField()->setText(u"529:p=30"_s);
    QVERIFY(panel->addRule());
    QTRY_COMPARE_WITH_TIMEOUT(armedRules(harness).size(), 2, kWait);
    QCOMPARE(armedRules(harness).last(), u"529:p=30"_s);
}

void TestFaultsPanel::badRule_showsTheParsersMessage_armsNothing()
{
    FaultsPanel panel;
    QSignalSpy armed(&panel, &FaultsPanel::armRequested);
    panel.kindChoice()->setCurrentText(u"cut"_s);   // and no value
    QCOMPARE(panel.ruleField()->text(), u"cut"_s);
    QVERIFY(!panel.addRule());
    QCOMPARE(panel.errorText(), FaultRule::parse(u"cut"_s).error());
    QVERIFY2(panel.errorText().contains(u"cut needs the number of events"_s), qPrintable(panel.errorText()));

    panel.ruleField()->setText(u"503:p=150"_s);
    panel.addButton()->click();
    QVERIFY2(panel.errorText().contains(u"p is a percentage from 0 to 100"_s), qPrintable(panel.errorText()));
    QCOMPARE(armed.count(), 0);

    panel.ruleField()->setText(u"503:count=1"_s);
    QVERIFY(panel.addRule());
    QVERIFY(panel.errorText().isEmpty());   // a good rule clears the message
    QCOMPARE(armed.count(), 1);
    QCOMPARE(armed.first().first().value<FaultRule>().text(), u"503:count=1"_s);
}

void TestFaultsPanel::wholeFleet_offeredOnlyWhileShared_andSaidInTheScope()
{
    FaultsPanel panel;
    QSignalSpy armed(&panel, &FaultsPanel::armRequested);
    ProxySnapshot snapshot;
    panel.refresh(snapshot);
    QVERIFY(!panel.wholeFleetBox()->isEnabled());   // no --shared-state: no fleet to arm it on
    snapshot.sharedState = "shared";
    panel.refresh(snapshot);
    QVERIFY(panel.wholeFleetBox()->isEnabled());
    panel.wholeFleetBox()->setChecked(true);
    panel.ruleField()->setText(u"503:count=1"_s);
    QVERIFY(panel.addRule());
    QCOMPARE(armed.count(), 1);
    QCOMPARE(armed.at(0).at(1).toBool(), true);
    // Degraded: the box is off, and a rule is this instance's own.
    snapshot.sharedState = "degraded";
    panel.refresh(snapshot);
    QVERIFY(!panel.wholeFleetBox()->isEnabled());
    QVERIFY(panel.addRule());
    QCOMPARE(armed.at(1).at(1).toBool(), false);
    // A rule armed for the fleet says so in its scope.
    FaultRule rule = FaultRule::parse(u"503"_s).value();
    rule.id = 1;
    rule.fleetId = "instance-1:1";
    snapshot.faults = {rule};
    panel.refresh(snapshot);
    QVERIFY2(panel.table()->item(0, FaultsPanel::Scope)->text().contains(u"whole fleet"_s),
             qPrintable(panel.table()->item(0, FaultsPanel::Scope)->text()));
}

void TestFaultsPanel::removeAndClearAll_disarm_bannerAndTrayFollow()
{
    ProxyHarness harness;
    Dashboard dashboard(harness);
    TrayController tray({&dashboard.model, &dashboard.window, u"http://127.0.0.1:%1/v1"_s.arg(harness.port()),
                         u"http://127.0.0.1:%1"_s.arg(harness.port()), nullptr, {}, {}, harness.proxy()});
    tray.refresh();
    QVERIFY(!tray.showsFaultsArmed());
    QVERIFY(!tray.toolTip().contains(u"FAULT"_s));

    // Armed through the control API, as `breakwater fault add` does: the panel shows them too.
    QCOMPARE(harness.control("POST", "/breakwater/faults", R"({"rule": "503:for=60s"})").status, 201);
    QCOMPARE(harness.control("POST", "/breakwater/faults", R"({"rule": "hang"})").status, 201);
    QTRY_COMPARE_WITH_TIMEOUT(dashboard.drawn()->ruleCount(), 2, kWait);
    tray.refresh();
    QVERIFY(tray.showsFaultsArmed());
    QVERIFY2(tray.toolTip().contains(u"FAULT INJECTION ARMED: #1 503:for=60s ("_s), qPrintable(tray.toolTip()));
    QVERIFY2(tray.toolTip().contains(u"#2 hang"_s), qPrintable(tray.toolTip()));
    QVERIFY(dashboard.window.faultBanner()->text().contains(u"#2 hang"_s));

    FaultsPanel *panel = dashboard.window.faultsPanel();
    panel->removeButton(0)->click();
    QTRY_COMPARE_WITH_TIMEOUT(armedRules(harness), QStringList{u"hang"_s}, kWait);
    QTRY_COMPARE_WITH_TIMEOUT(dashboard.drawn()->ruleCount(), 1, kWait);
    QCOMPARE(panel->table()->item(0, FaultsPanel::Rule)->text(), u"#2 hang"_s);
    QVERIFY(!dashboard.window.faultBanner()->text().contains(u"#1"_s));

    // The strip's Clear all is the panel's.
    dashboard.window.faultBanner()->clearButton()->click();
    QTRY_VERIFY_WITH_TIMEOUT(armedRules(harness).isEmpty(), kWait);
    QTRY_COMPARE_WITH_TIMEOUT(dashboard.drawn()->ruleCount(), 0, kWait);
    QVERIFY(dashboard.window.faultBanner()->isHidden());
    QVERIFY(dashboard.window.faultBanner()->text().isEmpty());
    QVERIFY(!panel->clearButton()->isEnabled());
    tray.refresh();
    QVERIFY(!tray.showsFaultsArmed());
    QVERIFY(!tray.toolTip().contains(u"FAULT"_s));
    QTabWidget *tabs = dashboard.window.tabs();
    QCOMPARE(tabs->tabText(tabs->indexOf(panel)), u"Faults"_s);
}

void TestFaultsPanel::presets_inTrayAndPanel_armTheirRules()
{
    ProxyHarness harness;
    Dashboard dashboard(harness);
    TrayController tray({&dashboard.model, &dashboard.window, u"http://127.0.0.1:%1/v1"_s.arg(harness.port()),
                         u"http://127.0.0.1:%1"_s.arg(harness.port()), nullptr, {}, {}, harness.proxy()});
    QMenu *faults = tray.faultsMenu();
    QVERIFY(faults);
    for (const QString &name : {u"503 storm 60 s"_s, u"529 overloaded 60 s (Anthropic)"_s, u"Hang 30 s"_s,
                                u"Cut streams 60 s"_s, u"Slow streams 60 s"_s, u"Clear all faults"_s})
        QVERIFY2(menuAction(faults, name), qPrintable(name));

    menuAction(faults, u"Hang 30 s"_s)->trigger();
    QTRY_COMPARE_WITH_TIMEOUT(armedRules(harness), QStringList{u"hang:for=30s"_s}, kWait);
    menuAction(faults, u"529 overloaded 60 s (Anthropic)"_s)->trigger();
    QTRY_COMPARE_WITH_TIMEOUT(armedRules(harness).size(), 2, kWait);
    QCOMPARE(armedRules(harness).last(), u"529:upstream=anthropic:for=60s"_s);
    menuAction(faults, u"Clear all faults"_s)->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(armedRules(harness).isEmpty(), kWait);

    dashboard.window.faultsPanel()->presetButton(u"cut=3:for=60s"_s)->click();
    QTRY_COMPARE_WITH_TIMEOUT(armedRules(harness), QStringList{u"cut=3:for=60s"_s}, kWait);
    // Without a proxy to arm on there is no such menu.
    TrayController plain({&dashboard.model, &dashboard.window, u"http://127.0.0.1:1/v1"_s, u"http://127.0.0.1:1"_s});
    QVERIFY(!plain.faultsMenu());
}

void TestFaultsPanel::injectedCall_markedInTableCsvStaircaseAndFailureLine()
{
    ProxyHarness harness;
    Dashboard dashboard(harness);
    FaultsPanel *panel = dashboard.window.faultsPanel();
    panel->ruleField()->setText(u"503:count=1"_s);
    QVERIFY(panel->addRule());
    QTRY_COMPARE_WITH_TIMEOUT(armedRules(harness).size(), 1, kWait);

    const LoopbackResponse injected = harness.post("/v1/chat/completions", chatBody(u"meets the fault"_s), kOpenAiAuth);
    QCOMPARE(injected.status, 503);
    QCOMPARE(injected.header("x-breakwater-fault"), "#1 503:count=1"_ba);
    QCOMPARE(harness.post("/v1/chat/completions", chatBody(u"after it"_s), kOpenAiAuth).status, 200);   // spent
    QTRY_COMPARE_WITH_TIMEOUT(dashboard.model.records().size(), size_t(2), kWait);
    dashboard.window.tabs()->setCurrentIndex(1);
    dashboard.window.redraw();

    const QAbstractItemModel *table = dashboard.window.requests()->findChild<QTableView *>()->model();
    QCOMPARE(table->headerData(RequestTableModel::Injected, Qt::Horizontal).toString(), u"injected"_s);
    QStringList column;
    for (int row = 0; row < table->rowCount(); ++row)
        column << table->index(row, RequestTableModel::Injected).data().toString();
    column.sort();
    QCOMPARE(column, QStringList({QString(), u"#1 503:count=1"_s}));

    const QStringList csv = dashboard.window.requests()->toCsv().split(u"\r\n"_s, Qt::SkipEmptyParts);
    const int injectedField = int(csv.first().split(u',').indexOf(u"injected"_s));
    QVERIFY(injectedField >= 0);
    int marked = 0;
    for (const QString &line : csv.mid(1))
        marked += line.split(u',').value(injectedField) == u"#1 503:count=1"_s;
    QCOMPARE(marked, 1);

    QCOMPARE(dashboard.window.staircase()->injectedBarCount(), 1);
    QVERIFY(dashboard.window.staircase()->legendLabels().contains(u"injected"_s));
    QCOMPARE(dashboard.window.outcomeChart()->injectedFailures(), 1);
}

void TestFaultsPanel::injectedHangDemo_shortTimeout_opensTheBreakerWhileTheWindowShowsTheRule()
{
    // The field test's Hang with Breakwater's own hang instead of the mock's, at 1/20 of its
    // time (a prompt every 100 ms, the rule armed from 0.75 s for 3 s) and --timeout 5 at the
    // same scale (250 ms).
    ProxyHarness harness([](ProxyConfig &c) { c.upstreamTimeout = 250ms; });
    Dashboard dashboard(harness);
    DemoScenarios demo(harness.port(), harness.mock());
    demo.setControlToken(harness.config().controlToken);   // it arms the rule through the control API
    DemoScenarios::Options options;
    options.timeScale = 0.05;
    options.restoreLatency = 0ms;
    demo.setOptions(options);
    QSignalSpy finished(&demo, &DemoScenarios::finished);
    QVERIFY(demo.start(DemoScenarios::Scenario::InjectedHang));

    const auto banner = [&dashboard] {
        dashboard.window.redraw();
        return dashboard.window.faultBanner()->text();
    };
    QTRY_VERIFY_WITH_TIMEOUT(banner().contains(u"Fault injection armed: #1 hang:for=3s"_s), kWait);
    QTRY_COMPARE_WITH_TIMEOUT(dashboard.model.breakerState(u"openai"_s), BreakerState::Open, kWait);
    QVERIFY(!dashboard.window.faultBanner()->isHidden());   // the breaker opened while the rule was armed
    QVERIFY(finished.wait(kWait));
    const DemoScenarios::Result result = finished.first().first().value<DemoScenarios::Result>();
    QVERIFY2(!result.stopped && result.failed == 0, qPrintable(result.summary()));

    // Five injected timeouts opened it: the first transition, counted as the breaker's failures.
    QVERIFY(!harness.transitions.isEmpty());
    QCOMPARE(harness.transitions.first().to, BreakerState::Open);
    QTRY_COMPARE_WITH_TIMEOUT(int(harness.records.size()), result.sent, kWait);
    int injectedTimeouts = 0;
    for (const CallRecord &record : harness.records) {
        if (record.injected == u"#1 hang:for=3s"_s && endingOf(record) == Ending::Timeout)
            ++injectedTimeouts;
    }
    QVERIFY2(injectedTimeouts >= 5, qPrintable(QString::number(injectedTimeouts)));
    QCOMPARE(result.statuses.value(504), injectedTimeouts);
    // The breaker's timeline has the open band; the rule expired by itself and the strip went.
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    const QList<DashboardModel::Band> bands = dashboard.model.bands(u"openai"_s, now - 60'000, now);
    QVERIFY(std::any_of(bands.begin(), bands.end(), [](const DashboardModel::Band &b) { return b.state == BreakerState::Open; }));
    QTRY_VERIFY_WITH_TIMEOUT(armedRules(harness).isEmpty(), kWait);
    QTRY_VERIFY_WITH_TIMEOUT(banner().isEmpty(), kWait);
    QVERIFY(dashboard.window.faultBanner()->isHidden());
}

QTEST_MAIN(TestFaultsPanel)

#include "tst_faultspanel.moc"
