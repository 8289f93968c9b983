// The dashboard: a recorded sequence of records, breaker transitions and snapshots is fed into the
// model and the window, and the figures, bands, transitions, staircase bars, table rows and the
// charts' pixels are checked. Also the redraw throttle, the live wiring and the tray's gating, the
// window on a 1366x768 screen, the proxy strip and first-start guidance, the money and axis
// formats, the typed CSV, stamped chart exports, Clear, Quit, and an idle window repainting nothing.
// The offscreen platform's screen is set to 1366x768 here (main), the laptop the window must fit.

#include "breakertimeline.h"
#include "dashboardmodel.h"
#include "dashboardstyle.h"
#include "dashboardwindow.h"
#include "desktopapp.h"
#include "figurespanel.h"
#include "gettingstarted.h"
#include "latencyscatter.h"
#include "latencystaircase.h"
#include "outcomechart.h"
#include "proxyharness.h"
#include "proxypanel.h"
#include "requestpanel.h"
#include "requesttablemodel.h"
#include "traycontroller.h"

#include <QAbstractScrollArea>
#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QDir>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>
#include <QPushButton>
#include <QScreen>
#include <QSettings>
#include <QStatusBar>
#include <QSystemTrayIcon>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QValueAxis>

using namespace Qt::StringLiterals;

