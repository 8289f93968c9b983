// The outage view under pressure (issue 27), offscreen at 1366x768: the Live tab's Export table
// saves every row shown, as the Requests tab's does; during an injected hang (a real proxy, the
// rule armed through the control API) the in-flight tile, the oldest-in-flight tile and the In
// flight tab's title count the same calls; the Requests table keeps the selected row where it is
// on screen and the details where the reader scrolled while rows arrive; Clear empties the
// details and disables what acted on the call. Counted, with QTRY waits, no sleeps.

#include "breakertimeline.h"
#include "dashboardfixture.h"
#include "dashboardmodel.h"
#include "dashboardwindow.h"
#include "democontroller.h"
#include "desktopapp.h"
#include "dashboardstyle.h"
#include "faultbanner.h"
#include "figurespanel.h"
#include "gettingstarted.h"
#include "latencyscatter.h"
#include "chartlegend.h"
#include "inflightpanel.h"
#include "latencystaircase.h"
#include "outcomechart.h"
#include "appsettings.h"
#include "settingsdialog.h"
#include "livecontrol.h"
#include "proxyharness.h"
#include "proxypanel.h"
#include "requestpanel.h"
#include "requesttablemodel.h"
#include "traycontroller.h"

#include <QAbstractAxis>
#include <QScrollArea>
#include <QScrollBar>
#include <QApplication>
#include <QChart>
#include <QLegend>
#include <QTime>

#include <cmath>
#include <QDateTime>
#include <QFile>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollBar>
#include <QTabWidget>
#include <QTableView>
#include <QRegularExpression>
#include <QScreen>
#include <QTemporaryDir>
#include <QTextDocument>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace dashboardtest;

namespace {
constexpr int kWait = 30000;   // ms: generous, for a loaded 2-core machine; never reached when it passes

int csvDataRows(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return -1;
    const QList<QByteArray> lines = file.readAll().trimmed().split('\n');
    return int(lines.size()) - 1;   // the header
}

QPushButton *button(const QWidget *parent, const QString &text)
{
    for (QPushButton *candidate : parent->findChildren<QPushButton *>()) {
        if (candidate->text() == text)
            return candidate;
    }
    return nullptr;
}

// Records with ids "more-<first>" ... arriving after the recording, one a second.
void feedMore(DashboardModel &model, int first, int count)
{
    for (int i = first; i < first + count; ++i)
        model.addRecord(record("more-" + QByteArray::number(i), Outcome::Miss, T + 60'000 + i * 1000, T + 60'400 + i * 1000));
}
// The Requests table's cells whose text is wider than their column.
QStringList cutCells(QTableView *view)
{
    QStringList cut;
    const QFontMetrics metrics = view->fontMetrics();
    for (int row = 0; row < std::min(view->model()->rowCount(), 30); ++row) {
        for (int column = 0; column < view->model()->columnCount(); ++column) {
            if (view->isColumnHidden(column))
                continue;
            const QString text = view->model()->index(row, column).data().toString();
            const int needed = metrics.horizontalAdvance(text) + 8;   // the delegate's margins
            if (needed > view->columnWidth(column))
                cut << u"\"%1\" in %2"_s.arg(text, view->model()->headerData(column, Qt::Horizontal).toString());
        }
    }
    return cut;
}

} // namespace

class TestOutageView final : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { qRegisterMetaType<ProxySnapshot>(); qRegisterMetaType<CallRecord>(); }
    void exportTable_fromTheLiveTab_savesEveryRow();
    void injectedHang_tileOldestAndTabCountTheSameCall();
    void rowsArriving_keepTheSelectedRowAndTheDetailsInPlace();
    void clear_emptiesTheDetails_andDisablesTheirButtons();
    void pausedAdmission_showsInTheStripAndTheTray_andResumesFromBoth();
    void tray_listsBreakers_countsRefusedAndFailed_andSaysOnceItStillRuns();
    void probeAndCooldown_sayWhatIsSo();
    void countsAndWords_pluralsAndFailuresFormattedOneWay();
    void retriesTintedAsOneCall_injectedNeverMiss_exportsConfirm();
    void atLaptopSize_noTextIsCut_andNothingScrollsSideways();
    void narrowWindow_tilesWrapOntoASecondRow_notSideways();
    void outcomes_axesReadAcross_ticksOnRoundTimes_legendSaysUnits();
    void staircase_captionsCountWhatIsDrawn_queueWaitIsNotInFlight();
    void demoMenuAndSettings_sayWhatRunsNow();
    void steadyLayout_nothingMovesAsCallsFaultsAndPausesCome();
};

