#include "dashboardstyle.h"

#include <algorithm>
#include <cmath>

#include <QCoreApplication>
#include <QDateTime>
#include <QFontMetrics>
#include <QHelpEvent>
#include <QToolTip>
#include <QValueAxis>
#include <QPainter>
#include <QPixmap>
#include <QSvgRenderer>
#include <QTextLayout>
#include <QtMath>

using namespace Qt::StringLiterals;

namespace dashboardstyle {

QColor outcomeColor(DashboardModel::Category category)
{
    using Category = DashboardModel::Category;
    switch (category) {
    case Category::Miss: return QColor(0x3b, 0x7d, 0xd8);     // blue: a real upstream call
    case Category::Joined: return QColor(0x8e, 0x5b, 0xd6);   // purple: rode along on one
    case Category::Hit: return QColor(0x17, 0xa2, 0x8f);      // teal: answered from the cache
    case Category::Bypass: return QColor(0x8a, 0x8f, 0x98);   // grey: sharing turned off
    case Category::Fallback: return QColor(0xc9, 0xa8, 0x00); // gold: answered, by the stand-in; nothing else uses it
    case Category::Refused: return QColor(0xd6, 0x45, 0x45);  // red: refused, no upstream call
    case Category::Failed: return QColor(0xe8, 0x83, 0x3a);   // orange: served, but it failed
    }
    return Qt::black;
}

QColor outcomeColor(Outcome outcome)
{
    return outcomeColor(DashboardModel::categoryOf(outcome));
}

QColor callColor(const CallRecord &record)
{
    const Ending ending = endingOf(record);
    return isFailure(ending) ? failureColor(ending) : outcomeColor(record.outcome);
}

QColor breakerColor(BreakerState state)
{
    switch (state) {
    case BreakerState::Closed: return QColor(0x2e, 0x9d, 0x57);
    case BreakerState::HalfOpen: return QColor(0xe8, 0x9a, 0x0c);
    case BreakerState::Open: return QColor(0xd6, 0x45, 0x45);
    }
    return Qt::gray;
}

QColor failureColor(Ending ending)
{
    switch (ending) {
    case Ending::UpstreamError: return QColor(0x7a, 0x10, 0x10);   // dark red: the upstream said no
    case Ending::ErrorEvent: return QColor(0xa8, 0x32, 0x6e);      // raspberry: said so inside a stream
    case Ending::Timeout: return QColor(0x8b, 0x5a, 0x00);         // brown: said nothing
    case Ending::Unreachable: return QColor(0x33, 0x33, 0x3a);     // graphite: was not there
    case Ending::Cut: return QColor(0xc2, 0x18, 0x5b);             // magenta: stopped midway
    case Ending::ClientClosed: return QColor(0x6d, 0x6f, 0x2a);    // olive: the client left
    default: return outcomeColor(DashboardModel::Category::Failed);
    }
}

QString failureLabel(Ending ending)
{
    switch (ending) {
    case Ending::UpstreamError: return QCoreApplication::translate("dashboardstyle", "upstream error");
    case Ending::ErrorEvent: return QCoreApplication::translate("dashboardstyle", "error event");
    case Ending::Timeout: return QCoreApplication::translate("dashboardstyle", "timeout");
    case Ending::Unreachable: return QCoreApplication::translate("dashboardstyle", "unreachable");
    case Ending::Cut: return QCoreApplication::translate("dashboardstyle", "cut stream");
    case Ending::ClientClosed: return QCoreApplication::translate("dashboardstyle", "client closed");
    default: return QString::fromLatin1(endingName(ending));
    }
}

const QList<Ending> &failureEndings()
{
    static const QList<Ending> endings{Ending::UpstreamError, Ending::ErrorEvent, Ending::Timeout,
                                       Ending::Unreachable, Ending::Cut, Ending::ClientClosed};
    return endings;
}

QColor inFlightColor()
{
    return QColor(0x7f, 0x8f, 0xa6);   // slate: no outcome yet
}

QString breakerLabel(BreakerState state)
{
    switch (state) {
    case BreakerState::Closed: return QCoreApplication::translate("dashboardstyle", "closed");
    //: A circuit breaker's state: one trial call is let through
    case BreakerState::HalfOpen: return QCoreApplication::translate("dashboardstyle", "half-open");
    case BreakerState::Open: return QCoreApplication::translate("dashboardstyle", "open");
    }
    return QString::fromLatin1(breakerStateName(state));
}

namespace {

QIcon iconFromSvg(const QString &resource)
{
    QSvgRenderer renderer(resource);
    QIcon icon;
    // Up to 256: a 4K screen at scale 2 asks for twice the pixels of every size it shows.
    for (const int size : {16, 22, 24, 32, 44, 48, 64, 128, 256}) {
        QPixmap pixmap(size, size);
        pixmap.fill(Qt::transparent);
        QPainter painter(&pixmap);
        renderer.render(&painter);
        painter.end();
        icon.addPixmap(pixmap);
    }
    return icon;
}

} // namespace

QList<QKeySequence> quitShortcuts()
{
    const QList<QKeySequence> keys = QKeySequence::keyBindings(QKeySequence::Quit);
    return keys.isEmpty() ? QList<QKeySequence>{QKeySequence(Qt::CTRL | Qt::Key_Q)} : keys;
}

QIcon appIcon()
{
    return iconFromSvg(u":/icons/breakwater.svg"_s);
}

QIcon trayIcon(BreakerState worst)
{
    switch (worst) {
    case BreakerState::Closed: return iconFromSvg(u":/icons/tray-closed.svg"_s);
    case BreakerState::HalfOpen: return iconFromSvg(u":/icons/tray-half-open.svg"_s);
    case BreakerState::Open: return iconFromSvg(u":/icons/tray-open.svg"_s);
    }
    return appIcon();
}

QColor injectedColor()
{
    return QColor(0x8e, 0x24, 0xaa);   // purple: no outcome, failure or breaker state uses it
}

QColor fallbackColor()
{
    return outcomeColor(DashboardModel::Category::Fallback);
}

QIcon trayIcon(BreakerState worst, bool faultsArmed, bool admissionPaused)
{
    const QIcon plain = trayIcon(worst);
    if (!faultsArmed && !admissionPaused)
        return plain;
    QIcon badged;
    for (const int size : {16, 22, 24, 32, 44, 48, 64, 128, 256}) {
        QPixmap pixmap = plain.pixmap(size, size);
        QPainter painter(&pixmap);
        painter.setRenderHint(QPainter::Antialiasing);
        const qreal d = size * 0.5;
        const qreal rim = std::max(1.0, size / 16.0);
        if (faultsArmed) {
            // A purple disc with a white rim in the lower right, over the breaker's colour.
            const QRectF disc(size - d, size - d, d, d);
            painter.setPen(QPen(Qt::white, rim));
            painter.setBrush(injectedColor());
            painter.drawEllipse(disc.adjusted(0.5, 0.5, -0.5, -0.5));
            QFont font = painter.font();
            font.setBold(true);
            font.setPixelSize(std::max(6, int(d * 0.75)));
            painter.setFont(font);
            painter.drawText(disc, Qt::AlignCenter, u"!"_s);
        }
        if (admissionPaused) {
            // A dark square with the pause sign's two white bars in the lower left: nothing is admitted.
            const QRectF square(0, size - d, d, d);
            painter.setPen(QPen(Qt::white, rim));
            painter.setBrush(pausedColor());
            painter.drawRect(square.adjusted(0.5, 0.5, -0.5, -0.5));
            painter.setPen(Qt::NoPen);
            painter.setBrush(Qt::white);
            const qreal bar = d * 0.18;
            painter.drawRect(QRectF(square.left() + d * 0.25, square.top() + d * 0.25, bar, d * 0.5));
            painter.drawRect(QRectF(square.right() - d * 0.25 - bar, square.top() + d * 0.25, bar, d * 0.5));
        }
        painter.end();
        badged.addPixmap(pixmap);
    }
    return badged;
}

QColor pausedColor()
{
    return QColor(0x37, 0x47, 0x4f);   // slate: admission paused, in the strip's and the icon's badge
}

// The units in the user's language: "≤ 1 min 33 s" sits inside translated sentences.
QString formatDuration(qint64 ms)
{
    if (ms < 1000)
        return QCoreApplication::translate("dashboardstyle", "%1 ms").arg(ms);
    if (ms < 60'000)
        return QCoreApplication::translate("dashboardstyle", "%1 s").arg(double(ms) / 1000.0, 0, 'f', 2);
    return QCoreApplication::translate("dashboardstyle", "%1 min %2 s").arg(ms / 60'000).arg((ms % 60'000) / 1000);
}

QString formatCountdown(qint64 ms)
{
    const qint64 seconds = (std::max<qint64>(ms, 0) + 999) / 1000;
    if (seconds < 60)
        return QCoreApplication::translate("dashboardstyle", "%1 s").arg(seconds);
    return QCoreApplication::translate("dashboardstyle", "%1 min %2 s").arg(seconds / 60).arg(seconds % 60);
}

QString countOf(qint64 n, const QString &singular, const QString &plural)
{
    return u"%1 %2"_s.arg(n).arg(n == 1 ? singular : plural);
}

QString formatUsd(double usd, bool known)
{
    if (!known)
        return u"–"_s;
    // Single calls to small models cost millionths of a dollar: rather than print them as $0.0000
    // (which reads as free), say they are below the smallest amount shown.
    if (usd > 0 && usd < 0.00005)
        return u"<$0.0001"_s;
    if (usd == 0)
        return u"$0"_s;   // nothing, said plainly (not "$0.0000", which reads as rounded)
    return u"$"_s + QString::number(usd, 'f', 4);
}

QString formatClock(qint64 wallMs, bool withMs)
{
    const QDateTime time = QDateTime::fromMSecsSinceEpoch(wallMs);
    return time.toString(withMs ? u"HH:mm:ss.zzz"_s : u"HH:mm:ss"_s);
}

} // namespace dashboardstyle

