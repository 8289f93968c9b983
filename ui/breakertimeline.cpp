#include "breakertimeline.h"

#include <QContextMenuEvent>
#include <QHelpEvent>
#include <QMenu>
#include <QMouseEvent>
#include <QPainter>

#include "dashboardstyle.h"
#include "timeaxis.h"

using namespace Qt::StringLiterals;

namespace {
constexpr int kNameWidth = 92;
constexpr int kTop = 8;
constexpr int kRowHeight = 26;
constexpr int kShortRowHeight = 16;   // a line of text and a pixel either side
constexpr int kRowGap = 10;
constexpr int kMarkerReach = 5;   // pixels either side of a transition tick that show its tooltip
} // namespace

BreakerTimeline::BreakerTimeline(QWidget *parent)
    : QWidget(parent)
{
    setMouseTracking(true);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    // paintEvent fills every pixel: the frame and the tab's page behind it need not repaint at
    // each step of the clock axis (issue 26).
    setAttribute(Qt::WA_OpaquePaintEvent);
    // A plain widget this one paints (eventFilter): it lives in the frame's title row when short.
    m_legend = new QWidget(this);
    m_legend->installEventFilter(this);
    m_legend->hide();
}

QSize BreakerTimeline::sizeHint() const
{
    // Rows, then the axis labels, then the legend (unless short), each a line of text high.
    const int rows = int(std::max<qsizetype>(m_rows.size(), 2));
    const int line = fontMetrics().height();
    const int rowsAndAxis = kTop + rows * (rowHeight() + kRowGap) - kRowGap + 4 + 5 + line;
    return {480, rowsAndAxis + (m_short ? 1 : 10 + line + 6)};
}

void BreakerTimeline::setShort(bool shortRows)
{
    if (shortRows == m_short)
        return;
    m_short = shortRows;
    if (m_short) {
        QFont smaller = font();
        smaller.setPointSizeF(smaller.pointSizeF() * 0.85);
        m_legend->setFont(smaller);
        fitLegend();
    }
    m_legend->setVisible(m_short);
    updateGeometry();
    update();
}

void BreakerTimeline::fitLegend()
{
    // As wide as its entries, the paused one included while the window holds a pause.
    m_legend->setFixedSize(paintLegend(nullptr, m_legend->font(), 0, 0), m_legend->fontMetrics().height() + 2);
}

bool BreakerTimeline::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_legend && event->type() == QEvent::Paint) {
        QPainter painter(m_legend);
        painter.setFont(m_legend->font());
        paintLegend(&painter, m_legend->font(), 0, 1 + m_legend->fontMetrics().ascent());
        return true;
    }
    return QWidget::eventFilter(watched, event);
}

int BreakerTimeline::rowHeight() const
{
    return m_short ? kShortRowHeight : kRowHeight;
}

QSize BreakerTimeline::minimumSizeHint() const
{
    return {240, sizeHint().height()};
}

void BreakerTimeline::refresh(const DashboardModel &model, qint64 fromMs, qint64 toMs)
{
    m_fromMs = fromMs;
    m_toMs = std::max(toMs, fromMs + 1);
    const qsizetype before = m_rows.size();
    m_rows.clear();
    for (const QString &upstream : model.upstreams())
        m_rows.append({upstream, model.bands(upstream, fromMs, toMs), model.transitions(upstream, fromMs, toMs)});
    const bool wasPaused = !m_pausedSpans.isEmpty();
    m_pausedSpans = model.pausedSpans(fromMs, toMs);
    if (m_rows.size() != before)
        updateGeometry();
    if (m_short && wasPaused != !m_pausedSpans.isEmpty()) {
        fitLegend();
        m_legend->update();
    }
    update();
}

int BreakerTimeline::bandCount() const
{
    int count = 0;
    for (const Row &row : m_rows)
        count += int(row.bands.size());
    return count;
}

int BreakerTimeline::transitionCount() const
{
    int count = 0;
    for (const Row &row : m_rows)
        count += int(row.transitions.size());
    return count;
}

QRect BreakerTimeline::plotRect() const
{
    const int rows = int(m_rows.size());
    const int height = std::max(rows, 1) * (rowHeight() + kRowGap) - kRowGap;
    return QRect(kNameWidth, kTop, std::max(width() - kNameWidth - 12, 10), height);
}

QRect BreakerTimeline::rowRect(int row) const
{
    const QRect plot = plotRect();
    return QRect(plot.left(), plot.top() + row * (rowHeight() + kRowGap), plot.width(), rowHeight());
}

