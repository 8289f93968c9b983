#pragma once

#include <QColor>
#include <QLabel>

class QChart;

// A chart's legend as lines of text above it, broken between entries to fit its width: Qt Charts'
// own legend either cuts its entries ("joi...") or, in a column beside the plot, leaves the plot a
// third of the width (issue 27: a 150 px plot beside a larger legend). It lists every named series
// of the chart with a swatch in its colour, a hidden one's greyed and hollow (its name stays in the
// text colour, readable on a dark ground too), so its height does not change
// when a series comes and goes (nothing under it moves); refresh() follows names and visibility.
class ChartLegend final : public QLabel
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ChartLegend)
public:
    explicit ChartLegend(QChart *chart, QWidget *parent = nullptr);

    void refresh();   // after series were renamed, shown or hidden; repaints only on a change
    QStringList entries() const;   // the names listed, in order
    int lineCount() const { return m_lines; }
    QColor textColour() const;   // the names' colour: the palette's WindowText
    // A column beside the plot, an entry a line, at most `maxWidth` wide (a longer name wraps), in a
    // slightly smaller font; 0: lines above the plot (the default).
    void setColumnWidth(int maxWidth);
    // Dense: each line as tall as the font's own line spacing, not a fallback font's taller line
    // (a CJK name's): the glyphs fit it. For a column in a short tab.
    void setDense(bool dense);

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;
    // Its height is fixed by layOut(); a wrapping QLabel would say otherwise, and a layout holding
    // a height-for-width item sizes a scroll area's content by preferred heights (it scrolled).
    bool hasHeightForWidth() const override { return false; }

protected:
    void changeEvent(QEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;

private:
    struct Entry
    {
        QString name;
        QString swatch;
        QColor colour;
        bool shown = true;
        bool operator==(const Entry &) const = default;
    };
    void layOut();

    QChart *m_chart;
    QList<Entry> m_entries;
    int m_lines = 1;
    int m_laidOutWidth = -1;
    int m_columnWidth = 0;
    bool m_dense = false;
};
