#pragma once

#include <QList>
#include <QString>

class QPainter;
class QRect;

// Tick positions and labels for the hand-drawn time charts (breaker timeline, staircase): a step
// from a fixed ladder (1 s ... 30 min) giving at most `maxTicks` ticks over the span.
namespace timeaxis {

qint64 tickStep(qint64 spanMs, int maxTicks);
// Ticks at multiples of the step inside [fromMs, toMs].
QList<qint64> ticks(qint64 fromMs, qint64 toMs, int maxTicks);
// A tick's label: a wall-clock time, or seconds from zero in the user's language ("10 s", "0.5 s"
// for a step under a second).
QString tickLabel(qint64 t, qint64 step, bool clockLabels);
// Draws ticks and labels along the bottom of `plot`: wall-clock times, or seconds from zero.
void drawBottom(QPainter &painter, const QRect &plot, qint64 fromMs, qint64 toMs, int maxTicks,
                bool clockLabels);

} // namespace timeaxis
