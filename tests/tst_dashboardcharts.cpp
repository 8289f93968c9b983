// The dashboard's charts: painted, not blank, in the outcome and breaker colours; the staircase's
// wall and staircase shapes and its legend, which wraps rather than cuts its last entry; the
// failures' own axis that keeps an outage's refusals readable after a herd; the money and axis
// formats; and chart exports that never overwrite. The offscreen screen is 1366x768.

#include "breakertimeline.h"
#include "chartlegend.h"
#include "dashboardfixture.h"
#include "dashboardmodel.h"
#include "dashboardstyle.h"
#include "dashboardwindow.h"
#include "latencyscatter.h"
#include "latencystaircase.h"
#include "outcomechart.h"
#include "requesttablemodel.h"

#include <QApplication>
#include <QDir>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>
#include <QValueAxis>

#include <sys/stat.h>

using namespace Qt::StringLiterals;
using namespace dashboardtest;

namespace {

// A herd of 200 in one second at T, then an outage's refusals, one every 2 s from T + 60 s to
// T + 120 s: 0.5 a second, against a stacked peak of 100 a second (2 s buckets).
DashboardModel *herdThenOutage(DashboardModel *model)
{
    model->addRecord(record("herd-0", Outcome::Miss, T, T + 1500));
    for (int i = 1; i < 200; ++i)
        model->addRecord(record("herd-" + QByteArray::number(i), Outcome::Joined, T + i * 4, T + 1502));
    for (int i = 0; i < 30; ++i)
        model->addRecord(record("refused-" + QByteArray::number(i), Outcome::BreakerRefused, T + 60'000 + i * 2000,
                                T + 60'001 + i * 2000, 503));
    return model;
}

} // namespace

class TestDashboardCharts final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void window_chartsArePaintedNotBlank();
    void staircase_wallStaircaseAndHerdShapes();
    void staircase_legendWrapsInsteadOfClipping();
    void outcomes_failuresOnTheirOwnAxisAfterAHerd();
    void outcomes_fallbacksAreABandOfTheStaircasesColour_eachRequestOnce();
    void formats_oneMoneyRuleAndExactAxisLabels();
    void exportCharts_neverOverwrites();
};

void TestDashboardCharts::window_chartsArePaintedNotBlank()
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
    const mode_t previous = ::umask(022);
    QVERIFY2(window.exportCharts(out.path(), &error, &written), qPrintable(error));
    ::umask(previous);
    QCOMPARE(written.size(), 5);
    for (const QString &path : std::as_const(written)) {   // the owner's only, as every export
        struct stat info {};
        QCOMPARE(::stat(QFile::encodeName(path).constData(), &info), 0);
        QCOMPARE(info.st_mode & 0777, mode_t(0600));
    }
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

void TestDashboardCharts::staircase_wallStaircaseAndHerdShapes()
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
    // The staircase's queue waits are drawn hatched on the legend's queue-wait grey; the wall has
    // none. Not in the call's own tint: that is the "in flight" swatch's look, for calls long ended.
    // Below the legend, which has the queue-wait swatch.
    const QColor queueTint = LatencyStaircase::queueWaitColor();
    int legendBottom = 0;
    for (const QRect &entry : view.legendRects())
        legendBottom = std::max(legendBottom, entry.bottom() + 1);
    const auto plot = [legendBottom](const QImage &image) { return image.copy(0, legendBottom, image.width(), image.height() - legendBottom); };
    QVERIFY(containsColour(plot(stairsImage), queueTint, 4));
    QVERIFY(!containsColour(plot(wallImage), queueTint, 4));
    QVERIFY(!containsColour(stairsImage, dashboardstyle::outcomeColor(Outcome::Miss).lighter(160), 4));
    // The last stair (rows are 18 px from y = 46) waited 28.5 s in the queue and ended 30 s after the first.
    const QString tip = view.toolTipAt(QPoint(100, 46 + 19 * 18 + 9));
    QVERIFY2(tip.startsWith(u"#20 "_s) && tip.contains(u"queue wait 28.50 s"_s) && tip.contains(u"total 29.98 s"_s),
             qPrintable(tip));
    view.setBarLimit(5);
    view.refresh(stairs);
    QCOMPARE(view.barCount(), 5);
    QCOMPARE(view.barRequestIds().first(), "s15");
}

