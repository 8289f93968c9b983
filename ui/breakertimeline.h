#pragma once

#include <QList>
#include <QWidget>

#include "dashboardmodel.h"
#include "upstream/circuitbreaker.h"

class QFont;
class QPainter;

// "Breaker timeline": one row per upstream, its breaker's states over the window as coloured bands
// (closed green, half-open amber, open red), each transition marked by a tick. Hovering a tick
// shows the transition and its reason; hovering a band shows the state and how long it lasted.
// While admission was paused the rows are hatched in slate (nothing was admitted to any upstream).
// Clicking a band says which interval it is (bandClicked): the dashboard filters the Requests table
// to the calls received in it; a right click also offers to replot every chart for that interval
// (replotRequested).
// Hand-drawn rather than a Qt Charts series: bands with per-band tooltips are simpler as rects.
class BreakerTimeline final : public QWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(BreakerTimeline)
public:
    explicit BreakerTimeline(QWidget *parent = nullptr);

    void refresh(const DashboardModel &model, qint64 fromMs, qint64 toMs);

    int bandCount() const;         // over all rows, as last refreshed
    int transitionCount() const;
    int pausedSpanCount() const { return int(m_pausedSpans.size()); }   // admission paused, drawn over the rows
    QString toolTipAt(const QPoint &position) const;
    // Where band `index` of row `row` is drawn (empty when out of range), for clicks and tests.
    QRect bandRect(int row, int index) const;
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;
    // A short window (a laptop at 125 %): lower rows, and the legend in legend(), a line a little
    // smaller for the frame's title row, instead of under the axis. Hidden in the normal layout.
    void setShort(bool shortRows);
    QWidget *legend() const { return m_legend; }

Q_SIGNALS:
    // A left click on a band: the upstream and the interval it covers (clipped to the window).
    void bandClicked(const QString &upstream, qint64 fromMs, qint64 toMs, BreakerState state);
    void replotRequested(qint64 fromMs, qint64 toMs);

protected:
    bool event(QEvent *event) override;
    bool eventFilter(QObject *watched, QEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void contextMenuEvent(QContextMenuEvent *event) override;
    void paintEvent(QPaintEvent *event) override;

private:
    struct Row
    {
        QString upstream;
        QList<DashboardModel::Band> bands;
        QList<BreakerTransition> transitions;
    };
    QRect plotRect() const;
    int rowHeight() const;
    // The colours' key in `font` from `x` on the baseline `y`; returns where it ends (without a
    // painter: only that, to size legend()).
    int paintLegend(QPainter *painter, const QFont &font, int x, int y) const;
    void fitLegend();
    QRect rowRect(int row) const;
    int xFor(qint64 atMs) const;
    qint64 timeAt(int x) const;
    // The row and band index under `at`, or {-1, -1}.
    std::pair<int, int> bandAt(const QPoint &at) const;

    QList<Row> m_rows;
    QList<std::pair<qint64, qint64>> m_pausedSpans;   // admission paused, clipped to the window
    qint64 m_fromMs = 0;
    qint64 m_toMs = 1;
    bool m_short = false;
    QWidget *m_legend = nullptr;   // painted by eventFilter; placed by the window
};
