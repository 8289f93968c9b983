#include "accounting/spendguard.h"

#include <QDateTime>
#include <QLoggingCategory>

#include "clock.h"

Q_LOGGING_CATEGORY(lcSpend, "breakwater.spend", QtInfoMsg)

using namespace Qt::StringLiterals;

SpendGuard::SpendGuard(const Clock &clock, double maxUsdPerDay, QObject *parent)
    : QObject(parent), m_clock(clock), m_capUsd(maxUsdPerDay)
{
    rollOver();
}

void SpendGuard::setCap(double maxUsdPerDay)
{
    m_capUsd = qMax(0.0, maxUsdPerDay);
    Q_EMIT spentChanged(m_spentUsd, m_capUsd);
}

QDate SpendGuard::today() const
{
    return QDateTime::fromMSecsSinceEpoch(m_clock.wallMs()).date();
}

void SpendGuard::rollOver()
{
    // Two numbers compared per call: converting the clock to a local date costs about 2 µs (glibc
    // stats /etc/localtime each time), and every call reserves and settles. The bounds follow the
    // clock either way, forward at midnight or back (a test's clock, a corrected system clock); a
    // change of the machine's time zone counts from the old zone's next midnight.
    const qint64 nowMs = m_clock.wallMs();
    if (nowMs >= m_dayStartMs && nowMs < m_dayEndMs)
        return;
    const QDate now = today();
    m_dayStartMs = now.startOfDay().toMSecsSinceEpoch();
    m_dayEndMs = now.addDays(1).startOfDay().toMSecsSinceEpoch();
    if (now == m_day || !m_day.isValid()) {
        m_day = now;
        return;
    }
    qCInfo(lcSpend).noquote() << u"new day %1: %2 USD spent on %3"_s.arg(now.toString(Qt::ISODate))
                                     .arg(m_spentUsd, 0, 'f', 4).arg(m_day.toString(Qt::ISODate));
    m_day = now;
    m_spentUsd = 0;   // outstanding reservations stay: their calls are still running
    Q_EMIT spentChanged(m_spentUsd, m_capUsd);
}

std::optional<quint64> SpendGuard::reserve(std::optional<double> estimatedUsd)
{
    rollOver();
    if (capped() && !estimatedUsd) {
        qCInfo(lcSpend) << "refused a call of unknown cost: its model has no price";
        return std::nullopt;
    }
    const double amount = qMax(estimatedUsd.value_or(0), 0.0);
    if (capped() && m_spentUsd + m_reservedUsd + amount > m_capUsd) {
        qCInfo(lcSpend).noquote() << u"refused a call of up to %1 USD: %2 spent + %3 reserved, cap %4"_s
                                         .arg(amount, 0, 'f', 4).arg(m_spentUsd, 0, 'f', 4)
                                         .arg(m_reservedUsd, 0, 'f', 4).arg(m_capUsd, 0, 'f', 2);
        return std::nullopt;
    }
    const quint64 id = m_nextId++;
    m_reservations.insert(id, amount);
    m_reservedUsd += amount;
    return id;
}

void SpendGuard::settle(quint64 reservation, double actualUsd)
{
    rollOver();
    const auto it = m_reservations.constFind(reservation);
    if (it == m_reservations.cend()) {
        qCWarning(lcSpend) << "settled an unknown reservation" << reservation;
        return;
    }
    const double reserved = *it;
    m_reservations.erase(it);
    // Sums of doubles drift; never let the outstanding total go below zero.
    m_reservedUsd = m_reservations.isEmpty() ? 0 : qMax(0.0, m_reservedUsd - reserved);
    m_spentUsd += actualUsd >= 0 ? actualUsd : reserved;
    Q_EMIT spentChanged(m_spentUsd, m_capUsd);
}

void SpendGuard::release(quint64 reservation)
{
    const auto it = m_reservations.constFind(reservation);
    if (it == m_reservations.cend())
        return;
    const double reserved = *it;
    m_reservations.erase(it);
    m_reservedUsd = m_reservations.isEmpty() ? 0 : qMax(0.0, m_reservedUsd - reserved);
}

double SpendGuard::spentToday()
{
    rollOver();
    return m_spentUsd;
}

void SpendGuard::setSpentToday(double usd)
{
    rollOver();
    m_spentUsd = qMax(usd, 0.0);
    Q_EMIT spentChanged(m_spentUsd, m_capUsd);
}

ApiError SpendGuard::refusal()
{
    rollOver();
    return {429, "rate_limit_error", "spend_limit_exceeded",
            u"Breakwater's spend limit is reached: %1 of %2 USD spent today (local time), %3 USD "
            "reserved by calls in progress (--max-spend)."_s
                .arg(m_spentUsd, 0, 'f', 4).arg(m_capUsd, 0, 'f', 2).arg(m_reservedUsd, 0, 'f', 4)};
}

ApiError SpendGuard::unpricedRefusal(const QString &model) const
{
    // The name is the client's: keep a pathological one from filling the message.
    const QString name = model.size() > 200 ? model.left(200) + u"..."_s : model;
    return {403, "invalid_request_error", "model_price_unknown",
            u"Breakwater has no price for model \"%1\", so under its spend limit (--max-spend %2 USD) it "
            "cannot know what the call may cost and does not make it. Give the model a price in USD per "
            "million tokens with --prices FILE, e.g. {\"models\": {\"%1\": {\"input\": 1.25, "
            "\"cached_input\": 0.125, \"output\": 10}}}."_s
                .arg(name).arg(m_capUsd, 0, 'f', 2)};
}