int BreakerTimeline::xFor(qint64 atMs) const
{
    const QRect plot = plotRect();
    return plot.left() + int(double(atMs - m_fromMs) * plot.width() / double(m_toMs - m_fromMs));
}

qint64 BreakerTimeline::timeAt(int x) const
{
    const QRect plot = plotRect();
    return m_fromMs + qint64(double(x - plot.left()) * double(m_toMs - m_fromMs) / plot.width());
}

QString BreakerTimeline::toolTipAt(const QPoint &position) const
{
    for (int r = 0; r < m_rows.size(); ++r) {
        const Row &row = m_rows[r];
        const QRect rect = rowRect(r).adjusted(0, -4, 0, 4);
        if (!rect.contains(position))
            continue;
        // Transitions under the pointer win over the band they bound (several can share a pixel:
        // a probe's half-open and the trial's close are often milliseconds apart).
        QStringList near;
        for (const BreakerTransition &transition : row.transitions) {
            if (std::abs(xFor(transition.atMs) - position.x()) <= kMarkerReach) {
                near << u"%1  %2: %3 → %4\n%5"_s.arg(dashboardstyle::formatClock(transition.atMs), row.upstream,
                                                      dashboardstyle::breakerLabel(transition.from),
                                                      dashboardstyle::breakerLabel(transition.to), transition.reason.translated());
            }
        }
        if (!near.isEmpty())
            return near.join(u"\n\n"_s);
        const qint64 at = timeAt(position.x());
        for (const DashboardModel::Band &band : row.bands) {
            if (at >= band.startMs && at <= band.endMs) {
                return tr("%1: %2\n%3 – %4 (%5)\nclick: the calls received then; right-click: replot the charts for it").arg(
                    row.upstream, dashboardstyle::breakerLabel(band.state), dashboardstyle::formatClock(band.startMs, false),
                    dashboardstyle::formatClock(band.endMs, false), dashboardstyle::formatDuration(band.endMs - band.startMs));
            }
        }
    }
    return {};
}

QRect BreakerTimeline::bandRect(int row, int index) const
{
    if (row < 0 || row >= m_rows.size() || index < 0 || index >= m_rows[row].bands.size())
        return {};
    const QRect rect = rowRect(row);
    const DashboardModel::Band &band = m_rows[row].bands[index];
    const int left = std::max(xFor(band.startMs), rect.left());
    const int right = std::min(xFor(band.endMs), rect.right());
    return QRect(left, rect.top(), std::max(right - left, 1), rect.height());
}

std::pair<int, int> BreakerTimeline::bandAt(const QPoint &at) const
{
    for (int r = 0; r < m_rows.size(); ++r) {
        for (int i = 0; i < m_rows[r].bands.size(); ++i) {
            if (bandRect(r, i).contains(at))
                return {r, i};
        }
    }
    return {-1, -1};
}

void BreakerTimeline::mousePressEvent(QMouseEvent *event)
{
    const auto [row, index] = bandAt(event->position().toPoint());
    if (event->button() != Qt::LeftButton || row < 0)
        return QWidget::mousePressEvent(event);
    const DashboardModel::Band &band = m_rows[row].bands[index];
    Q_EMIT bandClicked(m_rows[row].upstream, std::max(band.startMs, m_fromMs), std::min(band.endMs, m_toMs), band.state);
}

void BreakerTimeline::contextMenuEvent(QContextMenuEvent *event)
{
    const auto [row, index] = bandAt(event->pos());
    if (row < 0)
        return QWidget::contextMenuEvent(event);
    const DashboardModel::Band band = m_rows[row].bands[index];
    const QString upstream = m_rows[row].upstream;
    const qint64 from = std::max(band.startMs, m_fromMs);
    const qint64 to = std::min(band.endMs, m_toMs);
    QMenu menu(this);
    connect(menu.addAction(tr("Show the calls of this time")), &QAction::triggered, this,
            [=, this] { Q_EMIT bandClicked(upstream, from, to, band.state); });
    connect(menu.addAction(tr("Replot every chart for this interval")), &QAction::triggered, this,
            [=, this] { Q_EMIT replotRequested(from, to); });
    menu.exec(event->globalPos());
}

bool BreakerTimeline::event(QEvent *event)
{
    if (event->type() == QEvent::ToolTip) {
        dashboardstyle::showToolTip(this, event, toolTipAt(static_cast<QHelpEvent *>(event)->pos()));
        return true;
    }
    return QWidget::event(event);
}

