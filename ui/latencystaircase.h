#pragma once

#include <QBrush>
#include <QColor>
#include <QList>
#include <QStringList>
#include <QWidget>

#include "accounting/callrecord.h"

class DashboardModel;

// "Latency staircase": one horizontal bar per recent request, from its arrival to its last byte,
// sorted by arrival (first at the top), split into queue wait (hatched), waiting on a joined
// flight (tinted) and upstream time (solid), coloured by how it was served or, if it failed, by its
// failure. A call still in flight is a bar growing to now. Its shape tells the story:
// twenty prompts served in parallel form a wall, served one at a time a staircase, and a herd is one
// solid bar with many joined riders under it. A call answered by fault injection is cross-hatched
// in purple over its colour ("injected" in the legend and the tooltip), so a failure made on
// purpose is never read as the provider's. An answer from an upstream's fallback is drawn in the
// fallback colour ("fallback" in the legend, the upstreams in the tooltip). Hand-drawn: a few hundred rects per repaint.
class LatencyStaircase final : public QWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(LatencyStaircase)
public:
    static constexpr int kDefaultBars = 200;

    explicit LatencyStaircase(QWidget *parent = nullptr);

    void setBarLimit(int bars);   // how many of the newest requests to draw
    int barLimit() const { return m_limit; }
    // `nowMs` is where bars in flight end (0: the model's latest event).
    void refresh(const DashboardModel &model, qint64 nowMs = 0);

    // As last refreshed: one bar per request, top to bottom.
    int barCount() const { return int(m_bars.size()); }
    int inFlightBarCount() const;
    // The newest bars that get 3 px or more each at this height; the side caption says how many of how many.
    int drawnBarCount() const;
    QString sideCaption() const;
    QString historyNote() const;   // "12 of these from the call log (10:02–10:15)", or empty
    int injectedBarCount() const;
    int fallbackBarCount() const;   // answered by an upstream's fallback, drawn in its own colour
    QList<QByteArray> barRequestIds() const;
    QString toolTipAt(const QPoint &position) const;
    // The legend as laid out at the current width: its labels and where each entry is drawn.
    QStringList legendLabels() const;
    QList<QRect> legendRects() const;
    // The side caption's room along the plot's left edge, as if upright: its length is the axis'.
    QRect sideCaptionRoom() const;
    QSize sizeHint() const override;
    // A finished call's queue wait, as in the legend: hatched on this, whatever the call's colour
    // (in its own colour it read as the "in flight" swatch).
    static QColor queueWaitColor();

protected:
    bool event(QEvent *event) override;
    void paintEvent(QPaintEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;

private:
    struct Bar
    {
        CallRecord record;
        qint64 upstreamFromMs = 0;   // queue wait is [arrival, upstreamFromMs)
        bool joined = false;         // the whole bar waited on someone else's flight
        bool answeredHere = false;   // hit, refusal or our own error: no upstream time at all
        bool inFlight = false;       // not finished: the bar ends at m_nowMs
        qint64 endMs = 0;            // where the bar ends (now, for one in flight)
    };
    struct LegendEntry
    {
        QBrush fill;
        QBrush overlay;
        QString label;
        bool newLine = false;   // starts a line of its own
    };
    QList<LegendEntry> legendEntries() const;
    // Where each entry goes at the current width; `height` gets the legend's height.
    QList<QRect> legendLayout(const QList<LegendEntry> &entries, int *height) const;
    int legendHeight() const;
    void placeDrawn();   // which bars fit, and the span they take
    QRect plotRect() const;
    int axisLength() const;   // the side axis' length, down from the plot's top
    double rowHeight() const;   // one drawn bar's row; only with bars
    int rowAt(int y) const;
    void paintLegend(QPainter &painter);

    QList<Bar> m_bars;
    qsizetype m_firstDrawn = 0;
    qint64 m_originMs = 0;
    qint64 m_spanMs = 1;
    qint64 m_nowMs = 0;
    QString m_historyNote;
    int m_limit = kDefaultBars;
};
