#pragma once

#include <QChartView>
#include <QList>

class DashboardModel;
class QDateTimeAxis;
class QScatterSeries;
class QValueAxis;

// "Latency vs arrival": a dot per request in the window at its arrival time and total latency,
// coloured by how it was served, or a triangle in its failure's colour (timeout, unreachable,
// upstream error, ...), from the model's latency samples (all requests at demo rates; the first 20
// and the slowest of each second under load). Thinned evenly to kMaxPoints dots: large scatter
// series are the most expensive thing Qt Charts paints (~86 ms for 10k). Set with replace().
class LatencyScatter final : public QChartView
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(LatencyScatter)
public:
    static constexpr int kMaxPoints = 1000;

    explicit LatencyScatter(QWidget *parent = nullptr);

    void refresh(const DashboardModel &model, qint64 fromMs, qint64 toMs);
    int pointCount() const;
    // Short (a laptop at 125 % whose texts need tall lines): no title under the time axis, whose
    // clock labels say what it is; the plot keeps the line's height.
    void setShort(bool shortChart);

private:
    QList<QScatterSeries *> m_series;     // answered calls, one per category but Failed and Fallback
    QList<QScatterSeries *> m_failures;   // one per dashboardstyle::failureEndings()
    QDateTimeAxis *m_timeAxis = nullptr;
    QValueAxis *m_latencyAxis = nullptr;
};
