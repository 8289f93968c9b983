#include "outcomechart.h"

#include <cmath>

#include <QAreaSeries>
#include <QChart>
#include <QDateTime>
#include <QCategoryAxis>
#include <QFontMetrics>
#include <QLineSeries>
#include <QValueAxis>

#include "dashboardmodel.h"
#include "chartlegend.h"
#include "dashboardstyle.h"
#include "timeaxis.h"

using namespace Qt::StringLiterals;

OutcomeChart::OutcomeChart(QWidget *parent)
    : QChartView(parent)
{
    auto *chart = new QChart;
    chart->setAnimationOptions(QChart::NoAnimation);   // animations repaint for 1 s after each update
    chart->setMargins(QMargins(4, 4, 4, 4));
    chart->setBackgroundRoundness(0);

    // Clock times at round seconds or minutes that move with the data, as the breaker timeline's
    // (a date-time axis spreads its ticks evenly: odd seconds that changed on every update).
    m_timeAxis = new QCategoryAxis(chart);
    m_timeAxis->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
    m_rateAxis = new QValueAxis(chart);
    m_rateAxis->setTitleText(tr("requests/s, stacked"));
    m_rateAxis->setTickCount(kRateTicks);
    m_rateAxis->setLabelFormat(u"%g"_s);
    m_rateAxis->setRange(0, 1);
    chart->addAxis(m_timeAxis, Qt::AlignBottom);
    chart->addAxis(m_rateAxis, Qt::AlignLeft);

    // The calls in flight first, at the bottom: their band is empty but near where they arrived,
    // so its edge costs a few points, and the bands above it already vary.
    const auto addBand = [&](const QString &name, const QColor &colour) {
        // The area series does not own its edges; the view does, and outlives the chart's areas.
        // Each band's lower edge is the band below's upper edge (the first one's is the axis), so
        // one list of points per band serves two areas.
        auto *upper = new QLineSeries(this);
        auto *area = new QAreaSeries(upper, m_upper.isEmpty() ? nullptr : m_upper.last());
        area->setName(name);
        area->setColor(colour);
        // No outline: the top band's edge runs along every spike, whatever made it.
        area->setPen(Qt::NoPen);
        chart->addSeries(area);
        area->attachAxis(m_timeAxis);
        area->attachAxis(m_rateAxis);
        m_upper.append(upper);
        m_areas.append(area);
    };
    addBand(tr("in flight"), dashboardstyle::inFlightColor());
    for (int i = 0; i < DashboardModel::kCategoryCount; ++i) {
        const auto category = DashboardModel::Category(i);
        addBand(DashboardModel::categoryName(category), dashboardstyle::outcomeColor(category));
    }
    // Refusals and failures once more, as a line on an axis of their own at the right: after a herd
    // of 100 requests a second the stacked axis reaches 100, and an outage's 0.5 refusals a second
    // would be a flat line at its foot. Shown only while the window holds a failure.
    const QColor failures = failureLineColor();
    m_failureAxis = new QValueAxis(chart);
    m_failureAxis->setTitleText(tr("refused + failed/s"));
    m_failureAxis->setTickCount(kRateTicks);
    m_failureAxis->setLabelFormat(u"%g"_s);
    m_failureAxis->setRange(0, 1);
    m_failureAxis->setLabelsColor(failures);
    m_failureAxis->setTitleBrush(failures);
    m_failureAxis->setLinePenColor(failures);
    m_failureAxis->setGridLineVisible(false);
    chart->addAxis(m_failureAxis, Qt::AlignRight);
    m_failureLine = new QLineSeries(this);
    m_failureLine->setName(tr("refused + failed (right axis, per s)"));
    QPen pen(failures);
    pen.setWidthF(2);
    m_failureLine->setPen(pen);
    chart->addSeries(m_failureLine);
    m_failureLine->attachAxis(m_timeAxis);
    m_failureLine->attachAxis(m_failureAxis);
    m_failureLine->setVisible(false);
    m_failureAxis->setVisible(false);

    setChart(chart);
    // Shown by the frame that places it (DashboardWindow); owned by the view until then.
    m_legend = new ChartLegend(chart, this);
    m_legend->hide();
    connect(chart, &QChart::plotAreaChanged, this, [this](const QRectF &plot) {
        // As many clock labels as fit side by side, rather than labels cut to "11:4...".
        const int ticks = std::max(int(plot.width()) / std::max(fontMetrics().horizontalAdvance(u"00:00:00"_s) * 3 / 2, 1), 2);
        if (ticks != m_timeTicks) {
            m_timeTicks = ticks;
            placeTimeTicks(m_timeFromMs, m_timeToMs);
        }
        fitAxisTitles(plot.height());
        fitRateTicks(plot.height());
    });
    setRenderHint(QPainter::Antialiasing);
    setMinimumSize(360, 200);
}

