#pragma once

#include <optional>

#include <QDate>
#include <QHash>
#include <QObject>

#include "http/apierror.h"

class Clock;

// The --max-spend cap. The rule: at most `maxUsdPerDay` per calendar day in local time; the day
// starts at local midnight and yesterday's spend no longer counts. A cap of 0 or less means no cap
// (spend is still tracked for the dashboard).
//
// Money is reserved before a call and settled after it, so concurrent calls cannot overshoot
// together: a call is admitted only if today's spend + every outstanding reservation + its own
// reservation fits under the cap. The reservation is the call's most expensive outcome (its input
// estimate plus every completion's max tokens: PriceTable::maxCost, requestedMaxTokens), so spend can pass the cap only by what calls cost
// beyond their reservation. A settled call is charged to the day it settles on. Spend survives
// restarts: at start-up, setSpentToday(callLog.spentOnDay(today())).
//
// Under a cap, a call whose most expensive outcome is unknown (a model the price table has no price
// for) is refused, never admitted for free: it could cost anything. unpricedRefusal() says which
// model and how to give it a price. Without a cap such calls run and their cost stays unknown.
//
// Touched only on the proxy thread.
class SpendGuard final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(SpendGuard)
public:
    SpendGuard(const Clock &clock, double maxUsdPerDay, QObject *parent = nullptr);

    // Holds `estimatedUsd` for one call; nullopt means refused (answer refusal(), or
    // unpricedRefusal() when `estimatedUsd` was unknown).
    std::optional<quint64> reserve(std::optional<double> estimatedUsd);
    // The call is over: charge `actualUsd`, or the reservation when it is unknown (< 0).
    void settle(quint64 reservation, double actualUsd);
    // The call never reached the upstream: drop the reservation, charge nothing.
    void release(quint64 reservation);

    // A live change of the cap (0 or less: none): decides the next reservation; the ones held stay.
    void setCap(double maxUsdPerDay);
    double cap() const { return m_capUsd; }
    bool capped() const { return m_capUsd > 0; }
    double spentToday();
    double reservedNow() const { return m_reservedUsd; }
    int outstanding() const { return int(m_reservations.size()); }
    void setSpentToday(double usd);
    QDate today() const;   // local calendar day of the clock

    // The error a refused call gets: 429 with code spend_limit_exceeded.
    ApiError refusal();
    // The error a call to a model without a price gets under a cap: 403 with code
    // model_price_unknown, naming the model and --prices.
    ApiError unpricedRefusal(const QString &model) const;

Q_SIGNALS:
    void spentChanged(double spentTodayUsd, double capUsd);

private:
    void rollOver();

    const Clock &m_clock;
    double m_capUsd = 0;
    double m_spentUsd = 0;
    double m_reservedUsd = 0;
    QDate m_day;
    qint64 m_dayStartMs = 0, m_dayEndMs = 0;   // m_day's local midnights, in the clock's wall ms
    quint64 m_nextId = 1;
    QHash<quint64, double> m_reservations;
};
