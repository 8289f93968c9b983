#include "requestfilter.h"

#include "accounting/callending.h"
#include "requesttablemodel.h"

RequestFilter::RequestFilter(QObject *parent)
    : QSortFilterProxyModel(parent)
{
    setSortRole(Qt::UserRole);
}

void RequestFilter::setOutcome(const QString &outcome)
{
    m_outcome = outcome;
    invalidateFilter();
}

void RequestFilter::setModel(const QString &model)
{
    m_model = model;
    invalidateFilter();
}

void RequestFilter::setMember(const QString &member)
{
    m_member = member;
    invalidateFilter();
}

void RequestFilter::setStatus(const QString &status)
{
    m_status = status;
    invalidateFilter();
}

void RequestFilter::setFailedOnly(bool failedOnly)
{
    m_failedOnly = failedOnly;
    invalidateFilter();
}

void RequestFilter::setArrivalRange(qint64 fromMs, qint64 toMs)
{
    m_fromMs = fromMs;
    m_toMs = toMs;
    invalidateFilter();
}

bool RequestFilter::filterAcceptsRow(int sourceRow, const QModelIndex &) const
{
    const auto *table = static_cast<const RequestTableModel *>(sourceModel());
    const CallRecord &record = table->recordAt(sourceRow);
    if (!m_outcome.isEmpty() && QString::fromLatin1(outcomeName(record.outcome)) != m_outcome)
        return false;
    if (!m_model.isEmpty() && record.model != m_model)
        return false;
    if (!m_member.isEmpty() && record.member != m_member)
        return false;
    if (m_failedOnly && !isFailure(endingOf(record)))
        return false;
    if (m_toMs > 0 && (record.receivedAtMs < m_fromMs || record.receivedAtMs > m_toMs))
        return false;
    if (!m_status.isEmpty()) {
        if (m_status.size() == 3 && m_status.endsWith(QLatin1String("xx")))
            return record.status / 100 == m_status.at(0).digitValue();
        return QString::number(record.status) == m_status;
    }
    return true;
}