void TestOutageView::exportTable_fromTheLiveTab_savesEveryRow()
{
    DashboardModel model;
    DashboardWindow window(&model);
    window.show();
    window.tabs()->setCurrentIndex(0);   // Live
    window.redraw();
    feed(model, recording());
    // The window's own timer draws the new records on the Live tab, as while traffic runs.
    QTRY_COMPARE_WITH_TIMEOUT(window.figures()->figure(u"requests"_s), u"24"_s, kWait);

    QTemporaryDir dir;
    QVERIFY(window.exportTable(dir.filePath(u"live.csv"_s)));
    QCOMPARE(csvDataRows(dir.filePath(u"live.csv"_s)), 24);
    window.tabs()->setCurrentWidget(window.requests());
    QVERIFY(window.exportTable(dir.filePath(u"requests.csv"_s)));
    QCOMPARE(csvDataRows(dir.filePath(u"requests.csv"_s)), 24);
}


void TestOutageView::injectedHang_tileOldestAndTabCountTheSameCall()
{
    ProxyHarness harness;
    DashboardModel model;
    connectProxyToModel(harness.proxy(), &model);
    DashboardWindow window(&model);
    window.show();
    QCOMPARE(harness.control("POST", "/breakwater/faults", R"({"rule": "hang"})").status, 201);
    LoopbackClient *call = harness.start("/v1/chat/completions", chatBody(u"held by Breakwater itself"_s), kOpenAiAuth);

    QTabWidget *tabs = window.tabs();
    QTRY_COMPARE_WITH_TIMEOUT(tabs->tabText(tabs->indexOf(window.inFlight())), u"In flight (1)"_s, kWait);
    window.redraw();
    QCOMPARE(model.flightsListed(), 1);
    QCOMPARE(window.figures()->figure(u"inflight"_s).toInt() + window.figures()->figure(u"queued"_s).toInt(), 1);
    QCOMPARE(window.figures()->figure(u"inflight"_s), u"1"_s);
    QVERIFY2(window.figures()->figure(u"oldest"_s) != u"–"_s, qPrintable(window.figures()->figure(u"oldest"_s)));
    QVERIFY(!call->isFinished());
}

void TestOutageView::rowsArriving_keepTheSelectedRowAndTheDetailsInPlace()
{
    DashboardModel model;
    DashboardWindow window(&model);
    window.show();
    window.tabs()->setCurrentWidget(window.requests());
    feed(model, recording());
    feedMore(model, 0, 40);
    window.redraw();
    RequestPanel *panel = window.requests();
    auto *view = panel->findChild<QTableView *>();
    auto *details = panel->findChild<QPlainTextEdit *>();
    QVERIFY(view && details);
    QCOMPARE(panel->rowCount(), 64);

    details->setFixedHeight(120);   // shorter than the text, so there is a place to keep
    QCoreApplication::processEvents();
    panel->selectRow(10);
    const QModelIndex selected = view->selectionModel()->currentIndex();
    const QString selectedId = selected.siblingAtColumn(0).data().toString() + selected.siblingAtColumn(1).data().toString();
    const int topBefore = view->visualRect(selected).top();
    QVERIFY(details->verticalScrollBar()->maximum() > 0);   // the details are longer than their pane
    details->verticalScrollBar()->setValue(details->verticalScrollBar()->maximum());
    const int detailsScroll = details->verticalScrollBar()->value();
    const QString detailsText = details->toPlainText();

    for (int round = 0; round < 3; ++round) {
        feedMore(model, 40 + round * 5, 5);
        window.redraw();
        const QModelIndex now = view->selectionModel()->currentIndex();
        QCOMPARE(now.siblingAtColumn(0).data().toString() + now.siblingAtColumn(1).data().toString(), selectedId);
        QCOMPARE(view->visualRect(now).top(), topBefore);   // still under the pointer
        QCOMPARE(details->toPlainText(), detailsText);
        QCOMPARE(details->verticalScrollBar()->value(), detailsScroll);
    }
    QCOMPARE(panel->rowCount(), 79);
}

void TestOutageView::clear_emptiesTheDetails_andDisablesTheirButtons()
{
    DashboardModel model;
    DashboardWindow window(&model);
    window.show();
    window.tabs()->setCurrentWidget(window.requests());
    feed(model, recording());
    window.redraw();
    RequestPanel *panel = window.requests();
    panel->selectRow(0);
    QVERIFY(!panel->detailsText().isEmpty());
    const QStringList actions{u"Copy as curl"_s, u"Export HAR…"_s, u"Replay…"_s};
    for (const QString &text : actions) {
        QVERIFY2(button(panel, text), qPrintable(text));
        QVERIFY2(button(panel, text)->isEnabled(), qPrintable(text));
    }

    window.clearAll();
    QCOMPARE(panel->rowCount(), 0);
    QCOMPARE(panel->detailsText(), QString());
    QVERIFY(panel->curlCommand().isEmpty());
    for (const QString &text : actions)
        QVERIFY2(!button(panel, text)->isEnabled(), qPrintable(text));
}