void TestDashboardCharts::staircase_legendWrapsInsteadOfClipping()
{
    // A failure among the bars adds its kind to the legend's second line: at a third of a laptop's
    // width (the compact layout at 1366x768) the entries no longer fit one line each.
    DashboardModel model;
    model.addRecord(record("ok", Outcome::Miss, T, T + 400));
    CallRecord timedOut = record("t", Outcome::Miss, T + 100, T + 5100, 504);
    timedOut.errorKind = "upstream_timeout";
    model.addRecord(timedOut);
    model.addRecord(record("refused", Outcome::BreakerRefused, T + 200, T + 201, 503));
    LatencyStaircase view;
    view.refresh(model, T + 6000);
    const QStringList expected{u"miss"_s, u"joined"_s, u"hit"_s, u"bypass"_s, u"refused"_s, u"in flight"_s,
                               u"queue wait"_s, u"joined wait"_s, u"upstream"_s, u"timeout"_s};
    for (const int width : {1200, 560, 400, 360}) {
        view.resize(width, 400);
        QCOMPARE(view.legendLabels(), expected);
        const QList<QRect> rects = view.legendRects();
        QCOMPARE(rects.size(), expected.size());
        int bottom = 0;
        for (qsizetype i = 0; i < rects.size(); ++i) {
            QVERIFY2(view.rect().contains(rects[i]),
                     qPrintable(u"%1 px: \"%2\" at %3..%4"_s.arg(width).arg(expected[i]).arg(rects[i].left()).arg(rects[i].right())));
            for (qsizetype j = 0; j < i; ++j)
                QVERIFY2(!rects[i].intersects(rects[j]), qPrintable(expected[i] + u" overlaps "_s + expected[j]));
            bottom = std::max(bottom, rects[i].bottom());
        }
        // The parts of a bar start their own line, and the bars start below the whole legend.
        QVERIFY(rects[6].top() > rects[5].top());
        QVERIFY2(view.toolTipAt(QPoint(100, bottom)).isEmpty(), qPrintable(QString::number(width)));
    }
    view.resize(360, 400);
    QVERIFY(view.legendRects().last().top() > view.legendRects()[6].top());   // wrapped: a third line
    // The three bars still fit below the legend, and the first one answers its tooltip.
    const QRect first = view.legendRects().last();
    QString tip;
    for (int y = first.bottom() + 1; y < 400 && tip.isEmpty(); ++y)
        tip = view.toolTipAt(QPoint(100, y));
    QVERIFY2(tip.startsWith(u"#1 "_s), qPrintable(tip));
}

