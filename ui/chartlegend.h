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

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

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
};
