#include "timeaxis.h"

#include <algorithm>

#include <QCoreApplication>
#include <QFontMetrics>
#include <QGuiApplication>
#include <QPalette>
#include <QPainter>
#include <QRect>

#include "dashboardstyle.h"

namespace timeaxis {

qint64 tickStep(qint64 spanMs, int maxTicks)
{
    static const qint64 ladder[] = {100, 200, 500, 1000, 2000, 5000, 10'000, 15'000, 30'000, 60'000,
                                    120'000, 300'000, 600'000, 1'800'000};
    for (const qint64 step : ladder) {
        if (spanMs / step <= maxTicks)
            return step;
    }
    return 3'600'000;
}

QList<qint64> ticks(qint64 fromMs, qint64 toMs, int maxTicks)
{
    QList<qint64> result;
    if (toMs <= fromMs)
        return result;
    const qint64 step = tickStep(toMs - fromMs, maxTicks);
    for (qint64 t = (fromMs + step - 1) / step * step; t <= toMs; t += step)
        result.append(t);
    return result;
}

QString tickLabel(qint64 t, qint64 step, bool clockLabels)
{
    if (clockLabels)
        return dashboardstyle::formatClock(t, false);
    // The unit as formatDuration says it: the same text, the same translation.
    const QString seconds = QCoreApplication::translate("dashboardstyle", "%1 s");
    return step < 1000 ? seconds.arg(double(t) / 1000.0, 0, 'f', 1) : seconds.arg(t / 1000);
}

void drawBottom(QPainter &painter, const QRect &plot, qint64 fromMs, qint64 toMs, int maxTicks,
                bool clockLabels)
{
    if (toMs <= fromMs)
        return;
    const double scale = double(plot.width()) / double(toMs - fromMs);
    const QFontMetrics metrics(painter.font());
    painter.save();
    painter.setPen(QGuiApplication::palette().color(QPalette::PlaceholderText));   // light or dark theme
    painter.drawLine(plot.bottomLeft(), plot.bottomRight());
    const qint64 step = tickStep(toMs - fromMs, maxTicks);
    for (const qint64 t : ticks(fromMs, toMs, maxTicks)) {
        const int x = plot.left() + int((t - fromMs) * scale);
        painter.drawLine(x, plot.bottom(), x, plot.bottom() + 4);
        const QString label = tickLabel(t, step, clockLabels);
        const int width = metrics.horizontalAdvance(label);
        const int left = std::clamp(x - width / 2, plot.left(), plot.right() - width);
        painter.drawText(left, plot.bottom() + 5 + metrics.ascent(), label);
    }
    painter.restore();
}

} // namespace timeaxis
