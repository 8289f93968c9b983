#include "inflighttablemodel.h"

#include <QColor>
#include <QLocale>

#include "dashboardstyle.h"

using namespace Qt::StringLiterals;

namespace {

// The same flights in the same order: only their values (and their age) may have moved.
bool sameFlights(const QList<InFlight> &a, const QList<InFlight> &b)
{
    if (a.size() != b.size())
        return false;
    for (qsizetype i = 0; i < a.size(); ++i) {
        if (a[i].requestId != b[i].requestId)
            return false;
    }
    return true;
}

bool sameValues(const InFlight &a, const InFlight &b)
{
    return a.joined == b.joined && a.hungUp == b.hungUp && a.bytes == b.bytes && a.events == b.events
        && a.state == b.state && a.queuePosition == b.queuePosition && a.trial == b.trial && a.injected == b.injected;
}

} // namespace

InFlightTableModel::InFlightTableModel(QObject *parent)
    : QAbstractTableModel(parent)
{
}

bool InFlightTableModel::setFlights(const QList<InFlight> &flights, qint64 nowMs)
{
    if (flights.isEmpty() && m_flights.isEmpty())
        return false;   // idle: nothing to say, not even the time
    const bool same = sameFlights(m_flights, flights);
    if (!same) {
        beginResetModel();
        m_flights = flights;
        m_nowMs = nowMs;
        endResetModel();
    } else {
        bool valuesMoved = false;
        for (qsizetype i = 0; i < flights.size() && !valuesMoved; ++i)
            valuesMoved = !sameValues(m_flights[i], flights[i]);
        m_flights = flights;
        m_nowMs = nowMs;
        const int last = int(m_flights.size()) - 1;
        if (valuesMoved)
            Q_EMIT dataChanged(index(0, 0), index(last, ColumnCount - 1));
        else
            Q_EMIT dataChanged(index(0, Age), index(last, Age));   // the ages tick
    }
    ++m_changes;
    return true;
}

int InFlightTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_flights.size());
}

int InFlightTableModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QString InFlightTableModel::ridersText(const InFlight &flight)
{
    QString text = flight.joined > 0 ? tr("1 + %1 joined").arg(flight.joined) : u"1"_s;
    if (flight.hungUp > 0)
        text += u' ' + tr("(%1 hung up)").arg(flight.hungUp);
    return text;
}

QString InFlightTableModel::stateText(const InFlight &flight)
{
    switch (flight.state) {
    case InFlight::State::Queued: return tr("queued #%1").arg(flight.queuePosition);
    case InFlight::State::Waiting: return tr("waiting for first byte");
    case InFlight::State::Receiving: return tr("receiving");
    case InFlight::State::Streaming: return tr("streaming");
    case InFlight::State::Abandoned: return tr("abandoned (all hung up)");
    }
    return {};
}

QVariant InFlightTableModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= m_flights.size())
        return {};
    const InFlight &flight = m_flights.at(index.row());
    if (role == Qt::TextAlignmentRole) {
        switch (index.column()) {
        case Age: case Bytes: case Events: return int(Qt::AlignRight | Qt::AlignVCenter);
        default: return {};
        }
    }
    if (role == Qt::ToolTipRole) {
        return tr("%1 %2 (%3)\nrequest %4, since %5").arg(QString::fromLatin1(flight.upstream), QString::fromUtf8(flight.route),
                                                          flight.stream ? tr("stream") : tr("not streamed"),
                                                          QString::fromLatin1(flight.requestId),
                                                          dashboardstyle::formatClock(flight.startedAtMs));
    }
    if (role == Qt::ForegroundRole && index.column() == Injected && !flight.injected.isEmpty())
        return QColor(0xb0, 0x3a, 0x2e);
    if (role != Qt::DisplayRole)
        return {};
    switch (index.column()) {
    case Route: return QString::fromUtf8(flight.route);
    case Model: return flight.model;
    case Age: return dashboardstyle::formatDuration(std::max<qint64>(m_nowMs - flight.startedAtMs, 0));
    case Riders: return ridersText(flight);
    case Bytes: {
        QLocale grouped = QLocale::c();   // 1,234,567 whatever the desktop's language
        grouped.setNumberOptions(QLocale::DefaultNumberOptions);
        return grouped.toString(flight.bytes);
    }
    case Events: return flight.stream || flight.events > 0 ? QVariant(flight.events) : QVariant(u"–"_s);
    case State: return stateText(flight);
    case Trial: return flight.trial ? tr("trial") : QString();
    case Injected: return flight.injected;
    default: return {};
    }
}

QVariant InFlightTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Route: return tr("Route");
    case Model: return tr("Model");
    case Age: return tr("Age");
    case Riders: return tr("Riders");
    case Bytes: return tr("Bytes");
    case Events: return tr("Events");
    case State: return tr("State");
    case Trial: return tr("Trial");
    case Injected: return tr("Injected");
    default: return {};
    }
}
