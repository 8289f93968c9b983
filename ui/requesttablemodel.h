#pragma once

#include <deque>

#include <QAbstractTableModel>
#include <QColor>

#include "accounting/callrecord.h"
#include "accounting/retrygroups.h"

class DashboardModel;

// The request table's rows: the most recent records, newest first, pulled from the DashboardModel
// in batches on the redraw timer (one insert per batch, not one per request). Bounded to
// kMaxRows; the oldest rows fall off the bottom. Sorting uses Qt::UserRole (numbers stay numbers).
class RequestTableModel final : public QAbstractTableModel
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(RequestTableModel)
public:
    static QColor retryTint(int group);   // the background of a retry group's rows
    enum Column { Arrival, OutcomeColumn, Status, Ended, Upstream, Model, Route, Total, Queue, UpstreamTime,
                  Tokens, Cost, Key, RequestId, Attempt, Injected,
                  Fallback,   // "from local" on a fallback's answer, "to cloud" on the refused attempt (beside Upstream)
                  ColumnCount };
    static constexpr int kMaxRows = 2000;

    explicit RequestTableModel(QObject *parent = nullptr);

    // Takes the records the model received since the last sync; returns how many (now rows 0..n-1).
    int syncFrom(const DashboardModel &model);
    const CallRecord &recordAt(int row) const;
    // The row's place among the attempts of its logical call (accounting/retrygroups.h), among the
    // rows held: the Attempt column's "2 of 3" shows retry amplification.
    RetryPlace placeAt(int row) const;
    static QString attemptText(const CallRecord &record, const RetryPlace &place);
    // The Fallback column: "from local" (a fallback answered), "to cloud" (the attempt it refused).
    static QString fallbackText(const CallRecord &record);
    // Upstream start to last byte; -1 when the call never reached an upstream.
    static qint64 upstreamMs(const CallRecord &record);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    void placeRetries();

    std::deque<CallRecord> m_rows;   // newest first
    QList<RetryPlace> m_places;      // index-aligned with m_rows, redone when rows come or go
    quint64 m_seenSequence = 0;
    quint64 m_seenClears = 0;
};
