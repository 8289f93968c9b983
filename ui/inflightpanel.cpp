#include "inflightpanel.h"

#include <QHeaderView>
#include <QLabel>
#include <QTableView>
#include <QVBoxLayout>

#include "dashboardstyle.h"
#include "inflighttablemodel.h"

using namespace Qt::StringLiterals;

InFlightPanel::InFlightPanel(QWidget *parent)
    : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    m_summary = new QLabel(this);
    m_summary->setWordWrap(true);
    layout->addWidget(m_summary);
    m_table = new InFlightTableModel(this);
    m_view = new QTableView(this);
    m_view->setModel(m_table);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->verticalHeader()->setDefaultSectionSize(m_view->fontMetrics().height() + 6);
    m_view->verticalHeader()->hide();
    m_view->setAlternatingRowColors(true);
    m_view->setWordWrap(false);
    QHeaderView *header = m_view->horizontalHeader();
    // The riders take what is left of the width, more or less (their sample is the roomiest): at
    // 125 % on a 1366x768 laptop the typical widths below came to a pixel more than the window, and
    // a scroll bar took a row.
    header->setSectionResizeMode(InFlightTableModel::Riders, QHeaderView::Stretch);
    // Widths from the header and typical values, set once: resizing to contents every tick would
    // scan every row ten times a second.
    const QFontMetrics metrics = m_view->fontMetrics();
    const QList<std::pair<int, QString>> widths{
        {InFlightTableModel::Route, u"/v1/chat/completions__"_s},
        {InFlightTableModel::Model, u"claude-3-5-sonnet-latest"_s},
        {InFlightTableModel::Age, u"00 min 00 s__"_s},
        {InFlightTableModel::Riders, InFlightTableModel::tr("1 + %1 joined").arg(u"000"_s) + u' ' + InFlightTableModel::tr("(%1 hung up)").arg(u"00"_s)},
        {InFlightTableModel::Bytes, u"0,000,000__"_s},
        {InFlightTableModel::Events, InFlightTableModel::tr("Events") + u"__"_s},
        {InFlightTableModel::State, InFlightTableModel::tr("waiting for first byte") + u"__"_s},
        {InFlightTableModel::Trial, InFlightTableModel::tr("Trial") + u"__"_s},
    };
    for (const auto &[column, sample] : widths)
        header->resizeSection(column, metrics.horizontalAdvance(sample) + 12);
    layout->addWidget(m_view, 1);
    refresh({}, 0);
}

bool InFlightPanel::refresh(const ProxySnapshot &snapshot, qint64 nowMs)
{
    bool changed = m_table->setFlights(snapshot.flights, nowMs);
    const int listed = int(snapshot.flights.size()) + snapshot.flightsOmitted;
    if (listed != m_listed || snapshot.flightsOmitted != m_omitted) {
        m_listed = listed;
        m_omitted = snapshot.flightsOmitted;
        QString text = listed == 0
            ? tr("No upstream call in flight.")
            : tr("%1 in flight, oldest first.").arg(dashboardstyle::countOf(listed, tr("upstream call"), tr("upstream calls")));
        if (snapshot.flightsOmitted > 0)
            text += u' ' + tr("Showing the %1 oldest; %2 newer not listed.").arg(snapshot.flights.size()).arg(snapshot.flightsOmitted);
        m_summary->setText(text);
        changed = true;
    }
    return changed;
}

int InFlightPanel::rowCount() const
{
    return m_table->rowCount();
}

QString InFlightPanel::textAt(int row, int column) const
{
    return m_table->data(m_table->index(row, column)).toString();
}

QString InFlightPanel::summaryText() const
{
    return m_summary->text();
}
