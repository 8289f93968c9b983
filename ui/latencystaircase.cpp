#include "latencystaircase.h"

#include <algorithm>

#include <QDateTime>
#include <QHelpEvent>
#include <QPainter>

#include "dashboardmodel.h"
#include "dashboardstyle.h"
#include "timeaxis.h"

using namespace Qt::StringLiterals;

namespace {
constexpr int kLeft = 44;
constexpr int kRight = 64;        // room for the last bar's duration label
constexpr int kLegendHeight = 40;   // at least two lines: outcomes, then the parts of a bar
constexpr int kSwatchWidth = 14;
constexpr int kSwatchHeight = 12;
constexpr int kAxisHeight = 22;
constexpr int kMaxRowHeight = 18;
// Below this a bar is a dash nobody can point at (a herd's 199 riders left an outage 1 px a bar):
// only the newest bars that get it are drawn, and the side caption says how many of how many.
constexpr int kMinRowHeight = 3;

const QColor kQueueGrey(0x70, 0x70, 0x70);   // a bar's parts (queue wait, joined wait, upstream)

QBrush hatch(const QColor &colour)
{
    QBrush brush(colour.darker(110), Qt::BDiagPattern);
    return brush;
}

QBrush injectedMark()
{
    return QBrush(dashboardstyle::injectedColor(), Qt::DiagCrossPattern);
}

// Answered by a fallback: a failure keeps its failure's colour, since that is what the client got.
template <typename Bar>
bool isFallback(const Bar &bar)
{
    return !bar.inFlight && !bar.record.fallbackFrom.isEmpty() && !isFailure(endingOf(bar.record));
}
} // namespace

LatencyStaircase::LatencyStaircase(QWidget *parent)
    : QWidget(parent)
{
    setMouseTracking(true);
    setMinimumSize(300, 220);   // a third of a laptop's window at 125 % (the legend wraps)
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
}

QSize LatencyStaircase::sizeHint() const
{
    return {560, 480};
}

void LatencyStaircase::setBarLimit(int bars)
{
    m_limit = std::clamp(bars, 1, DashboardModel::kMaxRecords);
}

void LatencyStaircase::refresh(const DashboardModel &model, qint64 nowMs)
{
    m_bars.clear();
    m_firstDrawn = 0;
    m_nowMs = nowMs > 0 ? nowMs : model.latestEventMs();
    const DashboardModel::History &history = model.history();

    // The finished and the unfinished, by arrival; the newest m_limit of them.
    QList<CallRecord> records = model.recentByArrival(m_limit);
    const qsizetype finished = records.size();
    records += model.inFlightCalls();
    std::inplace_merge(records.begin(), records.begin() + finished, records.end(),
                       [](const CallRecord &a, const CallRecord &b) { return a.receivedAtMs < b.receivedAtMs; });
    const qsizetype firstShown = std::max<qsizetype>(0, records.size() - m_limit);
    if (records.isEmpty()) {
        update();
        return;
    }
    m_originMs = records[firstShown].receivedAtMs;
    for (qsizetype i = firstShown; i < records.size(); ++i) {
        const CallRecord &record = records[i];
        if (!record.isClientRequest())
            continue;   // a fallback's refused attempt: its request's bar is the answer's
        Bar bar{record};
        bar.inFlight = record.endAtMs == 0;
        const qint64 end = bar.inFlight ? std::max(m_nowMs, record.receivedAtMs)
                                        : std::max(record.endAtMs, record.receivedAtMs);
        bar.endMs = end;
        if (bar.inFlight) {
            bar.upstreamFromMs = record.receivedAtMs;
            m_bars.append(bar);
            continue;
        }
        switch (record.outcome) {
        case Outcome::Miss:
        case Outcome::Bypass:
            // The pool's measured queue wait; the rest of the bar is the upstream exchange.
            bar.upstreamFromMs = std::min(record.receivedAtMs + std::max<qint64>(record.queueWaitMs, 0), end);
            break;
        case Outcome::Joined:
            bar.joined = true;
            bar.upstreamFromMs = record.receivedAtMs;
            break;
        default:
            bar.answeredHere = true;
            bar.upstreamFromMs = record.receivedAtMs;
            break;
        }
        m_bars.append(bar);
    }
    placeDrawn();
    // Of the bars drawn, those from the call log (this run's calls all arrived after them): the
    // note counts what the axis counts, not every call the log gave (454 beside "200 requests").
    m_historyNote.clear();
    if (history.calls > 0) {
        const auto fromLog = std::count_if(m_bars.cbegin() + m_firstDrawn, m_bars.cend(), [&history](const Bar &bar) {
            return bar.record.receivedAtMs >= history.fromMs && bar.record.receivedAtMs <= history.toMs;
        });
        if (fromLog > 0)
            m_historyNote = tr("%1 of these from the call log (%2–%3)")
                                .arg(fromLog)
                                .arg(QDateTime::fromMSecsSinceEpoch(history.fromMs).toString(u"HH:mm"_s),
                                     QDateTime::fromMSecsSinceEpoch(history.toMs).toString(u"HH:mm"_s));
    }
    update();
}