qint64 OutcomeChart::bucketMsFor(qint64 windowMs)
{
    if (windowMs <= 60'000)
        return 1000;
    if (windowMs <= 5 * 60'000)
        return 2000;
    return 6000;   // 150 buckets: at most 6 x 302 points however busy the 15 minutes were
}

void OutcomeChart::refresh(const DashboardModel &model, qint64 fromMs, qint64 toMs)
{
    const qint64 bucketMs = bucketMsFor(toMs - fromMs);
    // Align buckets to whole seconds so a bucket never moves under a count as the window scrolls.
    const qint64 alignedFrom = fromMs - fromMs % bucketMs;
    const QList<DashboardModel::Counts> buckets = model.outcomeBuckets(alignedFrom, toMs, bucketMs);
    const double perSecond = 1000.0 / double(bucketMs);

    // The calls in flight, by arrival, as the finished ones are.
    QList<double> inFlight(buckets.size(), 0.0);
    for (const CallRecord &call : model.inFlightCalls()) {
        if (call.receivedAtMs >= alignedFrom && call.receivedAtMs < toMs)
            inFlight[qsizetype((call.receivedAtMs - alignedFrom) / bucketMs)] += perSecond;
    }
    QList<double> below(buckets.size(), 0.0);
    m_peakRate = 0;
    for (int c = 0; c < m_upper.size(); ++c) {
        QList<double> top(buckets.size());
        for (qsizetype b = 0; b < buckets.size(); ++b)
            top[b] = below[b] + (c == 0 ? inFlight[b] : double(buckets[b][size_t(c - 1)]) * perSecond);
        m_upper[c]->replace(stepPoints(top, alignedFrom, toMs, bucketMs));
        for (const double value : top)
            m_peakRate = std::max(m_peakRate, value);
        below = top;
    }
    // The failures' own line: refused + failed per second, on the right axis, scaled to its own peak.
    // Over 6 s at least: an outage refuses one call every few seconds, which per second would be a
    // comb of 0s and 1s rather than the rate it is.
    const qint64 failureBucketMs = std::max<qint64>(bucketMs, kFailureBucketMs);
    const qint64 failureFrom = fromMs - fromMs % failureBucketMs;
    const QList<DashboardModel::Counts> failureBuckets = failureBucketMs == bucketMs
        ? buckets : model.outcomeBuckets(failureFrom, toMs, failureBucketMs);
    QList<double> failed(failureBuckets.size());
    m_peakFailureRate = 0;
    for (qsizetype b = 0; b < failureBuckets.size(); ++b) {
        failed[b] = double(failureBuckets[b][size_t(DashboardModel::Category::Refused)]
                           + failureBuckets[b][size_t(DashboardModel::Category::Failed)]) * 1000.0 / double(failureBucketMs);
        m_peakFailureRate = std::max(m_peakFailureRate, failed[b]);
    }
    const bool failures = m_peakFailureRate > 0;
    int injected = 0;
    for (const CallRecord &record : model.records()) {
        if (!record.injected.isEmpty() && record.receivedAtMs >= failureFrom && record.receivedAtMs < toMs
            && DashboardModel::categoryOf(record) == DashboardModel::Category::Failed)
            ++injected;
    }
    if (injected != m_injectedFailures) {
        m_injectedFailures = injected;
        setCompact(m_compact);   // the line's name says it
    }
    m_failureLine->replace(failures ? stepPoints(failed, failureFrom, toMs, failureBucketMs) : QList<QPointF>());
    if (m_failureLine->isVisible() != failures) {
        m_failureLine->setVisible(failures);
        m_failureAxis->setVisible(failures);
    }
    placeTimeTicks(fromMs, toMs);
    // Both rate axes have the same ticks from 0, so each gridline has a value on either side, in its
    // colour: the failure line at 0.5 no longer sat on the left axis' "1" with nothing to say 0.5.
    rescale(m_rateAxis, m_peakRate, 1.0);
    if (failures)
        rescale(m_failureAxis, m_peakFailureRate, 0.5);
    m_legend->refresh();
}

void OutcomeChart::fitRateTicks(qreal plotHeight)
{
    // QtCharts cuts a tick label taller than the room between two ticks to "...": a short plot (a
    // laptop at 125 %) gets three ticks, 0, the middle and the top, instead of five unreadable ones.
    const int labelHeight = QFontMetrics(m_rateAxis->labelsFont()).height();
    const int ticks = plotHeight >= (kRateTicks - 1) * labelHeight * 1.4 ? kRateTicks : 3;
    if (ticks == m_rateTicks)
        return;
    m_rateTicks = ticks;
    rescale(m_rateAxis, m_peakRate, 1.0, true);
    if (m_failureAxis->isVisible())
        rescale(m_failureAxis, m_peakFailureRate, 0.5, true);
}

void OutcomeChart::rescale(QValueAxis *axis, double peak, double minimum, bool force)
{
    // A step from 1, 2, 2.5, 3, 4, 5, 8 x 10^n for m_rateTicks - 1 intervals; kept while the
    // peak stays between a third of the top and the top, so the scale does not jump on every update.
    // An axis with another tick count is redone: the failure axis, hidden while a short plot went
    // to three ticks, came back with five cut to "..." (a laptop at 125 %).
    const double top = std::max(peak * 1.15, minimum);
    if (!force && axis->tickCount() == m_rateTicks && peak <= axis->max() && top >= axis->max() / 3 && axis->max() > 0)
        return;
    const double rough = top / double(m_rateTicks - 1);
    const double magnitude = std::pow(10.0, std::floor(std::log10(rough)));
    double step = 10 * magnitude;
    for (const double nice : {1.0, 2.0, 2.5, 3.0, 4.0, 5.0, 8.0, 10.0}) {
        if (nice * magnitude >= rough * (1 - 1e-9)) {
            step = nice * magnitude;
            break;
        }
    }
    axis->setRange(0, step * double(m_rateTicks - 1));
    axis->setTickCount(m_rateTicks);
    dashboardstyle::fitLabelsToTicks(axis);
}

void OutcomeChart::placeTimeTicks(qint64 fromMs, qint64 toMs)
{
    m_timeFromMs = fromMs;
    m_timeToMs = toMs;
    if (toMs <= fromMs)
        return;
    m_timeAxis->setRange(double(fromMs), double(toMs));
    // Not within half a label of either end, where the label would be cut ("11:16:3").
    QList<qint64> ticks = timeaxis::ticks(fromMs, toMs, std::max(m_timeTicks, 2));
    const double plotWidth = chart()->plotArea().width();
    if (plotWidth > 0) {
        const qint64 half = qint64(double(fontMetrics().horizontalAdvance(u"00:00:00"_s)) / 2 * double(toMs - fromMs) / plotWidth);
        ticks.removeIf([&](qint64 tick) { return tick < fromMs + half || tick > toMs - half; });
    }
    if (ticks == m_timeTickMs)
        return;   // the labels stay; only the range moved
    m_timeTickMs = ticks;
    for (const QString &label : m_timeAxis->categoriesLabels())
        m_timeAxis->remove(label);
    m_timeAxis->setStartValue(double(fromMs));
    for (const qint64 tick : ticks)
        m_timeAxis->append(dashboardstyle::formatClock(tick, false), double(tick));
}

QStringList OutcomeChart::timeLabels() const
{
    return m_timeAxis->categoriesLabels();
}

QList<double> OutcomeChart::rateTicks(bool failureAxis) const
{
    const QValueAxis *axis = failureAxis ? m_failureAxis : m_rateAxis;
    QList<double> ticks;
    for (int i = 0; i < axis->tickCount(); ++i)
        ticks.append(axis->min() + (axis->max() - axis->min()) * i / (axis->tickCount() - 1));
    return ticks;
}

QList<QPointF> OutcomeChart::stepPoints(const QList<double> &values, qint64 fromMs, qint64 toMs, qint64 bucketMs)
{
    // Step lines: a point pair only where a bucket's value changes, which keeps quiet stretches
    // down to two points and shows a one-second spike as the block it was.
    QList<QPointF> points;
    points.reserve(16);
    double previous = values.isEmpty() ? 0 : values.first();
    points.append({double(fromMs), previous});
    for (qsizetype b = 1; b < values.size(); ++b) {
        if (values[b] == previous)
            continue;
        const double x = double(fromMs + b * bucketMs);
        points.append({x, previous});
        points.append({x, values[b]});
        previous = values[b];
    }
    points.append({double(toMs), previous});
    return points;
}

void OutcomeChart::fitAxisTitles(qreal plotHeight)
{
    // The rate axes' titles stand along the plot's height, and QtCharts cuts one that is longer
    // ("requests/s, s…"): each takes its longest form that fits. A short window (three upstream
    // lines above the charts, as an attached team gateway has) gets the short ones; the legend
    // above says the rest.
    const auto fit = [plotHeight](QValueAxis *axis, const QStringList &forms) {
        const QFontMetrics metrics(axis->titleFont());
        QString chosen = forms.last();
        for (const QString &form : forms) {
            if (metrics.horizontalAdvance(form) <= plotHeight - 4) {
                chosen = form;
                break;
            }
        }
        if (axis->titleText() != chosen)
            axis->setTitleText(chosen);
    };
    //: the outcomes chart's left axis, longest first; the chart takes the longest that fits
    fit(m_rateAxis, {tr("requests/s, stacked"), tr("requests/s"), tr("req/s")});
    //: the outcomes chart's right axis (refused and failed calls per second), longest first
    fit(m_failureAxis, {tr("refused + failed/s"), tr("refused+failed/s"), tr("per s")});
}

void OutcomeChart::setCompact(bool compact)
{
    // The legend above the plot (ChartLegend) leaves room for both axis titles at any width.
    m_compact = compact;
    const QString injected = m_injectedFailures > 0 ? tr(", %1 injected").arg(m_injectedFailures) : QString();
    m_failureLine->setName(tr("refused + failed%1 (right axis, per s)").arg(injected));
    if (m_legend)
        m_legend->refresh();
}

QColor OutcomeChart::failureLineColor()
{
    return dashboardstyle::outcomeColor(DashboardModel::Category::Refused).darker(135);
}

bool OutcomeChart::failureAxisShown() const
{
    return m_failureAxis->isVisible();
}

double OutcomeChart::failureAxisMax() const
{
    return m_failureAxis->max();
}

QList<QPointF> OutcomeChart::failurePoints() const
{
    return m_failureLine->points();
}

int OutcomeChart::pointCount() const
{
    int count = 0;
    for (const QLineSeries *series : m_upper)
        count += int(series->count());
    return count + int(m_failureLine->count());
}