void TestOutageView::pausedAdmission_showsInTheStripAndTheTray_andResumesFromBoth()
{
    ProxyHarness harness;
    DashboardModel model;
    connectProxyToModel(harness.proxy(), &model);
    DashboardWindow window(&model);
    livecontrol::connectPanel(window.proxyPanel(), harness.proxy());
    window.show();
    TrayController tray({&model, &window, u"http://127.0.0.1:%1/v1"_s.arg(harness.port()),
                         u"http://127.0.0.1:%1"_s.arg(harness.port()), nullptr, {}, {}, harness.proxy()});
    window.redraw();
    tray.refresh();
    QVERIFY(window.faultBanner()->text().isEmpty());
    QVERIFY(!tray.showsAdmissionPaused());
    QVERIFY(tray.pauseAdmissionAction());
    QCOMPARE(tray.pauseAdmissionAction()->text(), u"Pause admission"_s);

    tray.pauseAdmissionAction()->trigger();   // the tray's menu pauses
    QTRY_VERIFY_WITH_TIMEOUT(model.snapshot().admissionPaused, kWait);
    window.redraw();
    tray.refresh();
    QVERIFY2(window.faultBanner()->text().startsWith(u"Admission paused"_s), qPrintable(window.faultBanner()->text()));
    QVERIFY(window.faultBanner()->resumeButton()->isVisibleTo(&window));
    QVERIFY(!window.faultBanner()->clearButton()->isVisibleTo(&window));   // no fault rule to clear
    QCOMPARE(window.breakerTimeline()->pausedSpanCount(), 1);   // the timeline shows the span
    QVERIFY(tray.showsAdmissionPaused());
    QVERIFY2(tray.toolTip().contains(u"ADMISSION PAUSED"_s), qPrintable(tray.toolTip()));
    QCOMPARE(tray.pauseAdmissionAction()->text(), u"Resume admission"_s);
    QCOMPARE(harness.post("/v1/chat/completions", chatBody(u"refused while paused"_s), kOpenAiAuth).status, 503);
    QCOMPARE(harness.mock()->callCount(), 0);
    // The chart-only Pause does not claim the proxy is paused.
    window.setPaused(true);
    QVERIFY2(window.windowTitle() != u"Breakwater (paused)"_s, qPrintable(window.windowTitle()));
    window.setPaused(false);

    window.faultBanner()->resumeButton()->click();   // the strip resumes
    QTRY_VERIFY_WITH_TIMEOUT(!model.snapshot().admissionPaused, kWait);
    window.redraw();
    tray.refresh();
    QVERIFY(window.faultBanner()->text().isEmpty());
    QCOMPARE(window.breakerTimeline()->pausedSpanCount(), 1);   // ended, and still in the window
    QVERIFY(!tray.showsAdmissionPaused());
    QVERIFY(!tray.toolTip().contains(u"PAUSED"_s));
    QCOMPARE(harness.post("/v1/chat/completions", chatBody(u"admitted again"_s), kOpenAiAuth).status, 200);
}

void TestOutageView::tray_listsBreakers_countsRefusedAndFailed_andSaysOnceItStillRuns()
{
    DashboardModel model;
    DashboardWindow window(&model);
    model.setSnapshot(snapshot(T + 20000, BreakerState::Open, 0, 0));
    feed(model, recording());
    TrayController tray({&model, &window, u"http://127.0.0.1:8080/v1"_s, u"http://127.0.0.1:8080"_s});
    tray.refresh();
    QCOMPARE(tray.breakerLines().size(), model.upstreams().size());
    QCOMPARE(tray.breakerLines().size(), 2);
    for (const QString &upstream : model.upstreams()) {
        const QString line = u"%1: breaker %2"_s.arg(upstream, dashboardstyle::breakerLabel(model.breakerState(upstream)));
        QVERIFY2(tray.breakerLines().contains(line), qPrintable(tray.breakerLines().join(u" | "_s)));
    }
    const QString tip = tray.toolTip();
    QVERIFY2(tip.contains(u"%1 refused, %2 failed"_s.arg(model.totals().count(DashboardModel::Category::Refused))
                              .arg(model.totals().failures())), qPrintable(tip));

    QApplication::setQuitOnLastWindowClosed(false);   // as TrayController::install() does with a tray
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    const int before = tray.notificationsShown();
    window.close();   // with a tray: hidden, and said so once
    QCOMPARE(tray.notificationsShown(), before + 1);
    QVERIFY2(tray.lastNotification().contains(u"http://127.0.0.1:8080/v1"_s), qPrintable(tray.lastNotification()));
    window.show();
    window.close();
    QCOMPARE(tray.notificationsShown(), before + 1);
    QApplication::setQuitOnLastWindowClosed(true);
}

