#pragma once

#include <QSortFilterProxyModel>

// Filters the request table by outcome, model, member, status class, "failed only" and arrival time (isFailure of how
// the call ended), all combined with "and".
// An empty filter value lets every row through.
class RequestFilter final : public QSortFilterProxyModel
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(RequestFilter)
public:
    explicit RequestFilter(QObject *parent = nullptr);

    void setOutcome(const QString &outcome);   // "miss", "joined", ..., "" for all
    void setModel(const QString &model);
    // A team's Breakwater: the calls of one member (CallRecord::member), "" for all.
    void setMember(const QString &member);
    // "" for all, "2xx"/"4xx"/"5xx" for a class, or an exact code such as "503".
    void setStatus(const QString &status);
    void setFailedOnly(bool failedOnly);
    // Calls received within [fromMs, toMs] (wall clock; a breaker band clicked); 0, 0 for all.
    void setArrivalRange(qint64 fromMs, qint64 toMs);

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;

private:
    QString m_outcome;
    QString m_model;
    QString m_member;
    QString m_status;
    bool m_failedOnly = false;
    qint64 m_fromMs = 0;
    qint64 m_toMs = 0;
};