void LatencyStaircase::placeDrawn()
{
    // The newest bars that get kMinRowHeight each, and the time they span from the first of them.
    const int fit = std::max(plotRect().height() / kMinRowHeight, 1);
    m_firstDrawn = std::max<qsizetype>(0, m_bars.size() - fit);
    if (m_bars.isEmpty())
        return;
    m_originMs = m_bars[m_firstDrawn].record.receivedAtMs;
    qint64 lastEnd = m_originMs + 1;
    for (qsizetype i = m_firstDrawn; i < m_bars.size(); ++i)
        lastEnd = std::max(lastEnd, m_bars[i].endMs);
    // Round the span up a little so the last bar does not touch the edge.
    m_spanMs = std::max<qint64>(lastEnd - m_originMs, 50);
    m_spanMs += m_spanMs / 20;
}

void LatencyStaircase::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    placeDrawn();
}

int LatencyStaircase::drawnBarCount() const
{
    return int(m_bars.size() - m_firstDrawn);
}

QString LatencyStaircase::sideCaption() const
{
    const int drawn = drawnBarCount();
    const QString all = dashboardstyle::countOf(int(m_bars.size()), tr("request"), tr("requests"));
    return drawn == m_bars.size() ? tr("%1 by arrival ↓").arg(all) : tr("newest %1 of %2 by arrival ↓").arg(drawn).arg(all);
}

QString LatencyStaircase::historyNote() const
{
    return m_historyNote;
}

QColor LatencyStaircase::queueWaitColor()
{
    return QColor(0xd2, 0xbf, 0x9e);   // a sand tint: no outcome's colour, and no grey text's either
}

int LatencyStaircase::inFlightBarCount() const
{
    return int(std::count_if(m_bars.begin(), m_bars.end(), [](const Bar &bar) { return bar.inFlight; }));
}

int LatencyStaircase::injectedBarCount() const
{
    return int(std::count_if(m_bars.begin(), m_bars.end(), [](const Bar &bar) { return !bar.record.injected.isEmpty(); }));
}

int LatencyStaircase::fallbackBarCount() const
{
    return int(std::count_if(m_bars.begin(), m_bars.end(), [](const Bar &bar) { return isFallback(bar); }));
}

QList<QByteArray> LatencyStaircase::barRequestIds() const
{
    QList<QByteArray> ids;
    ids.reserve(m_bars.size());
    for (const Bar &bar : m_bars)
        ids.append(bar.record.requestId);
    return ids;
}

QRect LatencyStaircase::plotRect() const
{
    const int legend = legendHeight();
    // A line under the axis for the history note, kept whether or not there is one (no jump).
    const int note = fontMetrics().height();
    return QRect(kLeft, legend + 6, std::max(width() - kLeft - kRight, 10),
                 std::max(height() - legend - kAxisHeight - note - 10, 10));
}

int LatencyStaircase::rowAt(int y) const
{
    const QRect plot = plotRect();
    if (m_bars.isEmpty() || y < plot.top() || y > plot.bottom())
        return -1;
    const qsizetype row = m_firstDrawn + qsizetype((y - plot.top()) / rowHeight());
    return row < m_bars.size() ? int(row) : -1;
}

