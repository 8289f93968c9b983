#pragma once

#include <QDate>
#include <QObject>

#include <chrono>
#include <functional>

class RedisLink;

// The fleet's one budget for --max-spend: today's spend and every call's reservation live in Redis,
// and one Lua script (atomic: Redis runs it alone) admits a reservation only if spend + all the
// fleet's reservations + this one fit under the cap. So concurrent calls on several instances
// never pass the cap by more than what their reservations underestimated, exactly as on one
// instance (accounting/spendguard.h, whose local guard still runs: it is what caps a degraded
// instance). Reservations carry an expiry (kReservationLife) so a dead instance's reservations
// free themselves. The day is the local calendar day the proxy's SpendGuard counts in.
class FleetSpend final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(FleetSpend)
public:
    static constexpr std::chrono::milliseconds kReservationLife{10 * 60 * 1000};

    explicit FleetSpend(RedisLink &link, QObject *parent = nullptr);

    enum class Verdict { Reserved, Refused, Unavailable };
    // `done` is called once, later, within the link's deadline; Reserved comes with the reservation's id.
    void reserve(const QDate &day, double capUsd, double estimateUsd, QObject *context,
                 std::function<void(Verdict, const QByteArray &reservation)> done);
    // The call ended: drop the reservation and add what it cost (0: it never flew or cost nothing).
    void settle(const QDate &day, const QByteArray &reservation, double chargedUsd);
    // A call that flew with no reservation of the fleet's (a follower taking over a dead leader's
    // call): only its cost is added to the day.
    void charge(const QDate &day, double chargedUsd);

    static QList<QByteArray> keysOf(const QDate &day);

private:
    RedisLink &m_link;
    quint64 m_next = 1;
};
