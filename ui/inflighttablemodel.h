#pragma once

#include <QAbstractTableModel>
#include <QList>

#include "sharing/inflight.h"

// The rows of the "In flight" list: the snapshot's flights (oldest first, as the proxy lists them)
// with their age counted against the view's clock, so it ticks between snapshots. setFlights()
// tells the view only what changed: nothing at all for an empty list that stays empty (an idle
// dashboard repaints nothing), the age column alone when the same flights are still in flight,
// the rows' values when they moved on, and a reset only when flights came or went.
class InFlightTableModel final : public QAbstractTableModel
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(InFlightTableModel)
public:
    enum Column { Route, Model, Age, Riders, Bytes, Events, State, Trial, Injected, ColumnCount };

    explicit InFlightTableModel(QObject *parent = nullptr);

    // Returns whether anything the view shows changed.
    bool setFlights(const QList<InFlight> &flights, qint64 nowMs);
    const InFlight &flightAt(int row) const { return m_flights.at(row); }
    int changeCount() const { return m_changes; }   // setFlights calls that changed something

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    static QString ridersText(const InFlight &flight);   // "1 + 4 joined", "1 + 2 joined (1 hung up)"
    static QString stateText(const InFlight &flight);    // "queued #3", "waiting for first byte", ...

private:
    QList<InFlight> m_flights;
    qint64 m_nowMs = 0;
    int m_changes = 0;
};