QString LatencyStaircase::toolTipAt(const QPoint &position) const
{
    const int row = rowAt(position.y());
    if (row < 0)
        return {};
    const Bar &bar = m_bars[row];
    const CallRecord &r = bar.record;
    if (bar.inFlight) {
        return tr("#%1  in flight  %2\n%3 %4\narrived +%5, waiting %6").arg(row + 1)
            .arg(QString::fromLatin1(r.requestId), QString::fromLatin1(r.route), r.model,
                 dashboardstyle::formatDuration(r.receivedAtMs - m_originMs),
                 dashboardstyle::formatDuration(m_nowMs - r.receivedAtMs));
    }
    const Ending ending = endingOf(r);
    QString served = QString::fromLatin1(outcomeName(r.outcome));
    if (ending != Ending::Ok)
        served += tr(", ended %1").arg(QString::fromLatin1(endingName(ending)));
    QString text = u"#%1  %2  %3\n"_s.arg(row + 1).arg(served, QString::fromLatin1(r.requestId));
    text += tr("%1 %2  status %3").arg(QString::fromLatin1(r.route), r.model).arg(r.status) + u'\n';
    text += tr("arrived +%1").arg(dashboardstyle::formatDuration(r.receivedAtMs - m_originMs)) + u'\n';
    if (bar.joined) {
        text += tr("waited on a joined flight %1").arg(dashboardstyle::formatDuration(r.totalMs())) + u'\n';
    } else if (!bar.answeredHere) {
        text += tr("queue wait %1, upstream %2").arg(dashboardstyle::formatDuration(bar.upstreamFromMs - r.receivedAtMs),
                                                     dashboardstyle::formatDuration(r.endAtMs - bar.upstreamFromMs)) + u'\n';
    }
    text += tr("total %1").arg(dashboardstyle::formatDuration(r.totalMs()));
    if (!r.injected.isEmpty())
        text += u'\n' + tr("injected by Breakwater: %1").arg(r.injected);
    if (!r.fallbackFrom.isEmpty())
        text += u"\n"_s + tr("answered by %1, the fallback of %2").arg(QString::fromUtf8(r.upstream), QString::fromUtf8(r.fallbackFrom));
    return text;
}

bool LatencyStaircase::event(QEvent *event)
{
    if (event->type() == QEvent::ToolTip) {
        dashboardstyle::showToolTip(this, event, toolTipAt(static_cast<QHelpEvent *>(event)->pos()));
        return true;
    }
    return QWidget::event(event);
}

QList<LatencyStaircase::LegendEntry> LatencyStaircase::legendEntries() const
{
    QList<LegendEntry> entries;
    // Failures are drawn in their kind's colour, not in one "failed" colour.
    for (int i = 0; i < DashboardModel::kCategoryCount; ++i) {
        const auto category = DashboardModel::Category(i);
        // A fallback's entry comes with the failures below, when a bar has it.
        if (category != DashboardModel::Category::Failed && category != DashboardModel::Category::Fallback)
            entries.append({dashboardstyle::outcomeColor(category), Qt::NoBrush, DashboardModel::categoryName(category)});
    }
    entries.append({dashboardstyle::inFlightColor().lighter(130), hatch(dashboardstyle::inFlightColor()), tr("in flight")});
    // The parts of a bar start a line of their own.
    const QColor grey = kQueueGrey;
    entries.append({queueWaitColor(), hatch(grey), tr("queue wait"), true});
    QColor tint = grey;
    tint.setAlpha(110);
    entries.append({tint, Qt::NoBrush, tr("joined wait")});
    entries.append({grey, Qt::NoBrush, tr("upstream")});
    // Only the kinds of failure among the bars: there is room for a few, not for all.
    for (const Ending ending : dashboardstyle::failureEndings()) {
        const bool shown = std::any_of(m_bars.begin(), m_bars.end(),
                                       [ending](const Bar &bar) { return !bar.inFlight && endingOf(bar.record) == ending; });
        if (shown)
            entries.append({dashboardstyle::failureColor(ending), Qt::NoBrush, dashboardstyle::failureLabel(ending)});
    }
    if (injectedBarCount() > 0)
        entries.append({grey.lighter(170), injectedMark(), tr("injected")});
    if (fallbackBarCount() > 0)
        entries.append({dashboardstyle::fallbackColor(), Qt::NoBrush, tr("fallback")});
    return entries;
}

