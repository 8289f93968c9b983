#include "outcomechart.h"

#include <QAreaSeries>
#include <QChart>
#include <QDateTime>
#include <QDateTimeAxis>
#include <QLineSeries>
#include <QValueAxis>

#include "dashboardmodel.h"
#include "dashboardstyle.h"

using namespace Qt::StringLiterals;

OutcomeChart::OutcomeChart(QWidget *parent)
    : QChartView(parent)
{
    auto *chart = new QChart;
    chart->setAnimationOptions(QChart::NoAnimation);   // animations repaint for 1 s after each update
    chart->legend()->setAlignment(Qt::AlignTop);
    chart->setMargins(QMargins(4, 4, 4, 4));
    chart->setBackgroundRoundness(0);

    m_timeAxis = new QDateTimeAxis(chart);
    m_timeAxis->setFormat(u"HH:mm:ss"_s);
    m_timeAxis->setTickCount(7);
    m_rateAxis = new QValueAxis(chart);
    m_rateAxis->setTitleText(u"requests / s"_s);
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
    addBand(u"in flight"_s, dashboardstyle::inFlightColor());
    for (int i = 0; i < DashboardModel::kCategoryCount; ++i) {
        const auto category = DashboardModel::Category(i);
        addBand(DashboardModel::categoryName(category), dashboardstyle::outcomeColor(category));
    }
    // Refusals and failures once more, as a line on an axis of their own at the right: after a herd
    // of 100 requests a second the stacked axis reaches 100, and an outage's 0.5 refusals a second
    // would be a flat line at its foot. Shown only while the window holds a failure.
    const QColor failures = failureLineColor();
    m_failureAxis = new QValueAxis(chart);
    m_failureAxis->setTitleText(u"refused + failed / s"_s);
    m_failureAxis->setLabelFormat(u"%g"_s);
    m_failureAxis->setRange(0, 1);
    m_failureAxis->setLabelsColor(failures);
    m_failureAxis->setTitleBrush(failures);
    m_failureAxis->setLinePenColor(failures);
    m_failureAxis->setGridLineVisible(false);
    chart->addAxis(m_failureAxis, Qt::AlignRight);
    m_failureLine = new QLineSeries(this);
    m_failureLine->setName(u"refused + failed (right axis)"_s);
    QPen pen(failures);
    pen.setWidthF(2);
    m_failureLine->setPen(pen);
    chart->addSeries(m_failureLine);
    m_failureLine->attachAxis(m_timeAxis);
    m_failureLine->attachAxis(m_failureAxis);
    m_failureLine->setVisible(false);
    m_failureAxis->setVisible(false);

    setChart(chart);
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
    m_timeAxis->setRange(QDateTime::fromMSecsSinceEpoch(fromMs), QDateTime::fromMSecsSinceEpoch(toMs));
    dashboardstyle::rescaleToPeak(m_rateAxis, m_peakRate, 1.0);
    if (failures)
        dashboardstyle::rescaleToPeak(m_failureAxis, m_peakFailureRate, 0.5);
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

void OutcomeChart::setCompact(bool compact)
{
    // A third of a laptop's width has no room for two axis titles beside the legend: the labels
    // would be cut to "3...". The frame's title names the rate; the right axis' red labels and the
    // legend name the failures.
    m_rateAxis->setTitleVisible(!compact);
    m_failureAxis->setTitleVisible(!compact);
    m_compact = compact;
    // The compact legend's column has no room for the injected count (it would be cut to "refused + f..."):
    // there the staircase's marked bars say it.
    const QString injected = m_injectedFailures > 0 ? u", %1 injected"_s.arg(m_injectedFailures) : QString();
    m_failureLine->setName(compact ? u"refused + failed"_s : u"refused + failed%1 (right axis)"_s.arg(injected));
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
