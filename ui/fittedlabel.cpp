#include "fittedlabel.h"

#include <algorithm>
#include <numeric>

FittedLabel::FittedLabel(QWidget *parent)
    : QLabel(parent)
{
    setTextFormat(Qt::PlainText);
    setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
}

void FittedLabel::setParts(const QList<Part> &parts, const QString &separator)
{
    m_parts = parts;
    m_separator = separator;
    m_whole = join(parts, QList<int>(parts.size(), 0), separator);
    if (toolTip() != m_whole)
        setToolTip(m_whole);
    fit();
}

void FittedLabel::setWholeText(const QString &text)
{
    setParts({Part{{text}, 0}}, {});
}

QString FittedLabel::join(const QList<Part> &parts, const QList<int> &form, const QString &separator)
{
    QStringList shown;
    for (qsizetype i = 0; i < parts.size(); ++i) {
        if (parts[i].forms.isEmpty())
            continue;
        const QString &text = parts[i].forms[std::min<qsizetype>(form[i], parts[i].forms.size() - 1)];
        if (!text.isEmpty())
            shown << text;
    }
    return shown.join(separator);
}

QString FittedLabel::lineFor(int width) const
{
    const QFontMetrics metrics = fontMetrics();
    QList<int> form(m_parts.size(), 0);
    QString line = join(m_parts, form, m_separator);
    // Round by round: every part that has a shorter form takes it, in the order they give way,
    // before any part goes down to the form after (so all are shortened before one is left out).
    QList<qsizetype> order(m_parts.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [this](qsizetype a, qsizetype b) { return m_parts[a].yieldOrder < m_parts[b].yieldOrder; });
    qsizetype rounds = 0;
    for (const Part &part : m_parts)
        rounds = std::max(rounds, part.forms.size());
    for (int round = 1; round < rounds && metrics.horizontalAdvance(line) > width; ++round) {
        for (const qsizetype part : order) {
            if (m_parts[part].forms.size() <= round)
                continue;
            form[part] = round;
            line = join(m_parts, form, m_separator);
            if (metrics.horizontalAdvance(line) <= width)
                break;
        }
    }
    return line;
}

QSize FittedLabel::sizeHint() const
{
    const QMargins margins = contentsMargins();
    return {fontMetrics().horizontalAdvance(m_whole) + margins.left() + margins.right(), QLabel::sizeHint().height()};
}

QSize FittedLabel::minimumSizeHint() const
{
    return {0, QLabel::minimumSizeHint().height()};
}

void FittedLabel::resizeEvent(QResizeEvent *event)
{
    QLabel::resizeEvent(event);
    fit();
}

void FittedLabel::fit()
{
    // setText repaints: only when the line changes.
    const QString line = lineFor(contentsRect().width());
    if (text() != line)
        setText(line);
}
