#pragma once

#include <QChartView>
#include <QColor>
#include <QList>
#include <QPointF>
#include <QStringList>

class DashboardModel;
class QAreaSeries;
class ChartLegend;
class QCategoryAxis;
class QLineSeries;
class QValueAxis;

// "Outcomes over time": calls in flight, then miss, joined, hit, bypass, refused and failed per
// second, stacked, each placed by its arrival, over the chosen window. Buckets widen with the
// window (1 s for 1 min, 2 s for 5 min, 6 s for 15 min) so a series never holds more than
// 2 x 150 + 2 points (about 2k in all; the in-flight band at the bottom only where calls are in
// flight), and each series is set with replace() in one go (append() is quadratic in Qt Charts 6.4).
// Refusals and failures are drawn a second time as a line on their own axis (peakFailureRate);
// while the window holds injected failures its legend says "N injected".
class OutcomeChart final : public QChartView
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(OutcomeChart)
public:
    explicit OutcomeChart(QWidget *parent = nullptr);

    void refresh(const DashboardModel &model, qint64 fromMs, qint64 toMs);
    static qint64 bucketMsFor(qint64 windowMs);
    int pointCount() const;      // points over all series, for tests and the point budget
    double peakRate() const { return m_peakRate; }
    // Refused + failed per second on their own right-hand axis, shown while the window holds any:
    // a herd's 100/s no longer flattens an outage's 0.5/s. Its peak, axis, and points as drawn.
    double peakFailureRate() const { return m_peakFailureRate; }
    bool failureAxisShown() const;
    double failureAxisMax() const;
    QList<QPointF> failurePoints() const;
    static QColor failureLineColor();
    // The window's failures made by fault injection: the failure line's legend says how many.
    int injectedFailures() const { return m_injectedFailures; }
    static constexpr qint64 kFailureBucketMs = 6000;   // the failure line's narrowest bucket
    void setCompact(bool compact);   // the window's compact layout (a laptop)
    // The legend, for the frame to put above the chart (the chart's own is hidden).
    ChartLegend *legend() const { return m_legend; }
    // The clock labels at the ticks (round seconds or minutes), and each rate axis' tick values:
    // both have rateTickCount() from 0, so a gridline reads on either side.
    QStringList timeLabels() const;
    QList<double> rateTicks(bool failureAxis) const;
    static constexpr int kRateTicks = 5;   // where the plot is tall enough for five labels
    int rateTickCount() const { return m_rateTicks; }

private:
    // `force`: anew for the current tick count, even if the peak still fits the range.
    void rescale(QValueAxis *axis, double peak, double minimum, bool force = false);
    void fitRateTicks(qreal plotHeight);
    void placeTimeTicks(qint64 fromMs, qint64 toMs);
    void fitAxisTitles(qreal plotHeight);
    static QList<QPointF> stepPoints(const QList<double> &values, qint64 fromMs, qint64 toMs, qint64 bucketMs);

    int m_rateTicks = kRateTicks;
    QList<QLineSeries *> m_upper;   // cumulative top edge of each band: in flight, then each category
    QList<QAreaSeries *> m_areas;
    QCategoryAxis *m_timeAxis = nullptr;
    ChartLegend *m_legend = nullptr;
    int m_timeTicks = 7;
    qint64 m_timeFromMs = 0;
    qint64 m_timeToMs = 0;
    QList<qint64> m_timeTickMs;
    QValueAxis *m_rateAxis = nullptr;
    QLineSeries *m_failureLine = nullptr;
    QValueAxis *m_failureAxis = nullptr;
    double m_peakRate = 0;
    double m_peakFailureRate = 0;
    int m_injectedFailures = 0;
    bool m_compact = false;
};
