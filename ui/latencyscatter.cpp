#include "latencyscatter.h"

#include <algorithm>

#include <QChart>
#include <QDateTime>
#include <QDateTimeAxis>
#include <QGraphicsLayout>
#include <QLegend>
#include <QLegendMarker>
#include <QScatterSeries>
#include <QValueAxis>

#include "dashboardmodel.h"
#include "dashboardstyle.h"

using namespace Qt::StringLiterals;

namespace {

// Failures are drawn by kind; a sample keeps how it was served (LatencySample has no fallback), so
// Fallback would be an empty series.
bool hasSeries(DashboardModel::Category category)
{
    return category != DashboardModel::Category::Failed && category != DashboardModel::Category::Fallback;
}

} // namespace

LatencyScatter::LatencyScatter(QWidget *parent)
    : QChartView(parent)
{
    auto *chart = new QChart;
    chart->setAnimationOptions(QChart::NoAnimation);
    chart->legend()->setAlignment(Qt::AlignTop);
    chart->setMargins(QMargins(4, 4, 4, 4));
    chart->setBackgroundRoundness(0);

    m_timeAxis = new QDateTimeAxis(chart);
    m_timeAxis->setFormat(u"HH:mm:ss"_s);
    m_timeAxis->setTickCount(7);
    m_timeAxis->setTitleText(tr("arrival"));
    m_latencyAxis = new QValueAxis(chart);
    m_latencyAxis->setTitleText(tr("latency (s)"));
    m_latencyAxis->setRange(0, 1);
    dashboardstyle::fitLabelsToTicks(m_latencyAxis);   // 0.25 s steps: two decimals
    chart->addAxis(m_timeAxis, Qt::AlignBottom);
    chart->addAxis(m_latencyAxis, Qt::AlignLeft);

    // How answered calls were served; failures are drawn by kind below, so Failed has no series.
    for (int i = 0; i < DashboardModel::kCategoryCount; ++i) {
        const auto category = DashboardModel::Category(i);
        if (!hasSeries(category))
            continue;
        auto *series = new QScatterSeries;
        series->setName(DashboardModel::categoryName(category));
        series->setMarkerShape(QScatterSeries::MarkerShapeRectangle);
        series->setMarkerSize(6);   // rectangles: ellipses cost a Bezier path per dot
        series->setColor(dashboardstyle::outcomeColor(category));
        series->setBorderColor(dashboardstyle::outcomeColor(category).darker(130));
        chart->addSeries(series);
        series->attachAxis(m_timeAxis);
        series->attachAxis(m_latencyAxis);
        m_series.append(series);
    }
    for (const Ending ending : dashboardstyle::failureEndings()) {
        auto *series = new QScatterSeries;
        series->setName(dashboardstyle::failureLabel(ending));
        series->setMarkerShape(QScatterSeries::MarkerShapeTriangle);
        series->setMarkerSize(9);
        series->setColor(dashboardstyle::failureColor(ending));
        series->setBorderColor(dashboardstyle::failureColor(ending));
        chart->addSeries(series);
        series->attachAxis(m_timeAxis);
        series->attachAxis(m_latencyAxis);
        m_failures.append(series);
    }
    setChart(chart);
    setRenderHint(QPainter::Antialiasing);
    setMinimumSize(360, 200);
}

void LatencyScatter::refresh(const DashboardModel &model, qint64 fromMs, qint64 toMs)
{
    QList<QList<QPointF>> points(DashboardModel::kCategoryCount);
    QList<QList<QPointF>> failures(m_failures.size());
    double slowest = 0;
    const auto &samples = model.latencySamples();
    // Samples in the window, thinned evenly to the point budget.
    const auto first = std::find_if(samples.begin(), samples.end(),
                                    [fromMs](const auto &sample) { return sample.arrivalMs + sample.totalMs >= fromMs; });
    const qsizetype inWindow = samples.end() - first;
    const qsizetype stride = std::max<qsizetype>(1, (inWindow + kMaxPoints - 1) / kMaxPoints);
    for (auto it = first; it < samples.end(); it += std::min<qsizetype>(stride, samples.end() - it)) {
        if (it->arrivalMs < fromMs || it->arrivalMs > toMs)
            continue;
        const double seconds = double(it->totalMs) / 1000.0;
        const QPointF point(double(it->arrivalMs), seconds);
        if (isFailure(it->ending))
            failures[dashboardstyle::failureEndings().indexOf(it->ending)].append(point);
        else
            points[int(DashboardModel::categoryOf(it->outcome))].append(point);
        slowest = std::max(slowest, seconds);
    }
    for (int c = 0, s = 0; c < DashboardModel::kCategoryCount; ++c) {
        if (hasSeries(DashboardModel::Category(c)))
            m_series[s++]->replace(points[c]);
    }
    bool legendChanged = false;
    for (int i = 0; i < m_failures.size(); ++i) {
        m_failures[i]->replace(failures[i]);
        // Only the kinds of failure in view are named in the legend.
        for (QLegendMarker *marker : chart()->legend()->markers(m_failures[i])) {
            legendChanged = legendChanged || marker->isVisible() == failures[i].isEmpty();
            marker->setVisible(!failures[i].isEmpty());
        }
    }
    // Qt Charts lays out only the entries shown, and showing one leaves the legend's size as it was
    // (its hint counts the hidden ones): without a new layout pass an entry shown again kept the
    // text it was cut to in another arrangement ("upstream ..." at 125 % after the herd).
    if (legendChanged)
        chart()->legend()->layout()->invalidate();
    m_timeAxis->setRange(QDateTime::fromMSecsSinceEpoch(fromMs), QDateTime::fromMSecsSinceEpoch(toMs));
    dashboardstyle::rescaleToPeak(m_latencyAxis, slowest, 0.5);
}

int LatencyScatter::pointCount() const
{
    int count = 0;
    for (const QScatterSeries *series : m_series)
        count += int(series->count());
    for (const QScatterSeries *series : m_failures)
        count += int(series->count());
    return count;
}

void LatencyScatter::setShort(bool shortChart)
{
    m_timeAxis->setTitleVisible(!shortChart);
}
