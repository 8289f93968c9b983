#pragma once

#include <QWidget>

#include "proxysnapshot.h"

class InFlightTableModel;
class QLabel;
class QTableView;

// The "In flight" tab: the upstream calls in progress now, from the proxy's snapshot, oldest first
// so a hang stands at the top: route, model, age (ticking with the view's clock), the leader and
// its joined riders, bytes and events received so far, where it is (queued with its position in
// the pool, waiting for the first byte, streaming, abandoned), whether it is the breaker's
// half-open trial and which fault rule plays it. The proxy lists at most InFlight::kMaxListed;
// the line above the table says when more were left out. An empty list that stays empty costs no
// repaint (InFlightTableModel::setFlights).
class InFlightPanel final : public QWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(InFlightPanel)
public:
    explicit InFlightPanel(QWidget *parent = nullptr);

    // From the newest snapshot, at the view's clock `nowMs`; returns whether anything changed.
    bool refresh(const ProxySnapshot &snapshot, qint64 nowMs);
    int rowCount() const;
    int listedCount() const { return m_listed; }   // flights in progress, omitted ones too
    QString textAt(int row, int column) const;
    QString summaryText() const;
    InFlightTableModel *tableModel() const { return m_table; }
    QTableView *view() const { return m_view; }

private:
    InFlightTableModel *m_table = nullptr;
    QTableView *m_view = nullptr;
    QLabel *m_summary = nullptr;
    int m_listed = -1;
    int m_omitted = -1;
};