void dashboardstyle::rescaleToPeak(QValueAxis *axis, double peak, double minimum)
{
    const double top = std::max(peak * 1.15, minimum);
    if (peak > axis->max() || top < axis->max() / 3) {
        axis->setRange(0, top);
        axis->applyNiceNumbers();
        fitLabelsToTicks(axis);
    }
}

int dashboardstyle::decimalsForStep(double step)
{
    for (int decimals = 0; decimals < 4; ++decimals) {
        const double scaled = step * std::pow(10.0, decimals);
        if (std::abs(scaled - std::round(scaled)) < 1e-6 * std::max(1.0, scaled))
            return decimals;
    }
    return 4;
}

void dashboardstyle::fitLabelsToTicks(QValueAxis *axis)
{
    const int ticks = std::max(2, axis->tickCount());
    const double step = (axis->max() - axis->min()) / double(ticks - 1);
    // The axis' first label is its minimum, so the minimum's decimals count too.
    const int decimals = std::max(decimalsForStep(step), decimalsForStep(axis->min()));
    const QString number = u"%.%1f"_s.arg(decimals);
    QString padding;
    if (!axis->titleText().isEmpty() && (axis->alignment() & (Qt::AlignLeft | Qt::AlignRight))) {
        const QFontMetricsF metrics(axis->labelsFont());
        qreal widest = 0;
        for (int tick = 0; tick < ticks; ++tick)
            widest = std::max(widest, metrics.horizontalAdvance(QString::asprintf(qPrintable(number), axis->min() + tick * step)));
        // No-break spaces: the labels are HTML to Qt Charts, which drops any other leading blank.
        const qreal missing = metrics.horizontalAdvance(u"..."_s) - widest;
        const qreal space = metrics.horizontalAdvance(QChar(0xA0));
        if (missing > 0 && space > 0)
            padding = u"&nbsp;"_s.repeated(qCeil(missing / space));
    }
    axis->setLabelFormat(padding + number);
}

bool dashboardstyle::needsTallerLines(const QFont &font, const QString &text)
{
    // Laid out as a label lays it out: each run in the font that has its glyphs.
    QTextLayout layout(text, font);
    layout.beginLayout();
    const QTextLine line = layout.createLine();
    layout.endLayout();
    return line.isValid() && qCeil(line.height()) > QFontMetrics(font).height();
}

void dashboardstyle::showToolTip(QWidget *widget, QEvent *event, const QString &text)
{
    const auto *help = static_cast<QHelpEvent *>(event);
    if (text.isEmpty())
        QToolTip::hideText();
    else
        QToolTip::showText(help->globalPos(), text, widget);
}