void TestDashboardCharts::outcomes_failuresOnTheirOwnAxisAfterAHerd()
{
    DashboardModel model;
    herdThenOutage(&model);
    OutcomeChart chart;
    chart.resize(600, 300);
    // The 5-minute window (2 s buckets): the herd stacks up to 100 a second.
    chart.refresh(model, T - 60'000, T + 240'000);
    QCOMPARE(chart.peakRate(), 100.0);
    // The refusals: 3 in every 6 s of the line, 0.5 a second, on an axis that goes no higher than 1.
    QCOMPARE(chart.peakFailureRate(), 0.5);
    QVERIFY(chart.failureAxisShown());
    QVERIFY2(chart.failureAxisMax() <= 1.0 && chart.failureAxisMax() >= 0.5, qPrintable(QString::number(chart.failureAxisMax())));
    const QList<QPointF> points = chart.failurePoints();
    // The step line's value at a time: the last point at or before it.
    const auto valueAt = [&points](qint64 atMs) {
        double value = -1;
        for (const QPointF &point : points) {
            if (point.x() <= double(atMs))
                value = point.y();
        }
        return value;
    };
    QCOMPARE(valueAt(T + 90'000), 0.5);   // the line is at the outage's rate through it ...
    QCOMPARE(valueAt(T + 1000), 0.0);     // ... the herd is not counted as a failure ...
    QCOMPARE(valueAt(T + 150'000), 0.0);  // ... and it falls back once the outage is over
    QVERIFY2(chart.pointCount() <= 2000, qPrintable(QString::number(chart.pointCount())));

    // 15 minutes (6 s buckets): the same rate, still at half the axis' height or more, where on the
    // stacked axis it would be a flat line.
    chart.refresh(model, T - 600'000, T + 300'000);
    QVERIFY(chart.failureAxisShown());
    QCOMPARE(chart.peakFailureRate(), 0.5);
    QVERIFY(chart.peakFailureRate() / chart.failureAxisMax() >= 0.5);
    QVERIFY(chart.peakRate() / chart.peakFailureRate() >= 50);

    // 1 minute (1 s buckets): the line keeps 6 s, so one refusal every 2 s reads as 0.5 a second,
    // not as a comb of 0s and 1s.
    chart.refresh(model, T + 50'000, T + 110'000);
    QCOMPARE(chart.peakFailureRate(), 0.5);
    const QList<QPointF> minute = chart.failurePoints();
    QVERIFY2(minute.size() <= 6, qPrintable(QString::number(minute.size())));   // up, flat, and the ends

    // The line is painted in its colour, on the right of the plot.
    const QImage image = chart.grab().toImage();
    QVERIFY(containsColour(image, OutcomeChart::failureLineColor(), 12));

    // A window without failures has no second axis.
    DashboardModel calm;
    calm.addRecord(record("m", Outcome::Miss, T, T + 400));
    chart.refresh(calm, T - 60'000, T + 240'000);
    QVERIFY(!chart.failureAxisShown());
    QCOMPARE(chart.peakFailureRate(), 0.0);
    QVERIFY(chart.failurePoints().isEmpty());
}

// Calls a fallback answered have a band of their own, in the staircase's fallback colour (one
// table), and a refused attempt beside each is no request: 4 a second stay 4 a second, not 8.
void TestDashboardCharts::outcomes_fallbacksAreABandOfTheStaircasesColour_eachRequestOnce()
{
    QCOMPARE(dashboardstyle::outcomeColor(DashboardModel::Category::Fallback), dashboardstyle::fallbackColor());
    DashboardModel model;
    for (int i = 0; i < 4; ++i) {
        const QByteArray id = "fb-" + QByteArray::number(i);
        CallRecord refused = record(id, Outcome::FellBack, T + i * 10, T + i * 10 + 50, 529);
        refused.upstream = "openai";
        refused.fallbackTo = "cloud";
        model.addRecord(refused);
        CallRecord answered = record(id, Outcome::Miss, T + i * 10, T + i * 10 + 400);
        answered.upstream = "cloud";
        answered.fallbackFrom = "openai";
        model.addRecord(answered);
    }
    model.addRecord(record("plain", Outcome::Miss, T + 100, T + 300));
    QCOMPARE(model.totals().requests, 5);
    QCOMPARE(model.totals().count(DashboardModel::Category::Fallback), 4);
    QCOMPARE(model.totals().failures(), 0);   // the refused attempts are no failed requests

    OutcomeChart chart;
    chart.resize(600, 300);
    chart.refresh(model, T - 30'000, T + 30'000);
    QCOMPARE(chart.peakRate(), 5.0);   // one second, five requests: four by the fallback, one plain
    QVERIFY2(chart.legend()->entries().contains(u"fallback"_s), qPrintable(chart.legend()->entries().join(u", ")));
    QVERIFY(containsColour(chart.grab().toImage(), dashboardstyle::fallbackColor(), 6));
}

void TestDashboardCharts::formats_oneMoneyRuleAndExactAxisLabels()
{
    using dashboardstyle::formatUsd;
    QCOMPARE(formatUsd(0.0012), u"$0.0012"_s);
    QCOMPARE(formatUsd(0), u"$0"_s);   // nothing saved is "$0", not a rounded "$0.0000"
    QCOMPARE(formatUsd(0.00004), u"<$0.0001"_s);
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
        // Single-digit labels come padded to the width of "..." (fitLabelsToTicks), the number exact.
        QCOMPARE(QString::asprintf(qPrintable(axis->labelFormat()), tick).remove(u"&nbsp;"_s).toDouble(), tick);
    }
}

void TestDashboardCharts::exportCharts_neverOverwrites()
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

DASHBOARD_TEST_MAIN(TestDashboardCharts)

#include "tst_dashboardcharts.moc"
