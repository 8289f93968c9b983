#pragma once

#include <QWidget>

#include "fleet/fleetview.h"

class FittedLabel;
class QTableWidget;

// The "Fleet" tab (--shared-state only): the instances sharing this one's Redis that are alive now
// (a heartbeat key each), this one first, with the upstream calls each made and how its requests
// were served; under them the whole fleet's figures, so the fleet-wide joined and misses stand
// beside this instance's. The line above says how many are alive, or that Redis is degraded and
// this instance runs on local state (then it lists itself alone). From the proxy's snapshot.
class FleetPanel final : public QWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(FleetPanel)
public:
    enum Column { Instance, Calls, Requests, Joined, Misses, Hits, LastSeen, ColumnCount };

    explicit FleetPanel(QWidget *parent = nullptr);

    void refresh(const FleetView &fleet);
    QString summaryText() const;
    int rowCount() const;   // the instances and the fleet's row
    QString textAt(int row, int column) const;
    QTableWidget *view() const { return m_table; }

    // "Fleet (3)", "Fleet (degraded)": the tab's title.
    static QString tabTitle(const FleetView &fleet);
    // The tray's line: "fleet: 3 instances, shared", "fleet: degraded (local only)".
    static QString trayLine(const FleetView &fleet);

private:
    void setRow(int row, const QStringList &cells, const QString &tip, bool bold, bool late);

    FittedLabel *m_summary = nullptr;
    QTableWidget *m_table = nullptr;
};