void TestOutageView::probeAndCooldown_sayWhatIsSo()
{
    DashboardModel model;
    DashboardWindow window(&model);
    ProxySnapshot s = snapshot(T, BreakerState::Open, 0, 0);
    s.upstreams[0].failureThreshold = 5;
    s.upstreams[0].consecutiveFailures = 6;   // the failed trial counts on
    s.upstreams[0].cooldownLeftMs = 52'910;
    s.upstreams[0].lastProbeAtMs = T - 3000;   // said "up": the breaker half-opened ...
    s.upstreams[0].lastProbeResult = u"200"_s;
    s.upstreams[0].lastProbeAlive = true;
    s.upstreams[0].lastFailure = u"timeout"_s;   // ... and its trial failed after it
    s.upstreams[0].lastFailureAtMs = T - 1000;
    model.setSnapshot(s);
    window.redraw();
    const QString text = window.proxyPanel()->upstreamText(u"openai"_s);
    const QString probedAt = QDateTime::fromMSecsSinceEpoch(T - 3000).toString(u"HH:mm:ss"_s);
    QVERIFY2(text.contains(u"probe 200 (up) at %1, then the trial failed: open again"_s.arg(probedAt)), qPrintable(text));
    QVERIFY2(text.contains(u"≤ 53 s"_s) && text.contains(u"sooner if a probe answers"_s), qPrintable(text));
    QVERIFY2(!text.contains(u"6 of 5"_s) && text.contains(u"6 failures in a row"_s), qPrintable(text));
}