namespace {

constexpr qint64 T = 1'800'000'000'000;   // the recording's start (wall ms)

CallRecord record(const QByteArray &id, Outcome outcome, qint64 receivedAt, qint64 endAt, int status = 200)
{
    CallRecord r;
    r.requestId = id;
    r.route = "/v1/chat/completions";
    r.upstream = "openai";
    r.model = u"gpt-4o-mini"_s;
    r.keyFingerprint = "a1b2c3d4e5f6";
    r.credentialFingerprint = "0f1e2d3c4b5a";
    r.outcome = outcome;
    r.status = status;
    r.breakerState = "closed";
    r.receivedAtMs = receivedAt;
    r.endAtMs = endAt;
    if (outcome == Outcome::Miss || outcome == Outcome::Bypass) {
        r.upstreamStartAtMs = receivedAt + 2;
        r.firstByteAtMs = endAt - 10;
        r.costUsd = 0.002;
        r.inputTokens = 12;
        r.outputTokens = 30;
    } else if (outcome == Outcome::Joined || outcome == Outcome::Hit) {
        r.costSavedUsd = 0.002;
    }
    return r;
}

BreakerTransition transition(qint64 at, BreakerState from, BreakerState to, const QString &reason)
{
    return {u"openai"_s, at, from, to, reason};
}

ProxySnapshot snapshot(qint64 at, BreakerState openaiState, int running, int queued)
{
    ProxySnapshot s;
    s.atMs = at;
    s.upstreams = {{"openai", openaiState, running, queued, 64}, {"anthropic", BreakerState::Closed, 0, 0, 64}};
    return s;
}

// The recorded sequence: a herd (1 miss + 9 joined), 3 hits, 1 bypass, an outage (5 upstream 503s,
// the breaker opens, 4 refusals, a probe, a trial that closes it) and one request after it.
struct Recording
{
    QList<CallRecord> records;
    QList<BreakerTransition> transitions;
};

Recording recording()
{
    Recording rec;
    rec.records.append(record("herd-0", Outcome::Miss, T + 1000, T + 2500));
    for (int i = 1; i < 10; ++i)
        rec.records.append(record("herd-" + QByteArray::number(i), Outcome::Joined, T + 1000 + i * 5, T + 2502));
    for (int i = 0; i < 3; ++i)
        rec.records.append(record("hit-" + QByteArray::number(i), Outcome::Hit, T + 3000 + i * 100, T + 3001 + i * 100));
    rec.records.append(record("bypass-0", Outcome::Bypass, T + 4000, T + 4400));
    for (int i = 0; i < 5; ++i)
        rec.records.append(record("fail-" + QByteArray::number(i), Outcome::Miss, T + 6000 + i * 800, T + 6400 + i * 800, 503));
    rec.transitions.append(transition(T + 9600, BreakerState::Closed, BreakerState::Open,
                                      u"5 consecutive failures (last: 503)"_s));
    for (int i = 0; i < 4; ++i)
        rec.records.append(record("refused-" + QByteArray::number(i), Outcome::BreakerRefused, T + 11000 + i * 2000,
                                  T + 11001 + i * 2000, 503));
    rec.transitions.append(transition(T + 20000, BreakerState::Open, BreakerState::HalfOpen, u"probe succeeded"_s));
    rec.transitions.append(transition(T + 21000, BreakerState::HalfOpen, BreakerState::Closed, u"trial succeeded"_s));
    rec.records.append(record("after-0", Outcome::Miss, T + 20500, T + 21000));
    return rec;
}

void feed(DashboardModel &model, const Recording &rec)
{
    model.setSnapshot(snapshot(T, BreakerState::Closed, 0, 0));
    // Interleave as the proxy would publish them: in order of time.
    qsizetype t = 0;
    for (const CallRecord &r : rec.records) {
        while (t < rec.transitions.size() && rec.transitions[t].atMs <= r.endAtMs)
            model.addTransition(rec.transitions[t++]);
        model.addRecord(r);
    }
    while (t < rec.transitions.size())
        model.addTransition(rec.transitions[t++]);
    model.setSnapshot(snapshot(T + 25000, BreakerState::Closed, 3, 2));
}

bool containsColour(const QImage &image, const QColor &colour, int tolerance = 8)
{
    const QImage rgb = image.convertToFormat(QImage::Format_RGB32);
    for (int y = 0; y < rgb.height(); ++y) {
        const auto *line = reinterpret_cast<const QRgb *>(rgb.constScanLine(y));
        for (int x = 0; x < rgb.width(); ++x) {
            if (std::abs(qRed(line[x]) - colour.red()) <= tolerance && std::abs(qGreen(line[x]) - colour.green()) <= tolerance
                && std::abs(qBlue(line[x]) - colour.blue()) <= tolerance)
                return true;
        }
    }
    return false;
}

bool singleColour(const QImage &image)
{
    const QImage rgb = image.convertToFormat(QImage::Format_RGB32);
    const QRgb first = rgb.pixel(0, 0);
    for (int y = 0; y < rgb.height(); ++y) {
        for (int x = 0; x < rgb.width(); ++x) {
            if (rgb.pixel(x, y) != first)
                return false;
        }
    }
    return true;
}

// Counts the paint events of the widgets it watches.
class PaintCounter final : public QObject
{
public:
    explicit PaintCounter(QList<QWidget *> widgets)
    {
        for (QWidget *widget : widgets)
            widget->installEventFilter(this);
    }
    int paints = 0;

protected:
    bool eventFilter(QObject *watched, QEvent *event) override
    {
        if (event->type() == QEvent::Paint)
            ++paints;
        return QObject::eventFilter(watched, event);
    }
};

// Whole inside its window: shown, not clipped by a scroll area or the window's edge.
bool wholeInWindow(const QWidget *widget)
{
    if (!widget || !widget->isVisible())
        return false;
    if (const auto *view = qobject_cast<const QAbstractScrollArea *>(widget))
        widget = view->viewport();   // a chart view is covered by its viewport, which paints
    const QRect inWindow(widget->mapTo(widget->window(), QPoint(0, 0)), widget->size());
    return widget->window()->rect().contains(inWindow) && widget->visibleRegion().boundingRect() == widget->rect();
}

// Answers the next message box with the button whose text is `answer`, once it is up.
void answerMessageBox(const QString &answer)
{
    auto *poll = new QTimer;
    QObject::connect(poll, &QTimer::timeout, poll, [poll, answer] {
        auto *box = qobject_cast<QMessageBox *>(QApplication::activeModalWidget());
        if (!box)
            return;
        for (QAbstractButton *button : box->buttons()) {
            if (button->text() == answer)
                button->click();
        }
        poll->deleteLater();
    });
    poll->start(10);
}

} // namespace