void BreakerTimeline::paintEvent(QPaintEvent *)
{
    QPainter painter(this);
    painter.fillRect(rect(), palette().base());
    painter.setRenderHint(QPainter::Antialiasing, false);
    const QFontMetrics metrics(font());
    if (m_rows.isEmpty()) {
        painter.setPen(palette().color(QPalette::PlaceholderText));
        painter.drawText(rect(), Qt::AlignCenter, tr("No breaker data yet"));
        return;
    }
    for (int r = 0; r < m_rows.size(); ++r) {
        const Row &row = m_rows[r];
        const QRect rect = rowRect(r);
        painter.setPen(palette().color(QPalette::Text));
        painter.drawText(QRect(4, rect.top(), kNameWidth - 10, rect.height()), Qt::AlignVCenter | Qt::AlignRight,
                         row.upstream);
        painter.fillRect(rect, palette().color(QPalette::AlternateBase));   // no data: before the app saw this upstream
        for (int i = 0; i < row.bands.size(); ++i) {
            const DashboardModel::Band &band = row.bands[i];
            const QRect bandRect = this->bandRect(r, i);
            painter.fillRect(bandRect, dashboardstyle::breakerColor(band.state));
            const QString label = dashboardstyle::breakerLabel(band.state);
            if (bandRect.width() > metrics.horizontalAdvance(label) + 12) {
                painter.setPen(Qt::white);
                painter.drawText(bandRect.adjusted(6, 0, 0, 0), Qt::AlignVCenter | Qt::AlignLeft, label);
            }
        }
        // Transition ticks: a line in the text's colour across the row with a small triangle above it.
        painter.setRenderHint(QPainter::Antialiasing, true);
        for (const BreakerTransition &transition : row.transitions) {
            const int x = xFor(transition.atMs);
            painter.setPen(QPen(palette().color(QPalette::Text), 2));
            painter.drawLine(x, rect.top() - 3, x, rect.bottom() + 3);
            const QPolygon marker({QPoint(x - 4, rect.top() - 7), QPoint(x + 4, rect.top() - 7), QPoint(x, rect.top() - 2)});
            painter.setBrush(dashboardstyle::breakerColor(transition.to));
            painter.setPen(QPen(palette().color(QPalette::Text), 1));
            painter.drawPolygon(marker);
        }
        painter.setRenderHint(QPainter::Antialiasing, false);
    }
    const QRect plot = plotRect();
    // Admission paused: a hatched slate over every row, as nothing was admitted to any upstream.
    for (const auto &[start, end] : m_pausedSpans) {
        const QRect span(QPoint(xFor(start), plot.top()), QPoint(std::max(xFor(end), xFor(start) + 2), plot.bottom()));
        QColor slate = dashboardstyle::pausedColor();
        slate.setAlpha(150);
        painter.fillRect(span, QBrush(slate, Qt::BDiagPattern));
        painter.fillRect(QRect(span.left(), plot.top(), 2, plot.height()), dashboardstyle::pausedColor());
    }
    const QRect axisPlot(plot.left(), plot.top(), plot.width(), plot.height() + 4);
    timeaxis::drawBottom(painter, axisPlot, m_fromMs, m_toMs, std::max(2, plot.width() / 90), true);

    // Legend under the axis labels, unless the frame's title row holds it.
    if (!m_short)
        paintLegend(&painter, font(), plot.left(), axisPlot.bottom() + 5 + metrics.height() + 10 + metrics.ascent());
}

int BreakerTimeline::paintLegend(QPainter *painter, const QFont &font, int x, int y) const
{
    const QFontMetrics metrics(font);
    const int swatch = metrics.ascent() + 1;   // 12 px at the dashboard's font
    const QColor text = palette().color(QPalette::Text);
    const auto entry = [&](const QBrush &brush, const QString &label) {
        if (painter) {
            painter->fillRect(QRect(x, y - metrics.ascent() + 1, swatch, swatch), brush);
            painter->setPen(text);
            painter->drawText(x + swatch + 4, y, label);
        }
        x += swatch + 4 + metrics.horizontalAdvance(label);
    };
    for (const BreakerState state : {BreakerState::Closed, BreakerState::HalfOpen, BreakerState::Open}) {
        entry(dashboardstyle::breakerColor(state), dashboardstyle::breakerLabel(state));
        x += 14;
    }
    const QString transition = tr("transition (hover for the reason)");
    if (painter) {
        painter->setPen(QPen(text, 2));
        painter->drawLine(x + 4, y - metrics.ascent(), x + 4, y + 1);
        painter->setPen(text);
        painter->drawText(x + 12, y, transition);
    }
    x += 12 + metrics.horizontalAdvance(transition);
    if (!m_pausedSpans.isEmpty()) {
        x += 14;
        entry(QBrush(dashboardstyle::pausedColor(), Qt::BDiagPattern), tr("admission paused"));
    }
    return x;
}