QList<QRect> LatencyStaircase::legendLayout(const QList<LegendEntry> &entries, int *height) const
{
    // Entries flow left to right and wrap where the widget ends, so a narrow staircase (a third of
    // a laptop's width) shows its last entry whole on another line instead of cutting it.
    const QFontMetrics metrics(font());
    const int lineStep = std::max(metrics.height(), kSwatchHeight) + 2;
    const int right = width() - 4;
    int x = kLeft;
    int y = 4;
    QList<QRect> rects;
    for (const LegendEntry &entry : entries) {
        const int entryWidth = kSwatchWidth + 4 + metrics.horizontalAdvance(entry.label);
        if (x > kLeft && (entry.newLine || x + entryWidth > right)) {
            x = kLeft;
            y += lineStep;
        }
        rects.append(QRect(x, y, entryWidth, lineStep - 2));
        x += entryWidth + 12;
    }
    if (height)
        *height = std::max(kLegendHeight, y + lineStep + 2);
    return rects;
}

int LatencyStaircase::legendHeight() const
{
    int height = kLegendHeight;
    legendLayout(legendEntries(), &height);
    return height;
}

QStringList LatencyStaircase::legendLabels() const
{
    QStringList labels;
    for (const LegendEntry &entry : legendEntries())
        labels.append(entry.label);
    return labels;
}

int LatencyStaircase::axisLength() const
{
    // As far down as the bars go: a few bars of kMaxRowHeight leave the rest of the plot empty.
    const QRect plot = plotRect();
    if (m_bars.isEmpty())
        return plot.height();
    return int(std::min<double>(plot.height(), drawnBarCount() * rowHeight()));
}

double LatencyStaircase::rowHeight() const
{
    return std::min<double>(kMaxRowHeight, double(plotRect().height()) / drawnBarCount());
}

QRect LatencyStaircase::sideCaptionRoom() const
{
    const int along = axisLength();
    // Across, the whole left margin: a caption longer than the axis (a short window) wraps onto a
    // second line instead of running off both ends.
    return QRect(0, 0, along, kLeft - 4);
}

QList<QRect> LatencyStaircase::legendRects() const
{
    return legendLayout(legendEntries(), nullptr);
}

void LatencyStaircase::paintLegend(QPainter &painter)
{
    const QList<LegendEntry> entries = legendEntries();
    const QList<QRect> rects = legendLayout(entries, nullptr);
    const QFontMetrics metrics(font());
    painter.setPen(palette().color(QPalette::Text));
    for (qsizetype i = 0; i < entries.size(); ++i) {
        const QRect swatch(rects[i].left(), rects[i].top(), kSwatchWidth, kSwatchHeight);
        painter.fillRect(swatch, entries[i].fill);
        if (entries[i].overlay.style() != Qt::NoBrush)
            painter.fillRect(swatch, entries[i].overlay);
        // The text centred on the swatch, whatever the font's size.
        painter.drawText(QPoint(swatch.right() + 5, swatch.top() + (kSwatchHeight + metrics.ascent() - metrics.descent()) / 2),
                         entries[i].label);
    }
}