class TestDashboard final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void model_countsFiguresFromRecords();
    void model_bandsAndTransitionsFollowTheBreaker();
    void model_boundsRecordsAndBuckets();
    void window_showsTheRecordedSequence();
    void window_chartsArePaintedNotBlank();
    void staircase_wallStaircaseAndHerdShapes();
    void table_filtersSelectsAndExports();
    void window_clearStartsAfresh();
    void window_redrawsAtMostTenTimesASecond();
    void window_followsALiveProxyQueued();
    void tray_gatedOnAvailability();
    void window_fitsALaptopScreen();
    void window_remembersItsGeometry();
    void proxyPanel_showsListenUrlAndUpstreamHealth();
    void gettingStarted_namesTheActualPort();
    void formats_oneMoneyRuleAndExactAxisLabels();
    void table_csvIsTyped();
    void exportCharts_neverOverwrites();
    void clear_resetsTheBreakerTimelineAndStatusBar();
    void quit_ctrlQInWindowAndTray();
    void close_withoutTray_asksFirst();
    void window_idleRepaintsNothing();
};

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

void TestDashboard::window_chartsArePaintedNotBlank()
{
    DashboardModel model;
    DashboardWindow window(&model);
    window.setClock([] { return T + 30000; });
    window.setWindowMs(60'000);
    window.resize(1400, 900);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    feed(model, recording());
    window.redraw();

    QTemporaryDir out;
    QString error;
    QStringList written;
    QVERIFY2(window.exportCharts(out.path(), &error, &written), qPrintable(error));
    QCOMPARE(written.size(), 5);
    // outcomes-20270115-080030.png and so on: the file of each chart by its name's start.
    const auto exported = [&](const QString &file) {
        const QString prefix = file.chopped(4) + u'-';
        for (const QString &path : std::as_const(written)) {
            if (QFileInfo(path).fileName().startsWith(prefix))
                return path;
        }
        return QString();
    };
    const auto miss = dashboardstyle::outcomeColor(DashboardModel::Category::Miss);
    const auto refused = dashboardstyle::outcomeColor(DashboardModel::Category::Refused);
    struct Expectation { QString file; QList<QColor> colours; };
    const QList<Expectation> expectations{
        {u"outcomes.png"_s, {miss, refused, dashboardstyle::outcomeColor(DashboardModel::Category::Hit)}},
        {u"breakers.png"_s, {dashboardstyle::breakerColor(BreakerState::Closed),
                             dashboardstyle::breakerColor(BreakerState::Open),
                             dashboardstyle::breakerColor(BreakerState::HalfOpen)}},
        {u"staircase.png"_s, {miss, refused}},
        {u"latency.png"_s, {miss}},
        {u"dashboard.png"_s, {miss}},
    };
    for (const Expectation &expectation : expectations) {
        const QImage image(exported(expectation.file));
        QVERIFY2(!image.isNull(), qPrintable(expectation.file));
        QVERIFY2(image.width() > 100 && image.height() > 50, qPrintable(expectation.file));
        QVERIFY2(!singleColour(image), qPrintable(expectation.file));
        for (const QColor &colour : expectation.colours)
            QVERIFY2(containsColour(image, colour), qPrintable(expectation.file + u" lacks "_s + colour.name()));
    }

    // The breaker timeline explains each transition on hover.
    BreakerTimeline *timeline = window.breakerTimeline();
    const QRect plot(92, 8, timeline->width() - 92 - 12, 26);
    const int x = plot.left() + int(double(9600 + 30000) * plot.width() / 60000.0);   // window starts at T-30 s
    const QString tip = timeline->toolTipAt(QPoint(x, plot.center().y()));
    QVERIFY2(tip.contains(u"5 consecutive failures"_s), qPrintable(tip));
    QVERIFY(timeline->toolTipAt(QPoint(plot.right() - 2, plot.center().y())).contains(u"closed"_s));
}

void TestDashboard::staircase_wallStaircaseAndHerdShapes()
{
    // Twenty prompts served in parallel: every bar spans the same time (a wall).
    DashboardModel wall;
    for (int i = 0; i < 20; ++i)
        wall.addRecord(record("w" + QByteArray::number(i), Outcome::Miss, T + i, T + 1500 + i));
    // Served one at a time: each waits in the queue for the one before (a staircase).
    DashboardModel stairs;
    for (int i = 0; i < 20; ++i) {
        CallRecord r = record("s" + QByteArray::number(i), Outcome::Miss, T + i, T + 1500 * (i + 1));
        r.queueWaitMs = 1500 * i;
        r.upstreamStartAtMs = T + 1500 * i;
        stairs.addRecord(r);
    }
    LatencyStaircase view;
    view.resize(600, 500);
    view.refresh(wall);
    QCOMPARE(view.barCount(), 20);
    const QImage wallImage = view.grab().toImage();
    view.refresh(stairs);
    QCOMPARE(view.barCount(), 20);
    const QImage stairsImage = view.grab().toImage();
    // The staircase's queue waits are drawn hatched on a light tint; the wall has none.
    const QColor queueTint = dashboardstyle::outcomeColor(Outcome::Miss).lighter(160);
    QVERIFY(containsColour(stairsImage, queueTint, 4));
    QVERIFY(!containsColour(wallImage, queueTint, 4));
    // The last stair (rows are 18 px from y = 46) waited 28.5 s in the queue and ended 30 s after the first.
    const QString tip = view.toolTipAt(QPoint(100, 46 + 19 * 18 + 9));
    QVERIFY2(tip.startsWith(u"#20 "_s) && tip.contains(u"queue wait 28.50 s"_s) && tip.contains(u"total 29.98 s"_s),
             qPrintable(tip));
    view.setBarLimit(5);
    view.refresh(stairs);
    QCOMPARE(view.barCount(), 5);
    QCOMPARE(view.barRequestIds().first(), "s15");
}

void TestDashboard::table_filtersSelectsAndExports()
{
    DashboardModel model;
    RequestPanel panel;
    feed(model, recording());
    panel.refresh(model);
    QCOMPARE(panel.totalRowCount(), 24);
    panel.setOutcomeFilter(u"joined"_s);
    QCOMPARE(panel.rowCount(), 9);
    panel.setOutcomeFilter(QString());
    panel.setStatusFilter(u"5xx"_s);
    QCOMPARE(panel.rowCount(), 9);   // 5 upstream 503s + 4 refusals
    panel.setStatusFilter(u"503"_s);
    QCOMPARE(panel.rowCount(), 9);
    panel.setOutcomeFilter(u"miss"_s);
    QCOMPARE(panel.rowCount(), 5);
    panel.setModelFilter(u"gpt-4o-mini"_s);
    QCOMPARE(panel.rowCount(), 5);

    panel.selectRow(0);
    const QString details = panel.detailsText();
    QVERIFY2(details.contains(u"a1b2c3d4e5f6"_s), qPrintable(details));   // key fingerprint
    QVERIFY(details.contains(u"outcome"_s) && details.contains(u"miss"_s));
    QVERIFY(details.contains(u"tokens"_s) && details.contains(u"in 12, out 30"_s));
    QVERIFY(details.contains(u"$0.0020"_s));
    QVERIFY(!details.contains(u"sk-"_s));

    const QStringList lines = panel.toCsv().split(u"\r\n"_s, Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 1 + 5);
    QVERIFY(lines.first().startsWith(u"arrival,outcome,status"_s));
    QTemporaryDir dir;
    QString error;
    QVERIFY(panel.exportCsv(dir.filePath(u"t.csv"_s), &error));
    QFile file(dir.filePath(u"t.csv"_s));
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(file.readAll().count("\r\n"), 6);

    // Rows from the call log fill the table and, as every other view, the figures.
    DashboardModel withHistory;
    withHistory.addHistory({record("old-0", Outcome::Miss, T - 5000, T - 4000), record("old-1", Outcome::Hit, T - 3000, T - 2999)});
    withHistory.addRecord(record("now-0", Outcome::Miss, T, T + 500));
    RequestPanel historyPanel;
    historyPanel.refresh(withHistory);
    QCOMPARE(historyPanel.totalRowCount(), 3);
    QCOMPARE(withHistory.totals().requests, 3);

    // New records arrive on top and the table stays bounded.
    panel.setOutcomeFilter(QString());
    panel.setStatusFilter(QString());
    for (int i = 0; i < 3000; ++i)
        model.addRecord(record("more" + QByteArray::number(i), Outcome::Hit, T + 40000 + i, T + 40001 + i));
    panel.refresh(model);
    QCOMPARE(panel.totalRowCount(), 2000);
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

void TestDashboard::window_fitsALaptopScreen()
{
    QScreen *screen = QGuiApplication::primaryScreen();
    QCOMPARE(screen->availableGeometry().size(), QSize(1366, 768));   // main() set it up
    DashboardModel model;
    DashboardWindow window(&model);
    window.setProxyInfo(u"http://127.0.0.1:8080/v1"_s, true);
    window.setClock([] { return T + 30000; });
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    feed(model, recording());
    window.redraw();
    QApplication::processEvents();   // the layout settles

    QVERIFY2(screen->availableGeometry().contains(window.frameGeometry()),
             qPrintable(u"frame %1x%2"_s.arg(window.frameGeometry().width()).arg(window.frameGeometry().height())));
    const QSize minimum = window.minimumSizeHint().expandedTo(window.minimumSize());
    QVERIFY2(minimum.width() <= 1000 && minimum.height() <= 600,
             qPrintable(u"minimum %1x%2"_s.arg(minimum.width()).arg(minimum.height())));

    // Each thing a user looks for is whole on screen: both breaker tiles, the staircase's range,
    // the status bar's info and the listen address.
    const QList<QLabel *> labels = window.figures()->findChildren<QLabel *>();
    for (const QString &caption : {u"openai breaker"_s, u"anthropic breaker"_s}) {
        const auto it = std::find_if(labels.cbegin(), labels.cend(), [&](const QLabel *l) { return l->text() == caption; });
        QVERIFY2(it != labels.cend(), qPrintable(caption));
        QVERIFY2(wholeInWindow((*it)->parentWidget()), qPrintable(caption));
    }
    QVERIFY(wholeInWindow(window.staircaseRangeChoice()));
    QVERIFY(wholeInWindow(window.statusInfo()));
    QVERIFY(wholeInWindow(window.proxyPanel()));
    // The charts too, without scrolling the Live tab.
    for (QWidget *chart : std::initializer_list<QWidget *>{window.outcomeChart(), window.breakerTimeline(),
                                                           window.latencyScatter(), window.staircase()})
        QVERIFY2(wholeInWindow(chart), chart->metaObject()->className());

    // The default size follows the screen: a 4K screen at scale 2 is 1920x1080 device-independent.
    QVERIFY(QRect(0, 0, 1920, 1080).contains(QRect(QPoint(), DashboardWindow::defaultSize(QRect(0, 0, 1920, 1080)))));
    QCOMPARE(DashboardWindow::defaultSize(QRect(0, 0, 3840, 2160)), QSize(1600, 1000));
}

void TestDashboard::window_remembersItsGeometry()
{
    QTemporaryDir dir;
    QSettings settings(dir.filePath(u"s.ini"_s), QSettings::IniFormat);
    DashboardModel model;
    {
        DashboardWindow window(&model);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.setGeometry(40, 30, 1100, 640);
        window.saveGeometryTo(settings);
    }
    DashboardWindow again(&model);
    QVERIFY(again.size() != QSize(1100, 640));
    again.restoreGeometryFrom(settings);
    QCOMPARE(again.size(), QSize(1100, 640));
    QCOMPARE(again.pos(), QPoint(40, 30));
}

void TestDashboard::proxyPanel_showsListenUrlAndUpstreamHealth()
{
    DashboardModel model;
    DashboardWindow window(&model);
    window.setProxyInfo(u"http://127.0.0.1:54321/v1"_s, false);
    window.setUpstreamUrl(u"openai"_s, u"https://api.openai.com/v1"_s);
    window.setUpstreamUrl(u"anthropic"_s, u"http://10.0.0.7:9000"_s);
    ProxySnapshot s = snapshot(T, BreakerState::Closed, 0, 0);
    s.upstreams[0].consecutiveFailures = 3;
    s.upstreams[0].failureThreshold = 5;
    s.upstreams[0].lastFailure = u"503"_s;
    s.upstreams[0].lastFailureAtMs = T - 2000;
    s.upstreams[1].failureThreshold = 5;
    model.setSnapshot(s);
    window.redraw();
    QCOMPARE(window.proxyPanel()->listenUrl(), u"http://127.0.0.1:54321/v1"_s);
    const QString openai = window.proxyPanel()->upstreamText(u"openai"_s);
    QVERIFY2(openai.contains(u"https://api.openai.com/v1"_s) && openai.contains(u"closed"_s)
                 && openai.contains(u"3 of 5 failures"_s) && openai.contains(u"last error 503 at"_s),
             qPrintable(openai));
    const QString anthropic = window.proxyPanel()->upstreamText(u"anthropic"_s);
    QVERIFY2(anthropic.contains(u"http://10.0.0.7:9000"_s) && anthropic.contains(u"no errors"_s), qPrintable(anthropic));

    // Open: the cool-down left is shown.
    s.upstreams[0].breakerState = BreakerState::Open;
    s.upstreams[0].consecutiveFailures = 5;
    s.upstreams[0].cooldownLeftMs = 12'000;
    model.setSnapshot(s);
    window.redraw();
    const QString open = window.proxyPanel()->upstreamText(u"openai"_s);
    QVERIFY2(open.contains(u"open"_s) && open.contains(u"cool-down 12.00 s left"_s), qPrintable(open));

    // From a real proxy: the snapshot carries the breaker's threshold and failures.
    ProxyHarness harness([](ProxyConfig &config) { config.breakerFailures = 4; });
    DashboardModel live;
    connectProxyToModel(harness.proxy(), &live);
    QTRY_VERIFY(live.snapshot().upstreams.size() == 2);
    QCOMPARE(live.snapshot().upstreams[0].failureThreshold, 4);
    QCOMPARE(live.snapshot().upstreams[0].consecutiveFailures, 0);
    QVERIFY(live.snapshot().upstreams[0].lastFailure.isEmpty());
}

void TestDashboard::gettingStarted_namesTheActualPort()
{
    ProxyHarness harness;   // listens on port 0: only the running proxy knows its port
    const QString port = QString::number(harness.port());
    DashboardModel model;
    DashboardWindow window(&model);
    window.setProxyInfo(harness.proxy()->baseUrl(), false);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.redraw();
    GettingStarted *guide = window.gettingStarted();
    QVERIFY(guide->isVisible());
    const QString text = guide->text();
    QVERIFY2(text.contains(u"export OPENAI_BASE_URL=http://127.0.0.1:%1/v1"_s.arg(port)), qPrintable(text));
    QVERIFY2(text.contains(u"export ANTHROPIC_BASE_URL=http://127.0.0.1:%1\n"_s.arg(port)), qPrintable(text));

    auto *copy = guide->findChild<QPushButton *>(u"copyAnthropic"_s);
    QVERIFY(copy);
    copy->click();
    QCOMPARE(QApplication::clipboard()->text(), u"export ANTHROPIC_BASE_URL=http://127.0.0.1:%1"_s.arg(port));
    guide->findChild<QPushButton *>(u"copyOpenai"_s)->click();
    QCOMPARE(QApplication::clipboard()->text(), u"export OPENAI_BASE_URL=http://127.0.0.1:%1/v1"_s.arg(port));

    // The first call puts the charts in its place.
    model.addRecord(record("first", Outcome::Miss, T, T + 400));
    window.redraw();
    QVERIFY(!guide->isVisible());
}

void TestDashboard::formats_oneMoneyRuleAndExactAxisLabels()
{
    using dashboardstyle::formatUsd;
    QCOMPARE(formatUsd(0.0012), u"$0.0012"_s);
    QCOMPARE(formatUsd(0), u"$0.0000"_s);
    QCOMPARE(formatUsd(0.000001), u"<$0.0001"_s);
    QCOMPARE(formatUsd(12.5), u"$12.5000"_s);
    QCOMPARE(formatUsd(0.5, false), u"–"_s);
    // The table and the details use the same rule, unknown included.
    RequestTableModel table;
    DashboardModel model;
    CallRecord unknown = record("u", Outcome::Miss, T, T + 100);
    unknown.costUsd = -1;
    model.addRecord(record("k", Outcome::Miss, T, T + 100));
    model.addRecord(unknown);
    table.syncFrom(model);
    QCOMPARE(table.index(0, RequestTableModel::Cost).data().toString(), u"–"_s);
    QCOMPARE(table.index(1, RequestTableModel::Cost).data().toString(), u"$0.0020"_s);

    QCOMPARE(dashboardstyle::decimalsForStep(0.25), 2);
    QCOMPARE(dashboardstyle::decimalsForStep(0.5), 1);
    QCOMPARE(dashboardstyle::decimalsForStep(2), 0);
    QCOMPARE(dashboardstyle::decimalsForStep(0.125), 3);
    // The latency axis opens at 0..1 s in 0.25 s steps: "0.25", never "0.3".
    LatencyScatter scatter;
    auto *axis = qobject_cast<QValueAxis *>(scatter.chart()->axes(Qt::Vertical).value(0));
    QVERIFY(axis);
    QCOMPARE(axis->tickCount(), 5);
    QCOMPARE(QString::asprintf(qPrintable(axis->labelFormat()), 0.25), u"0.25"_s);
    DashboardModel slow;
    slow.addRecord(record("slow", Outcome::Miss, T, T + 2100));
    scatter.refresh(slow, T - 1000, T + 60'000);
    const double step = (axis->max() - axis->min()) / (axis->tickCount() - 1);
    for (int i = 0; i < axis->tickCount(); ++i) {
        const double tick = axis->min() + i * step;
        QCOMPARE(QString::asprintf(qPrintable(axis->labelFormat()), tick).toDouble(), tick);
    }
}

void TestDashboard::table_csvIsTyped()
{
    DashboardModel model;
    RequestPanel panel;
    CallRecord timedOut = record("t-1", Outcome::Error, T + 1000, T + 61'000, 504);
    timedOut.errorKind = "timeout";
    CallRecord cheap = record("c-1", Outcome::Miss, T, T + 400);
    cheap.costUsd = 0.000001;
    cheap.cachedTokens = 4;
    model.addRecord(cheap);
    model.addRecord(timedOut);
    panel.refresh(model);
    const QStringList lines = panel.toCsv().split(u"\r\n"_s, Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 3);
    const QStringList header = lines[0].split(u',');
    for (const QString &column : {u"arrival"_s, u"error"_s, u"input_tokens"_s, u"output_tokens"_s,
                                  u"cached_tokens"_s, u"cost_usd"_s, u"total_ms"_s})
        QVERIFY2(header.contains(column), qPrintable(column));
    const auto row = [&](const QByteArray &id) {
        for (const QString &line : lines) {
            const QStringList fields = line.split(u',');
            if (fields.last() == QString::fromLatin1(id))
                return fields;
        }
        return QStringList();
    };
    const auto field = [&](const QStringList &fields, const QString &column) { return fields.value(header.indexOf(column)); };
    const QStringList c = row("c-1");
    const QDateTime arrival = QDateTime::fromString(field(c, u"arrival"_s), Qt::ISODateWithMs);
    QVERIFY2(arrival.isValid(), qPrintable(field(c, u"arrival"_s)));
    QCOMPARE(arrival.toMSecsSinceEpoch(), T);   // with the date and the UTC offset: one instant
    QVERIFY(field(c, u"arrival"_s).contains(u'T'));
    QCOMPARE(field(c, u"cost_usd"_s), u"0.000001"_s);   // a number, no "$", no exponent
    QCOMPARE(field(c, u"input_tokens"_s), u"12"_s);
    QCOMPARE(field(c, u"output_tokens"_s), u"30"_s);
    QCOMPARE(field(c, u"cached_tokens"_s), u"4"_s);
    QCOMPARE(field(c, u"total_ms"_s), u"400"_s);
    const QStringList t = row("t-1");
    QCOMPARE(field(t, u"error"_s), u"timeout"_s);
    QCOMPARE(field(t, u"status"_s), u"504"_s);
    QCOMPARE(field(t, u"cost_usd"_s), QString());   // unknown: empty, not "–"
    QCOMPARE(field(t, u"input_tokens"_s), QString());

    // The window says where the file went and how many rows it holds.
    DashboardWindow window(&model);
    window.redraw();
    QTemporaryDir dir;
    const QString path = dir.filePath(u"calls.csv"_s);
    QVERIFY(window.exportTable(path));
    const QString message = window.statusBar()->currentMessage();
    QVERIFY2(message.contains(u"2 rows"_s) && message.contains(QDir::toNativeSeparators(path)), qPrintable(message));
}

void TestDashboard::exportCharts_neverOverwrites()
{
    DashboardModel model;
    DashboardWindow window(&model);
    window.setClock([] { return T; });
    feed(model, recording());
    window.redraw();
    QTemporaryDir out;
    QString error;
    QStringList first;
    QStringList second;
    QVERIFY(window.exportCharts(out.path(), &error, &first));
    QVERIFY(window.exportCharts(out.path(), &error, &second));   // the same second
    QCOMPARE(QDir(out.path()).entryList(QDir::Files).size(), 10);
    const QString stamp = QDateTime::fromMSecsSinceEpoch(T).toString(u"yyyyMMdd-HHmmss"_s);
    QVERIFY2(QFileInfo(first.first()).fileName() == u"outcomes-%1.png"_s.arg(stamp), qPrintable(first.first()));
    QVERIFY2(QFileInfo(second.first()).fileName() == u"outcomes-%1-2.png"_s.arg(stamp), qPrintable(second.first()));
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
    window.redraw();
    const int settled = window.tickCount();
    QTRY_VERIFY(window.tickCount() >= settled + 2);   // anything pending is painted

    PaintCounter charts({window.outcomeChart()->viewport(), window.breakerTimeline(),
                         window.latencyScatter()->viewport(), window.staircase()});
    const int redrawsBefore = window.redrawCount();
    // Snapshots go on arriving four times a second while nothing happens.
    for (int tick = 0; tick < 10; ++tick) {
        now += DashboardWindow::kRedrawIntervalMs;
        model.setSnapshot(snapshot(now, BreakerState::Closed, 0, 0));
        const int seen = window.tickCount();
        QTRY_VERIFY(window.tickCount() > seen);
    }
    QVERIFY(window.redrawCount() > redrawsBefore);   // the timer ran and looked...
    QCOMPARE(charts.paints, 0);                      // ... and painted nothing

    // A call: the charts show it.
    model.addRecord(record("new", Outcome::Miss, now - 500, now));
    QTRY_VERIFY(charts.paints > 0);
}


int main(int argc, char *argv[])
{
    // The laptop screen the window must fit (the offscreen platform's own screen is 800x600).
    QTemporaryDir configDir;
    if (qgetenv("QT_QPA_PLATFORM") == "offscreen") {
        QFile config(configDir.filePath(u"screens.json"_s));
        if (config.open(QIODevice::WriteOnly)) {
            config.write(R"({"screens": [{"name": "laptop", "x": 0, "y": 0, "width": 1366, "height": 768,
                             "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1}]})");
            config.close();
            qputenv("QT_QPA_PLATFORM", "offscreen:configfile=" + config.fileName().toLocal8Bit());
        }
    }
    QApplication app(argc, argv);
    TestDashboard test;
    return QTest::qExec(&test, argc, argv);
}

#include "tst_dashboard.moc"
