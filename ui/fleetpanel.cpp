#include "fleetpanel.h"

#include <QHeaderView>
#include <QTableWidget>
#include <QVBoxLayout>

#include "dashboardstyle.h"
#include "fittedlabel.h"

using namespace Qt::StringLiterals;

FleetPanel::FleetPanel(QWidget *parent)
    : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    m_summary = new FittedLabel;
    m_table = new QTableWidget(0, ColumnCount);
    m_table->setHorizontalHeaderLabels({tr("Instance"), tr("Upstream calls"), tr("Requests"), tr("Joined"),
                                        tr("Misses"), tr("Cache hits"), tr("Last heartbeat")});
    m_table->verticalHeader()->hide();
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionMode(QAbstractItemView::NoSelection);
    m_table->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    // The instance's name takes the room left; the figures keep what they need.
    QHeaderView *header = m_table->horizontalHeader();
    header->setSectionResizeMode(QHeaderView::ResizeToContents);
    header->setSectionResizeMode(Instance, QHeaderView::Stretch);
    layout->addWidget(m_summary);
    layout->addWidget(m_table, 1);
}

QString FleetPanel::tabTitle(const FleetView &fleet)
{
    return fleet.shared ? tr("Fleet (%1)").arg(fleet.instances.size()) : tr("Fleet (degraded)");
}

QString FleetPanel::trayLine(const FleetView &fleet)
{
    if (!fleet.shared)
        return tr("fleet: degraded (local only)");
    return tr("fleet: %1, shared")
        .arg(dashboardstyle::countOf(fleet.instances.size(), tr("instance"), tr("instances")));
}

void FleetPanel::refresh(const FleetView &fleet)
{
    using dashboardstyle::countOf;
    const FleetView::Totals totals = fleet.totals();
    const FleetInstance *self = fleet.self();
    const auto served = [](qint64 joined, qint64 misses) {
        return tr("%1 joined, %2").arg(joined).arg(countOf(misses, tr("miss"), tr("misses")));
    };
    // Shorter forms give way on a narrow window; the tool tip keeps the whole line.
    QList<FittedLabel::Part> parts;
    if (fleet.shared) {
        parts.append({{tr("%1 alive, sharing one Redis")
                           .arg(countOf(totals.instances, tr("instance"), tr("instances"))),
                       countOf(totals.instances, tr("instance"), tr("instances"))}, 3});
        parts.append({{tr("fleet-wide %1").arg(served(totals.joined, totals.misses))}, 2});
        if (self)
            parts.append({{tr("this instance %1").arg(served(self->joined, self->misses)), QString()}, 1});
    } else {
        parts.append({{tr("Redis is degraded: this instance runs on local state and cannot see the others"),
                       tr("Redis degraded: local state only")}, 3});
        if (!fleet.reason.isEmpty())
            parts.append({{fleet.reason, QString()}, 1});
    }
    m_summary->setParts(parts, u" · "_s);

    const int rows = int(fleet.instances.size()) + 1;
    if (m_table->rowCount() != rows)
        m_table->setRowCount(rows);
    int row = 0;
    for (const FleetInstance &instance : fleet.instances) {
        const QString name = instance.label.isEmpty() ? QString::fromLatin1(instance.id) : instance.label;
        const QString seen = instance.self ? tr("now (this instance)")
            : instance.alive ? tr("%1 ago").arg(dashboardstyle::formatDuration(instance.ageMs))
                             : tr("%1 ago, late").arg(dashboardstyle::formatDuration(instance.ageMs));
        setRow(row++, {instance.self ? tr("%1 (this one)").arg(name) : name, QString::number(instance.calls),
                       QString::number(instance.requests), QString::number(instance.joined),
                       QString::number(instance.misses), QString::number(instance.hits), seen},
               tr("Instance %1").arg(QString::fromLatin1(instance.id)), false, !instance.alive);
    }
    setRow(row, {tr("Whole fleet (%1)").arg(countOf(totals.instances, tr("instance"), tr("instances"))),
                 QString::number(totals.calls), QString::number(totals.requests), QString::number(totals.joined),
                 QString::number(totals.misses), QString::number(totals.hits), QString()},
           tr("The listed instances together"), true, false);
}

void FleetPanel::setRow(int row, const QStringList &cells, const QString &tip, bool bold, bool late)
{
    for (int column = 0; column < ColumnCount; ++column) {
        QTableWidgetItem *item = m_table->item(row, column);
        if (!item) {
            item = new QTableWidgetItem;
            item->setTextAlignment(column == Instance || column == LastSeen ? Qt::AlignLeft | Qt::AlignVCenter
                                                                             : Qt::AlignRight | Qt::AlignVCenter);
            m_table->setItem(row, column, item);
        }
        if (item->text() != cells.value(column))   // setText repaints: skip when unchanged
            item->setText(cells.value(column));
        QFont font = item->font();
        if (font.bold() != bold) {
            font.setBold(bold);
            item->setFont(font);
        }
        item->setForeground(late ? palette().brush(QPalette::PlaceholderText) : palette().brush(QPalette::Text));
        item->setToolTip(tip);
    }
}

QString FleetPanel::summaryText() const
{
    return m_summary->wholeText();
}

int FleetPanel::rowCount() const
{
    return m_table->rowCount();
}

QString FleetPanel::textAt(int row, int column) const
{
    const QTableWidgetItem *item = m_table->item(row, column);
    return item ? item->text() : QString();
}
