#include "requesttablemodel.h"

#include <algorithm>

#include <QGuiApplication>

#include "apptheme.h"
#include "dashboardmodel.h"
#include "dashboardstyle.h"

using namespace Qt::StringLiterals;

namespace {

QString tokens(const CallRecord &r)
{
    if (r.inputTokens < 0 && r.outputTokens < 0)
        return {};
    const auto part = [](qint64 n) { return n < 0 ? u"?"_s : QString::number(n); };
    return part(r.inputTokens) + u" / "_s + part(r.outputTokens);
}

} // namespace

RequestTableModel::RequestTableModel(QObject *parent)
    : QAbstractTableModel(parent)
{
}

int RequestTableModel::syncFrom(const DashboardModel &model)
{
    const quint64 newest = model.recordSequence();
    const auto &records = model.records();
    if (model.clearCount() != m_seenClears) {   // the model started afresh: so does the table
        m_seenClears = model.clearCount();
        beginResetModel();
        m_rows.clear();
        m_places.clear();
        m_seenSequence = newest - records.size();
        endResetModel();
    }
    if (newest == m_seenSequence)
        return 0;
    const size_t fresh = std::min<size_t>(std::min<quint64>(newest - m_seenSequence, records.size()), kMaxRows);
    m_seenSequence = newest;
    if (fresh == 0)
        return 0;
    beginInsertRows({}, 0, int(fresh) - 1);
    for (auto it = records.end() - qsizetype(fresh); it != records.end(); ++it)
        m_rows.push_front(*it);   // the newest ends up on top
    endInsertRows();
    if (m_rows.size() > size_t(kMaxRows)) {
        beginRemoveRows({}, kMaxRows, int(m_rows.size()) - 1);
        m_rows.resize(kMaxRows);
        endRemoveRows();
    }
    placeRetries();
    return int(fresh);
}

void RequestTableModel::placeRetries()
{
    QList<const CallRecord *> rows;
    rows.reserve(qsizetype(m_rows.size()));
    for (const CallRecord &record : m_rows)
        rows.append(&record);
    m_places = RetryGroups::group(rows);
    if (!m_rows.empty())
        Q_EMIT dataChanged(index(0, Attempt), index(int(m_rows.size()) - 1, Attempt));   // a retry changes its group's "of M"
}

QColor RequestTableModel::retryTint(int group)
{
    // Two pale tints, by the group's first row: most neighbouring groups differ; neither is an outcome's colour.
    // Deep ones under a dark theme, where the text is light.
    if (apptheme::isDark(QGuiApplication::palette()))
        return group % 2 == 0 ? QColor(0x4a, 0x3f, 0x22) : QColor(0x22, 0x36, 0x4c);
    return group % 2 == 0 ? QColor(0xff, 0xf3, 0xd6) : QColor(0xe3, 0xf0, 0xff);
}

RetryPlace RequestTableModel::placeAt(int row) const
{
    return m_places.value(row);
}

QString RequestTableModel::fallbackText(const CallRecord &record)
{
    if (!record.fallbackFrom.isEmpty())
        return tr("from %1").arg(QString::fromUtf8(record.fallbackFrom));
    if (!record.fallbackTo.isEmpty())
        return tr("to %1").arg(QString::fromUtf8(record.fallbackTo));
    return {};
}

QString RequestTableModel::attemptText(const CallRecord &record, const RetryPlace &place)
{
    if (place.attempts <= 1 && record.retryAttempt < 0)
        return {};   // no retry seen and the client does not number its attempts
    //: A retry's place in its group: "2 of 3"
    return tr("%1 of %2").arg(place.attempt).arg(place.attempts);
}

qint64 RequestTableModel::upstreamMs(const CallRecord &r)
{
    if (r.upstreamStartAtMs <= 0 || r.endAtMs <= 0)
        return -1;
    return r.endAtMs - std::max(r.upstreamStartAtMs, r.receivedAtMs);
}

const CallRecord &RequestTableModel::recordAt(int row) const
{
    return m_rows.at(size_t(row));
}

int RequestTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int RequestTableModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant RequestTableModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= int(m_rows.size()))
        return {};
    const CallRecord &r = m_rows[size_t(index.row())];
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case Arrival: return dashboardstyle::formatClock(r.receivedAtMs);
        // A call a fault rule answered is no provider's miss (an injected 503 read as "miss" in the
        // success blue): it says so, in the injected colour, as on every chart. The outcome and the
        // ending are the wire's words (x-breakwater-dedup, the call log, the CSV), not translated.
        case OutcomeColumn: return r.injected.isEmpty() ? QString::fromLatin1(outcomeName(r.outcome)) : tr("injected");
        case Status: return r.status;
        case Ended: return QString::fromLatin1(endingName(endingOf(r)));
        case Upstream: return QString::fromLatin1(r.upstream);
        case Model: return r.model;
        case Route: return QString::fromLatin1(r.route);
        case Total: return r.totalMs();
        case Queue: return r.queueWaitMs > 0 ? QVariant(r.queueWaitMs) : QVariant();
        case UpstreamTime: return upstreamMs(r) >= 0 ? QVariant(upstreamMs(r)) : QVariant();
        case Tokens: return tokens(r);
        case Cost: return dashboardstyle::formatUsd(r.costUsd, r.costUsd >= 0);
        case Key: return QString::fromLatin1(r.keyFingerprint);
        case RequestId: return QString::fromLatin1(r.requestId);
        case Attempt: return attemptText(r, placeAt(index.row()));
        case Injected: return r.injected;   // the fault rule that made the answer, "#1 503:count=2"
        case Fallback: return fallbackText(r);
        }
    } else if (role == Qt::UserRole) {   // sort keys
        switch (index.column()) {
        case Arrival: return r.receivedAtMs;
        case Status: return r.status;
        case Total: return r.totalMs();
        case Queue: return r.queueWaitMs;
        case UpstreamTime: return upstreamMs(r);
        case Tokens: return std::max<qint64>(r.inputTokens, 0) + std::max<qint64>(r.outputTokens, 0);
        case Cost: return r.costUsd;
        case Attempt: return placeAt(index.row()).attempts * 1000 + placeAt(index.row()).attempt;   // amplified first
        default: return data(index, Qt::DisplayRole);
        }
    } else if (role == Qt::ForegroundRole && (index.column() == Injected || (index.column() == OutcomeColumn && !r.injected.isEmpty()))) {
        return dashboardstyle::injectedColor();
    } else if (role == Qt::BackgroundRole && placeAt(index.row()).attempts > 1) {
        // The attempts of one logical call share a tint, so a retry storm reads as one call's.
        return retryTint(placeAt(index.row()).group);
    } else if (role == Qt::ForegroundRole && (index.column() == OutcomeColumn || index.column() == Ended)) {
        return (index.column() == Ended ? dashboardstyle::callColor(r) : dashboardstyle::outcomeColor(r.outcome)).darker(120);
    } else if (role == Qt::TextAlignmentRole) {
        switch (index.column()) {
        case Status: case Total: case Queue: case UpstreamTime: case Cost:
            return int(Qt::AlignRight | Qt::AlignVCenter);
        default: return {};
        }
    }
    return {};
}

QVariant RequestTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    if (section == Fallback)
        return tr("fallback");
    static const char *const names[]{QT_TR_NOOP("arrival"), QT_TR_NOOP("outcome"), QT_TR_NOOP("status"),
                                     QT_TR_NOOP("ended"), QT_TR_NOOP("upstream"), QT_TR_NOOP("model"),
                                     QT_TR_NOOP("route"), QT_TR_NOOP("total ms"), QT_TR_NOOP("queue ms"),
                                     QT_TR_NOOP("upstream ms"), QT_TR_NOOP("tokens in/out"), QT_TR_NOOP("cost"),
                                     QT_TR_NOOP("key"), QT_TR_NOOP("request id"), QT_TR_NOOP("attempt"),
                                     QT_TR_NOOP("injected")};
    return section >= 0 && section < int(std::size(names)) ? QVariant(tr(names[section])) : QVariant();
}
