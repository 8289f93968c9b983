#include "latencyscatter.h"

#include <QChart>
#include <QDateTime>
#include <QDateTimeAxis>
#include <QScatterSeries>
#include <QValueAxis>

#include "dashboardmodel.h"
#include "dashboardstyle.h"

using namespace Qt::StringLiterals;

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
    m_timeAxis->setTitleText(u"arrival"_s);
    m_latencyAxis = new QValueAxis(chart);
    m_latencyAxis->setTitleText(u"latency (s)"_s);
    m_latencyAxis->setLabelFormat(u"%.1f"_s);
    m_latencyAxis->setRange(0, 1);
    chart->addAxis(m_timeAxis, Qt::AlignBottom);
    chart->addAxis(m_latencyAxis, Qt::AlignLeft);

    for (int i = 0; i < DashboardModel::kCategoryCount; ++i) {
        const auto category = DashboardModel::Category(i);
        auto *series = new QScatterSeries;
        series->setName(DashboardModel::categoryName(category));
        series->setMarkerShape(QScatterSeries::MarkerShapeCircle);
        series->setMarkerSize(7);
        series->setColor(dashboardstyle::outcomeColor(category));
        series->setBorderColor(dashboardstyle::outcomeColor(category).darker(130));
        chart->addSeries(series);
        series->attachAxis(m_timeAxis);
        series->attachAxis(m_latencyAxis);
        m_series.append(series);
    }
    m_failures = new QScatterSeries;
    m_failures->setName(u"upstream 5xx"_s);
    m_failures->setMarkerShape(QScatterSeries::MarkerShapeRectangle);
    m_failures->setMarkerSize(8);
    m_failures->setColor(dashboardstyle::upstreamFailureColor());
    m_failures->setBorderColor(dashboardstyle::upstreamFailureColor());
    chart->addSeries(m_failures);
    m_failures->attachAxis(m_timeAxis);
    m_failures->attachAxis(m_latencyAxis);
    setChart(chart);
    setRenderHint(QPainter::Antialiasing);
    setMinimumSize(360, 200);
}

void LatencyScatter::refresh(const DashboardModel &model, qint64 fromMs, qint64 toMs)
{
    QList<QList<QPointF>> points(DashboardModel::kCategoryCount);
    QList<QPointF> failures;
    double slowest = 0;
    int taken = 0;
    const auto &records = model.records();
    // Newest first, so the bound drops the oldest dots.
    for (auto it = records.rbegin(); it != records.rend() && taken < kMaxPoints; ++it) {
        if (it->receivedAtMs < fromMs || it->receivedAtMs > toMs)
            continue;
        const double seconds = double(it->totalMs()) / 1000.0;
        const QPointF point(double(it->receivedAtMs), seconds);
        if (dashboardstyle::isUpstreamFailure(*it))
            failures.append(point);
        else
            points[int(DashboardModel::categoryOf(it->outcome))].append(point);
        slowest = std::max(slowest, seconds);
        ++taken;
    }
    for (int i = 0; i < DashboardModel::kCategoryCount; ++i)
        m_series[i]->replace(points[i]);
    m_failures->replace(failures);
    m_timeAxis->setRange(QDateTime::fromMSecsSinceEpoch(fromMs), QDateTime::fromMSecsSinceEpoch(toMs));
    // Rescale only when the slowest dot leaves the axis or shrinks well below it (no twitching).
    const double top = std::max(slowest * 1.15, 0.5);
    if (slowest > m_latencyAxis->max() || top < m_latencyAxis->max() / 3) {
        m_latencyAxis->setRange(0, top);
        m_latencyAxis->applyNiceNumbers();
    }
}

int LatencyScatter::pointCount() const
{
    int count = 0;
    for (const QScatterSeries *series : m_series)
        count += int(series->count());
    return count + int(m_failures->count());
}
