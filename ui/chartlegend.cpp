#include "chartlegend.h"

#include <QAreaSeries>
#include <QChart>
#include <QLegend>
#include <QLineSeries>
#include <QScatterSeries>
#include <QTextDocument>
#include <QtMath>

using namespace Qt::StringLiterals;

namespace {

constexpr int kEntryGap = 14;   // between two entries on a line

QString hollow(const QString &swatch)
{
    return swatch == u"■"_s ? u"□"_s : swatch == u"●"_s ? u"○"_s : u"┅"_s;
}

} // namespace

ChartLegend::ChartLegend(QChart *chart, QWidget *parent)
    : QLabel(parent)
    , m_chart(chart)
{
    setTextFormat(Qt::RichText);
    setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);
    setContentsMargins(4, 0, 4, 0);
    chart->legend()->setVisible(false);
    refresh();
}

void ChartLegend::refresh()
{
    QList<Entry> entries;
    for (QAbstractSeries *series : m_chart->series()) {
        if (series->name().isEmpty())
            continue;
        // A band or a dot is a square, a line is a dash.
        Entry entry{series->name(), u"■"_s, {}, series->isVisible()};
        if (auto *area = qobject_cast<QAreaSeries *>(series)) {
            entry.colour = area->color();
        } else if (auto *scatter = qobject_cast<QScatterSeries *>(series)) {
            entry.colour = scatter->color();
            entry.swatch = u"●"_s;
        } else if (auto *line = qobject_cast<QLineSeries *>(series)) {
            entry.colour = line->pen().color();
            entry.swatch = u"━"_s;
        }
        entries.append(entry);
    }
    if (entries == m_entries && !text().isEmpty())
        return;
    m_entries = entries;
    setAccessibleName(tr("Legend: %1").arg(this->entries().join(u", "_s)));
    m_laidOutWidth = -1;
    layOut();
}

QStringList ChartLegend::entries() const
{
    QStringList names;
    for (const Entry &entry : m_entries)
        names.append(entry.name);
    return names;
}

void ChartLegend::setColumnWidth(int maxWidth)
{
    if (maxWidth == m_columnWidth)
        return;
    const bool fontChanges = (maxWidth > 0) != (m_columnWidth > 0);
    m_columnWidth = maxWidth;
    if (fontChanges) {
        QFont font = this->font();
        font.setPointSizeF(font.pointSizeF() * (maxWidth > 0 ? 0.85 : 1 / 0.85));
        setFont(font);
    }
    setWordWrap(maxWidth > 0);
    setSizePolicy(maxWidth > 0 ? QSizePolicy::Fixed : QSizePolicy::Ignored, QSizePolicy::Fixed);
    if (maxWidth <= 0) {
        setMinimumWidth(0);
        setMaximumWidth(QWIDGETSIZE_MAX);
    }
    m_laidOutWidth = -1;
    layOut();
}

void ChartLegend::setDense(bool dense)
{
    if (dense == m_dense)
        return;
    m_dense = dense;
    m_laidOutWidth = -1;
    layOut();
}

void ChartLegend::layOut()
{
    const QFontMetrics metrics = fontMetrics();
    const auto entryWidth = [&](const Entry &entry) { return metrics.horizontalAdvance(entry.swatch + u' ' + entry.name); };
    int width = contentsRect().width();
    if (m_columnWidth > 0) {
        // As wide as the widest name that fits the column: the failure line's long one wraps.
        width = 0;
        for (const Entry &entry : m_entries)
            width = std::max(width, std::min(entryWidth(entry), m_columnWidth));
    }
    if (width == m_laidOutWidth)
        return;
    m_laidOutWidth = width;
    // Greedy lines: an entry goes on the next line when it does not fit whole on this one (in a
    // column, always).
    QStringList lines{QString()};
    int x = 0;
    for (const Entry &entry : m_entries) {
        if (x > 0 && (m_columnWidth > 0 || x + kEntryGap + entryWidth(entry) > width)) {
            lines.append(QString());
            x = 0;
        }
        if (x > 0)
            lines.last() += u"&nbsp;&nbsp;&nbsp;"_s;
        x += (x > 0 ? kEntryGap : 0) + entryWidth(entry);
        // The names always in the text colour: a disabled grey on the dark ground was hard to read
        // (3.2:1); a hidden series says so by its swatch alone, greyed and hollow.
        const QColor colour = entry.shown ? entry.colour : palette().color(QPalette::Disabled, QPalette::WindowText);
        const QString swatch = entry.shown ? entry.swatch : hollow(entry.swatch);
        // A name that fits keeps its spaces unbreakable; a longer one in a column wraps.
        QString name = entry.name.toHtmlEscaped();
        if (entryWidth(entry) <= width)
            name.replace(u' ', u"&nbsp;"_s);
        lines.last() += u"<span style='color:%1'>%2</span>&nbsp;<span style='color:%3'>%4</span>"_s.arg(
            colour.name(), swatch, textColour().name(), name);
    }
    const QString html = m_dense ? u"<p style='line-height:%1px'>%2</p>"_s.arg(metrics.lineSpacing()).arg(lines.join(u"<br>"_s))
                                 : lines.join(u"<br>"_s);
    if (text() != html)
        setText(html);
    m_lines = int(lines.size());
    // As tall as the text is laid out: a Chinese name falls back on a CJK font whose lines are
    // taller than this font's lineSpacing (the second line was cut under zh_CN).
    QTextDocument laidOut;
    laidOut.setDefaultFont(font());
    laidOut.setDocumentMargin(0);
    laidOut.setHtml(html);
    if (m_columnWidth > 0)
        laidOut.setTextWidth(width);
    const int textHeight = std::max(m_lines * metrics.lineSpacing(), qCeil(laidOut.size().height()));
    const int height = textHeight + contentsMargins().top() + contentsMargins().bottom() + 2;
    if (minimumHeight() != height)
        setFixedHeight(height);
    if (m_columnWidth > 0)
        setFixedWidth(width + contentsMargins().left() + contentsMargins().right());
}

QSize ChartLegend::sizeHint() const
{
    return {m_columnWidth > 0 ? minimumWidth() : 0, minimumHeight()};
}

QSize ChartLegend::minimumSizeHint() const
{
    return sizeHint();
}

QColor ChartLegend::textColour() const
{
    return palette().color(QPalette::Active, QPalette::WindowText);
}

void ChartLegend::changeEvent(QEvent *event)
{
    QLabel::changeEvent(event);
    // The colours are written into the text: a new palette (View > Theme) lays it out again.
    if (event->type() == QEvent::PaletteChange) {
        m_laidOutWidth = -1;
        layOut();
    }
}

void ChartLegend::resizeEvent(QResizeEvent *event)
{
    QLabel::resizeEvent(event);
    layOut();
}