void LatencyStaircase::paintEvent(QPaintEvent *)
{
    QPainter painter(this);
    painter.fillRect(rect(), palette().base());
    paintLegend(painter);
    const QRect plot = plotRect();
    if (m_bars.isEmpty()) {
        painter.setPen(palette().color(QPalette::PlaceholderText));
        painter.drawText(plot, Qt::AlignCenter, tr("No requests yet"));
        return;
    }
    const double rowHeight = this->rowHeight();
    const double gap = rowHeight >= 5 ? 1.0 : 0.0;
    const double scale = double(plot.width()) / double(m_spanMs);
    const auto xFor = [&](qint64 atMs) { return plot.left() + double(atMs - m_originMs) * scale; };

    // Light vertical grid at the axis ticks, behind the bars.
    painter.setPen(palette().color(QPalette::Midlight));
    for (const qint64 t : timeaxis::ticks(0, m_spanMs, std::max(2, plot.width() / 80)))
        painter.drawLine(QPointF(plot.left() + t * scale, plot.top()), QPointF(plot.left() + t * scale, plot.bottom()));

    const QFontMetrics metrics(font());
    for (qsizetype i = m_firstDrawn; i < m_bars.size(); ++i) {
        const Bar &bar = m_bars[i];
        const CallRecord &r = bar.record;
        const QColor colour = bar.inFlight ? dashboardstyle::inFlightColor()
                            : isFallback(bar)  ? dashboardstyle::fallbackColor()
                                               : dashboardstyle::callColor(r);
        const double top = plot.top() + double(i - m_firstDrawn) * rowHeight;
        const double h = std::max(rowHeight - gap, 1.0);
        const double start = xFor(r.receivedAtMs);
        const qint64 endMs = bar.inFlight ? m_nowMs : r.endAtMs;
        const double end = std::max(xFor(std::max(endMs, r.receivedAtMs)), start + 3.0);   // a 1 ms answer still shows
        if (bar.inFlight) {
            // Hatched like a wait: nothing is known yet but how long it has taken.
            const QRectF waiting(start, top, end - start, h);
            painter.fillRect(waiting, colour.lighter(130));
            painter.fillRect(waiting, hatch(colour));
        } else if (bar.joined) {
            QColor tint = colour;
            tint.setAlpha(130);
            painter.fillRect(QRectF(start, top, end - start, h), tint);
        } else if (bar.answeredHere) {
            painter.fillRect(QRectF(start, top, end - start, h), colour);
        } else {
            const double split = std::clamp(xFor(bar.upstreamFromMs), start, end);
            if (split > start) {
                // In the legend's "queue wait" grey: in the call's own colour, hatched, it read as
                // the "in flight" swatch on a call that had ended.
                const QRectF wait(start, top, split - start, h);
                painter.fillRect(wait, queueWaitColor());
                painter.fillRect(wait, hatch(kQueueGrey));
            }
            painter.fillRect(QRectF(split, top, end - split, h), colour);
        }
        if (!bar.inFlight && !r.injected.isEmpty())
            painter.fillRect(QRectF(start, top, end - start, h), injectedMark());
        // With few bars there is room to print each one's total at its end.
        if (rowHeight >= metrics.height()) {
            painter.setPen(palette().color(QPalette::Text));
            const qint64 total = bar.inFlight ? m_nowMs - r.receivedAtMs : r.totalMs();
            painter.drawText(QPointF(end + 6, top + (h + metrics.ascent() - metrics.descent()) / 2),
                             dashboardstyle::formatDuration(total) + (bar.inFlight ? u"…"_s : QString()));
        }
    }

    // Axes: seconds since the first shown arrival along the bottom, arrival order down the side.
    painter.setPen(palette().color(QPalette::PlaceholderText));
    painter.drawLine(plot.topLeft(), plot.bottomLeft());
    const QRect axis(plot.left(), plot.top(), plot.width(), axisLength());
    timeaxis::drawBottom(painter, axis, 0, m_spanMs, std::max(2, plot.width() / 80), false);
    painter.save();
    // Upright, the room's left end at the axis' bottom: the caption reads upwards.
    const QRect room = sideCaptionRoom();
    painter.translate(1, plot.top() + room.width());
    painter.rotate(-90);
    painter.drawText(room, Qt::AlignHCenter | Qt::AlignTop | Qt::TextWordWrap, sideCaption());
    painter.restore();
    if (!m_historyNote.isEmpty()) {
        // Under the axis, in a line of its own (over the bars it hid some and read as a count).
        painter.setPen(palette().color(QPalette::PlaceholderText));
        painter.drawText(QRect(plot.left(), plot.bottom() + kAxisHeight, plot.width(), metrics.height()),
                         Qt::AlignRight | Qt::AlignVCenter, m_historyNote);
    }
}