void TestOutageView::countsAndWords_pluralsAndFailuresFormattedOneWay()
{
    using dashboardstyle::countOf;
    QCOMPARE(countOf(1, u"cache hit"_s, u"cache hits"_s), u"1 cache hit"_s);
    QCOMPARE(countOf(0, u"cache hit"_s, u"cache hits"_s), u"0 cache hits"_s);
    QCOMPARE(dashboardstyle::formatCountdown(52'910), u"53 s"_s);
    QCOMPARE(dashboardstyle::formatCountdown(106'000), u"1 min 46 s"_s);

    // One request, answered by one upstream call: the tray says so in the singular.
    DashboardModel model;
    DashboardWindow window(&model);
    model.addRecord(record("one", Outcome::Miss, T + 1000, T + 1200));
    TrayController tray({&model, &window, u"http://127.0.0.1:8080/v1"_s, u"http://127.0.0.1:8080"_s});
    const QString tip = tray.toolTip();
    QVERIFY2(tip.contains(u"1 request, 1 upstream call, 0 joined, 0 cache hits"_s), qPrintable(tip));

    // Eleven failures, six timeouts and five 503s: "+5 other", not "+1 more".
    for (int i = 0; i < 6; ++i) {
        CallRecord r = record("timeout-" + QByteArray::number(i), Outcome::Miss, T + 2000 + i, T + 7000 + i, 504);
        r.errorKind = "upstream_timeout";
        model.addRecord(r);
    }
    for (int i = 0; i < 5; ++i)
        model.addRecord(record("e503-" + QByteArray::number(i), Outcome::Miss, T + 3000 + i, T + 3100 + i, 503));
    window.setClock([] { return T + 10'000; });
    window.redraw();
    QCOMPARE(window.figures()->figure(u"failed"_s), u"11"_s);
    QCOMPARE(window.figures()->caption(u"failed"_s), u"failed: timeout ×6 +5 other"_s);
}

void TestOutageView::retriesTintedAsOneCall_injectedNeverMiss_exportsConfirm()
{
    DashboardModel model;
    DashboardWindow window(&model);
    window.show();
    window.tabs()->setCurrentWidget(window.requests());
    // An SDK's three attempts of one call (retry count 0, 1, 2), and a call a fault rule answered.
    for (int attempt = 0; attempt < 3; ++attempt) {
        CallRecord r = record("try-" + QByteArray::number(attempt), Outcome::Miss, T + 1000 + attempt * 700,
                              T + 1500 + attempt * 700, attempt < 2 ? 503 : 200);
        r.retryAttempt = attempt;
        model.addRecord(r);
    }
    CallRecord injected = record("injected-0", Outcome::Miss, T + 5000, T + 5001, 503);
    injected.injected = u"#1 503:count=1"_s;
    injected.keyFingerprint = "ffffffffffff";
    model.addRecord(injected);
    window.redraw();
    RequestPanel *panel = window.requests();
    auto *view = panel->findChild<QTableView *>();
    QAbstractItemModel *shown = view->model();
    QCOMPARE(shown->rowCount(), 4);
    QCOMPARE(view->horizontalHeader()->visualIndex(RequestTableModel::Attempt), RequestTableModel::OutcomeColumn + 1);
    int tinted = 0;
    int injectedRows = 0;
    QStringList attempts;
    for (int row = 0; row < shown->rowCount(); ++row) {
        const QString id = shown->index(row, RequestTableModel::RequestId).data().toString();
        const QString outcome = shown->index(row, RequestTableModel::OutcomeColumn).data().toString();
        const QVariant tint = shown->index(row, RequestTableModel::Arrival).data(Qt::BackgroundRole);
        if (id.startsWith(u"try-"_s)) {
            tinted += tint.isValid() ? 1 : 0;
            attempts << shown->index(row, RequestTableModel::Attempt).data().toString();
        } else {
            QVERIFY(!tint.isValid());
            QCOMPARE(outcome, u"injected"_s);
            QCOMPARE(shown->index(row, RequestTableModel::OutcomeColumn).data(Qt::ForegroundRole).value<QColor>(),
                     dashboardstyle::injectedColor());
            ++injectedRows;
        }
    }
    QCOMPARE(tinted, 3);
    QCOMPARE(injectedRows, 1);
    attempts.sort();
    QCOMPARE(attempts, (QStringList{u"1 of 3"_s, u"2 of 3"_s, u"3 of 3"_s}));

    QTemporaryDir dir;
    QString error;
    QVERIFY(panel->exportHar(dir.filePath(u"calls.har"_s), &error));
    QCOMPARE(panel->actionNote(), u"4 calls saved to calls.har"_s);
    panel->selectRow(0);
    panel->copyAsCurl();
    QCOMPARE(panel->actionNote(), u"Copied as curl"_s);
}

DASHBOARD_TEST_MAIN(TestOutageView)
#include "tst_outageview.moc"

void TestOutageView::narrowWindow_tilesWrapOntoASecondRow_notSideways()
{
    // A 1366x768 laptop at 125 % gives the window about 1090 px: the tiles that do not fit go on
    // a second row, in their order, instead of a strip scrolled sideways; wide again, one row.
    DashboardModel model;
    DashboardWindow window(&model);
    window.setProxyInfo(u"http://127.0.0.1:41435/v1"_s, true);
    window.setClock([] { return T + 30'000; });
    feed(model, recording());
    window.resize(1090, 600);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.redraw();
    QCoreApplication::processEvents();
    QCOMPARE(window.figures()->rows(), 2);
    auto *strip = qobject_cast<QScrollArea *>(window.figures()->parentWidget()->parentWidget());
    QVERIFY(strip);
    QVERIFY(!strip->horizontalScrollBar()->isVisible());
    const QList<QFrame *> tiles = window.figures()->findChildren<QFrame *>(u"tile"_s);
    QVERIFY(tiles.size() >= 11);
    int lowest = 0;
    for (QFrame *tile : tiles) {
        if (tile->isHidden())
            continue;
        const QRect inStrip(tile->mapTo(strip, QPoint()), tile->size());
        QVERIFY2(strip->rect().contains(inStrip), qPrintable(tile->accessibleName() + u" %1,%2 %3x%4 in %5x%6"_s.arg(inStrip.x()).arg(inStrip.y()).arg(inStrip.width()).arg(inStrip.height()).arg(strip->width()).arg(strip->height())));   // whole, not under an edge
        lowest = std::max(lowest, inStrip.bottom());
    }
    QVERIFY(lowest > tiles.first()->height());   // some on the second row
    // The Live tab is short here too, and tight (issue 26): the outcome plot keeps room for all
    // five rate ticks (it had three in a squeezed, scrolled tab), none of them cut to "...".
    const QStringList cut = cutChartTexts(&window);
    QVERIFY2(cut.isEmpty(), qPrintable(cut.join(u"; "_s)));
    QCOMPARE(window.outcomeChart()->rateTickCount(), OutcomeChart::kRateTicks);
    window.resize(1900, 1000);
    QCoreApplication::processEvents();
    QTRY_COMPARE(window.figures()->rows(), 1);
}

void TestOutageView::atLaptopSize_noTextIsCut_andNothingScrollsSideways()
{
    ProxyHarness harness;
    DashboardModel model;
    DashboardWindow window(&model);
    DemoController demo(&model, harness.port(), harness.mock(), harness.config());
    window.setDemoController(&demo);
    window.setProxyInfo(u"http://127.0.0.1:41435/v1"_s, true);
    window.setUpstreamUrl(u"openai"_s, u"http://127.0.0.1:44457/v1"_s);
    window.setUpstreamUrl(u"anthropic"_s, u"http://127.0.0.1:44457"_s);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QCOMPARE(window.size(), DashboardWindow::defaultSize(window.screen()->availableGeometry()));
    QCOMPARE(window.screen()->geometry().size(), QSize(1366, 768));

    // The worst moment of an outage: the breaker open after a failed trial, its reason long, and
    // the demo's summary with every part, on every tab.
    feed(model, recording());
    for (const char *ending : {"upstream_error", "breaker_refused", "client_closed"}) {
        CallRecord r = record(QByteArray("long-") + ending, Outcome::Miss, T + 40'000, T + 43'011, 503);
        r.model = u"claude-3-5-sonnet-20241022"_s;
        r.upstream = "anthropic";
        r.costUsd = 0.00001;   // "<$0.0001" spent, the widest money figure
        r.route = "/v1/messages/count_tokens";
        if (QByteArray(ending) == "breaker_refused")
            r.outcome = Outcome::BreakerRefused;
        else if (QByteArray(ending) == "client_closed")
            r.errorKind = "client_closed";
        model.addRecord(r);
    }
    ProxySnapshot s = snapshot(T + 45'000, BreakerState::Open, 3, 2);
    s.upstreams[0].protocol = "HTTP/1.1";
    s.upstreams[0].failureThreshold = 5;
    s.upstreams[0].consecutiveFailures = 16;
    s.upstreams[0].cooldownLeftMs = 52'910;
    s.upstreams[0].lastProbeAtMs = T + 40'000;
    s.upstreams[0].lastProbeResult = u"200"_s;
    s.upstreams[0].lastProbeAlive = true;
    s.upstreams[0].lastFailure = u"stuck: no byte for 5.003 s after a timeout"_s;
    s.upstreams[0].lastFailureAtMs = T + 44'000;
    s.upstreams[1].failureThreshold = 5;
    s.sharedState = "shared";   // and a fleet, so its tab is checked too
    s.fleet = fleet(3);
    s.fleet.instances[2].label = u"ci-runner-with-a-long-host-name.build.example.internal:41437"_s;
    model.setSnapshot(s);
    Q_EMIT demo.statusChanged(u"Outage: 1275 requests, 1248 upstream calls; 1048 miss, 200 joined, 27 refused; "
                              "status 943× 200, 32× 503, 300× 504; 10 without an answer; slowest 30011 ms"_s);
    window.setClock([] { return T + 45'000; });
    window.redraw();
    for (int tab = 0; tab < window.tabs()->count(); ++tab) {
        window.tabs()->setCurrentIndex(tab);
        window.redraw();
        QCoreApplication::processEvents();
        const QStringList cut = cutTexts(&window);
        QVERIFY2(cut.isEmpty(), qPrintable(window.tabs()->tabText(tab) + u": "_s + cut.join(u"; "_s)));
    }
    // What was left out of a line is in its tool tip, and the line says the state and the time.
    const QString whole = window.proxyPanel()->upstreamText(u"openai"_s);
    QVERIFY2(whole.contains(u"stuck: no byte for 5.003 s after a timeout"_s), qPrintable(whole));
    window.tabs()->setCurrentWidget(window.requests());
    window.redraw();
    auto *view = window.requests()->findChild<QTableView *>();
    QVERIFY(!view->horizontalScrollBar()->isVisible());
    const QStringList cells = cutCells(view);
    QVERIFY2(cells.isEmpty(), qPrintable(cells.join(u"; "_s)));
    for (const int column : {RequestTableModel::Arrival, RequestTableModel::OutcomeColumn, RequestTableModel::Status,
                             RequestTableModel::Ended, RequestTableModel::Model})
        QVERIFY2(!view->isColumnHidden(column), qPrintable(QString::number(column)));
}

void TestOutageView::outcomes_axesReadAcross_ticksOnRoundTimes_legendSaysUnits()
{
    // A herd of 100 in one second, then an outage's refusals every 2 s: two rate axes.
    DashboardModel model;
    for (int i = 0; i < 100; ++i)
        model.addRecord(record("h" + QByteArray::number(i), Outcome::Joined, T + 1000, T + 1500));
    for (int i = 0; i < 15; ++i)
        model.addRecord(record("r" + QByteArray::number(i), Outcome::BreakerRefused, T + 20'000 + i * 2000,
                               T + 20'001 + i * 2000, 503));
    OutcomeChart chart;
    chart.resize(420, 300);
    chart.show();
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    chart.refresh(model, T, T + 60'000);
    QVERIFY(chart.failureAxisShown());

    // Both axes have the same ticks from 0, each a round step: a gridline has one value on each side.
    const QList<double> left = chart.rateTicks(false), right = chart.rateTicks(true);
    QCOMPARE(left.size(), OutcomeChart::kRateTicks);   // room for five
    QCOMPARE(right.size(), left.size());
    QCOMPARE(left.first(), 0.0);
    QCOMPARE(right.first(), 0.0);
    QVERIFY2(left.last() >= chart.peakRate() && right.last() >= chart.peakFailureRate(),
             qPrintable(u"%1 %2"_s.arg(left.last()).arg(right.last())));
    for (const double step : {left[1], right[1]}) {
        const double mantissa = step / std::pow(10.0, std::floor(std::log10(step)));
        QVERIFY2(QList<double>({1, 2, 2.5, 3, 4, 5, 8}).contains(std::round(mantissa * 10) / 10), qPrintable(QString::number(step)));
    }

    // Clock labels on round seconds (a minute's window: every 10 s or more), the same ones while
    // the window moves by a second.
    const auto onRoundTimes = [](const QStringList &labels) {
        return !labels.isEmpty() && std::all_of(labels.cbegin(), labels.cend(), [](const QString &label) {
            return QTime::fromString(label, u"HH:mm:ss"_s).second() % 10 == 0;
        });
    };
    const QStringList before = chart.timeLabels();
    QVERIFY2(onRoundTimes(before), qPrintable(before.join(u' ')));
    chart.refresh(model, T + 1000, T + 61'000);
    const QStringList after = chart.timeLabels();
    QVERIFY2(onRoundTimes(after), qPrintable(after.join(u' ')));
    int kept = 0;
    for (const QString &label : before)
        kept += after.contains(label) ? 1 : 0;
    QVERIFY2(kept >= before.size() - 1, qPrintable(before.join(u' ') + u" | "_s + after.join(u' ')));

    // The axes and the legend say what and in which unit; the legend lists the failure line.
    QStringList titles;
    for (QAbstractAxis *axis : chart.chart()->axes(Qt::Vertical))
        titles << axis->titleText();
    QVERIFY2(titles.contains(u"requests/s, stacked"_s) && titles.contains(u"refused + failed/s"_s), qPrintable(titles.join(u", "_s)));
    QVERIFY(!chart.chart()->legend()->isVisible());
    QVERIFY2(chart.legend()->entries().contains(u"refused + failed (right axis, per s)"_s), qPrintable(chart.legend()->entries().join(u", "_s)));
}

void TestOutageView::staircase_captionsCountWhatIsDrawn_queueWaitIsNotInFlight()
{
    // After a restart: 454 calls from the call log, the staircase showing the newest 200.
    DashboardModel model;
    QList<CallRecord> logged;
    for (int i = 0; i < 454; ++i)
        logged.append(record("log-" + QByteArray::number(i), Outcome::Miss, T + i * 100, T + i * 100 + 80));
    model.addHistory(logged);
    LatencyStaircase view;
    view.resize(560, 900);
    view.setBarLimit(200);
    view.refresh(model, T + 60'000);
    QCOMPARE(view.barCount(), 200);
    QCOMPARE(view.drawnBarCount(), 200);
    QCOMPARE(view.sideCaption(), u"200 requests by arrival ↓"_s);
    // The note counts the bars it is about, as the axis does, not the 454 the log gave.
    QCOMPARE(view.historyNote().left(view.historyNote().indexOf(u'(')), u"200 of these from the call log "_s);

    // A herd of 200 then an outage in 300 px: the newest bars that get 3 px each, and it says so.
    DashboardModel herd;
    for (int i = 0; i < 200; ++i)
        herd.addRecord(record("h" + QByteArray::number(i), i == 0 ? Outcome::Miss : Outcome::Joined, T, T + 1500));
    for (int i = 0; i < 60; ++i)
        herd.addRecord(record("o" + QByteArray::number(i), Outcome::Miss, T + 5000 + i * 400, T + 5100 + i * 400, 503));
    view.resize(560, 300);
    view.setBarLimit(200);
    view.refresh(herd, T + 60'000);
    QCOMPARE(view.barCount(), 200);
    QVERIFY2(view.drawnBarCount() < 200 && view.drawnBarCount() >= 60, qPrintable(QString::number(view.drawnBarCount())));
    QCOMPARE(view.sideCaption(), u"newest %1 of 200 requests by arrival ↓"_s.arg(view.drawnBarCount()));
    QVERIFY(view.historyNote().isEmpty());
    QVERIFY(LatencyStaircase::queueWaitColor() != dashboardstyle::inFlightColor().lighter(130));
}

void TestOutageView::demoMenuAndSettings_sayWhatRunsNow()
{
    ProxyHarness harness;
    DashboardModel model;
    DemoController demo(&model, harness.port(), harness.mock(), harness.config());
    QMenu menu;
    demo.populate(&menu);
    // The timeout set to 3 s live (Settings): the menu says so when it next opens.
    ProxySnapshot s = snapshot(T, BreakerState::Closed, 0, 0);
    s.settings.timeout = std::chrono::milliseconds(3000);
    model.setSnapshot(s);
    Q_EMIT menu.aboutToShow();
    QStringList hangs;
    for (QAction *action : menu.actions()) {
        if (action->text().contains(u"ang:"_s))
            hangs << action->text();
    }
    QCOMPARE(hangs.size(), 2);
    for (const QString &text : hangs)
        QVERIFY2(text.contains(u"(proxy timeout 3 s"_s), qPrintable(text));

    // Settings in demo mode: the saved upstreams in the fields, and where calls go now beside them.
    SettingsDialog dialog(AppSettings::defaults(), {}, true);
    dialog.setUpstreamsInUse(u"http://127.0.0.1:44457/v1"_s, u"http://127.0.0.1:44457"_s);
    auto *inUse = dialog.findChild<QLabel *>(u"upstreamsInUse"_s);
    QVERIFY(inUse && inUse->isVisibleTo(&dialog));
    QVERIFY2(inUse->text().contains(u"http://127.0.0.1:44457/v1"_s) && inUse->text().contains(u"mock"_s), qPrintable(inUse->text()));
    SettingsDialog real(AppSettings::defaults(), {}, false);
    QVERIFY(!real.findChild<QLabel *>(u"upstreamsInUse"_s)->isVisibleTo(&real));
}

void TestOutageView::steadyLayout_nothingMovesAsCallsFaultsAndPausesCome()
{
    DashboardModel model;
    DashboardWindow window(&model);
    window.setProxyInfo(u"http://127.0.0.1:41435/v1"_s, true);
    window.setClock([] { return T + 45'000; });
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    model.setSnapshot(snapshot(T, BreakerState::Closed, 0, 0));
    window.redraw();
    QCoreApplication::processEvents();
    QVERIFY(window.gettingStarted()->isVisible());   // the first start: the guide over the Live tab

    // Where each thing a user aims at is, in the window.
    QList<QWidget *> watched{window.tabs()->tabBar(), window.proxyPanel(), window.outcomeChart(), window.breakerTimeline(),
                             window.latencyScatter(), window.staircase()};
    for (QFrame *tile : window.figures()->findChildren<QFrame *>(u"tile"_s))
        watched.append(tile);
    const auto places = [&] {
        QStringList where;
        for (int t = 0; t < window.tabs()->count(); ++t)
            where << u"tab %1 at %2, %3 wide"_s.arg(t).arg(window.tabs()->tabBar()->tabRect(t).x()).arg(window.tabs()->tabBar()->tabRect(t).width());
        for (QWidget *widget : watched)
            where << u"%1 %2,%3 %4x%5"_s.arg(QString::fromLatin1(widget->metaObject()->className()))
                         .arg(widget->mapTo(&window, QPoint()).x()).arg(widget->mapTo(&window, QPoint()).y())
                         .arg(widget->width()).arg(widget->height());
        return where;
    };
    const QStringList atStart = places();

    // The first calls (the guide goes), then a burst with long figures and failure captions,
    // then admission paused (the strip comes): nothing moves.
    feed(model, recording());
    window.redraw();
    QCoreApplication::processEvents();
    QVERIFY(!window.gettingStarted()->isVisible());
    QCOMPARE(places(), atStart);
    for (int i = 0; i < 40; ++i) {
        CallRecord r = record("burst-" + QByteArray::number(i), Outcome::Miss, T + 30'000 + i, T + 33'000 + i, i % 2 ? 504 : 529);
        r.errorKind = i % 2 ? "upstream_timeout" : QByteArray();
        r.costUsd = 1.2345;
        model.addRecord(r);
    }
    ProxySnapshot s = snapshot(T + 44'000, BreakerState::Open, 1234, 56);
    s.admissionPaused = true;
    model.setSnapshot(s);
    window.redraw();
    QCoreApplication::processEvents();
    QVERIFY2(window.faultBanner()->text().startsWith(u"Admission paused"_s), qPrintable(window.faultBanner()->text()));
    QVERIFY(wholeInWindow(window.faultBanner()));
    QCOMPARE(places(), atStart);
}
