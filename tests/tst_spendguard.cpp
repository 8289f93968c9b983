#include <QDateTime>
#include <QRandomGenerator>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include "accounting/calllog.h"
#include "accounting/spendguard.h"
#include "fakeclock.h"

using namespace Qt::StringLiterals;

// The daily cap: reservations before calls, settlement after, the day's rollover and restarts.
class TestSpendGuard : public QObject
{
    Q_OBJECT

private slots:
    void reserve_refusesWhenSpentPlusReservedPlusEstimateExceedsCap();
    void settle_chargesActualOrTheReservationWhenUnknown();
    void release_chargesNothing();
    void fiftyConcurrentCalls_neverOvershootByMoreThanOneReservation_data();
    void fiftyConcurrentCalls_neverOvershootByMoreThanOneReservation();
    void newLocalDay_startsFromZero();
    void dayBoundary_exactToTheMillisecond();
    void noCap_admitsEverythingButStillCounts();
    void refusal_is429WithItsOwnCode();
    void unknownCost_isRefusedUnderACapOnly();
    void unpricedRefusal_namesTheModelAndHowToPriceIt();
    void restart_keepsTheDaysSpendFromTheCallLog();
};

void TestSpendGuard::reserve_refusesWhenSpentPlusReservedPlusEstimateExceedsCap()
{
    FakeClock clock;
    SpendGuard guard(clock, 1.00);
    const auto a = guard.reserve(0.40);
    const auto b = guard.reserve(0.40);
    QVERIFY(a && b);
    QCOMPARE(guard.reservedNow(), 0.80);
    QVERIFY(!guard.reserve(0.30));            // 0.80 reserved + 0.30 > 1.00
    QVERIFY(guard.reserve(0.20));             // exactly at the cap is allowed
    guard.settle(*a, 0.10);                   // frees 0.30 of headroom
    QCOMPARE(guard.spentToday(), 0.10);
    QVERIFY(guard.reserve(0.30));
    QVERIFY(!guard.reserve(0.01));
}

void TestSpendGuard::settle_chargesActualOrTheReservationWhenUnknown()
{
    FakeClock clock;
    SpendGuard guard(clock, 10);
    QSignalSpy spent(&guard, &SpendGuard::spentChanged);
    const auto a = guard.reserve(0.5);
    const auto b = guard.reserve(0.7);
    guard.settle(*a, 0.125);
    guard.settle(*b, -1);                     // usage unknown: charge what was reserved
    QCOMPARE(guard.spentToday(), 0.825);
    QCOMPARE(guard.reservedNow(), 0.0);
    QCOMPARE(guard.outstanding(), 0);
    QCOMPARE(spent.size(), 2);
    QTest::ignoreMessage(QtWarningMsg, QRegularExpression(u"settled an unknown reservation"_s));
    guard.settle(*a, 5.0);                    // settling twice charges nothing more
    QCOMPARE(guard.spentToday(), 0.825);
}

void TestSpendGuard::release_chargesNothing()
{
    FakeClock clock;
    SpendGuard guard(clock, 1);
    const auto a = guard.reserve(0.9);
    QVERIFY(!guard.reserve(0.2));
    guard.release(*a);
    QCOMPARE(guard.spentToday(), 0.0);
    QCOMPARE(guard.reservedNow(), 0.0);
    QVERIFY(guard.reserve(0.2));
}

void TestSpendGuard::fiftyConcurrentCalls_neverOvershootByMoreThanOneReservation_data()
{
    QTest::addColumn<quint32>("seed");
    for (quint32 seed : {1u, 7u, 42u, 1234u, 99999u})
        QTest::newRow(qPrintable(u"seed %1"_s.arg(seed))) << seed;
}

void TestSpendGuard::fiftyConcurrentCalls_neverOvershootByMoreThanOneReservation()
{
    // 50 calls in flight at once, started and finished in a random interleaving (the proxy thread
    // sees them in some order; every order must hold the cap). Each reservation is its call's
    // most expensive outcome; what a call really costs is at most that.
    QFETCH(quint32, seed);
    QRandomGenerator random(seed);
    FakeClock clock;
    const double cap = 1.00;
    SpendGuard guard(clock, cap);

    struct Call { double reserve; std::optional<quint64> id; bool done = false; };
    QList<Call> calls;
    double largest = 0;
    for (int i = 0; i < 50; ++i) {
        const double reserve = 0.01 + random.bounded(0.09);
        largest = qMax(largest, reserve);
        calls.append({reserve, std::nullopt});
    }
    QList<int> started;
    int next = 0;
    int admitted = 0;
    int refused = 0;
    while (next < calls.size() || !started.isEmpty()) {
        if (next < calls.size() && (started.isEmpty() || random.bounded(3) != 0)) {
            Call &call = calls[next++];
            call.id = guard.reserve(call.reserve);
            call.id ? ++admitted : ++refused;
            if (call.id)
                started.append(next - 1);
        } else {
            const int pick = started.takeAt(random.bounded(int(started.size())));
            Call &call = calls[pick];
            const int kind = random.bounded(3);   // cheaper than reserved, unknown, or released
            if (kind == 0)
                guard.settle(*call.id, call.reserve * random.generateDouble());
            else if (kind == 1)
                guard.settle(*call.id, -1);
            else
                guard.release(*call.id);
        }
        QVERIFY2(guard.spentToday() + guard.reservedNow() <= cap + largest,
                 qPrintable(u"spent %1 + reserved %2"_s.arg(guard.spentToday()).arg(guard.reservedNow())));
    }
    QVERIFY(guard.spentToday() <= cap + largest);
    QVERIFY(refused > 0);                     // the cap was really reached
    QVERIFY(admitted >= 10);
    QCOMPARE(guard.outstanding(), 0);
}

void TestSpendGuard::newLocalDay_startsFromZero()
{
    FakeClock clock;
    SpendGuard guard(clock, 1);
    const QDate first = guard.today();
    guard.settle(*guard.reserve(0.9), 0.9);
    QVERIFY(!guard.reserve(0.2));
    const auto carried = guard.reserve(0.05);          // still running at midnight

    // Move to 00:00:01 local time of the next day.
    const QDateTime now = QDateTime::fromMSecsSinceEpoch(clock.wallMs());
    clock.advance(now.msecsTo(first.addDays(1).startOfDay()) + 1000);
    QCOMPARE(guard.today(), first.addDays(1));
    QCOMPARE(guard.spentToday(), 0.0);
    QCOMPARE(guard.reservedNow(), 0.05);              // the running call still holds its reservation
    QVERIFY(guard.reserve(0.9));
    guard.settle(*carried, 0.05);                      // charged to the day it ends on
    QCOMPARE(guard.spentToday(), 0.05);
}

// The guard keeps the day's bounds rather than converting the clock each call: the last
// millisecond before local midnight is still the old day, midnight itself the new one.
void TestSpendGuard::dayBoundary_exactToTheMillisecond()
{
    FakeClock clock;
    SpendGuard guard(clock, 1);
    const QDate first = guard.today();
    guard.settle(*guard.reserve(0.5), 0.5);
    const qint64 midnight = first.addDays(1).startOfDay().toMSecsSinceEpoch();
    clock.advance(midnight - 1 - clock.wallMs());
    QCOMPARE(guard.spentToday(), 0.5);
    clock.advance(1);
    QCOMPARE(guard.spentToday(), 0.0);
    guard.settle(*guard.reserve(0.25), 0.25);
    QCOMPARE(guard.spentToday(), 0.25);
}

void TestSpendGuard::noCap_admitsEverythingButStillCounts()
{
    FakeClock clock;
    SpendGuard guard(clock, 0);
    QVERIFY(!guard.capped());
    for (int i = 0; i < 100; ++i)
        guard.settle(*guard.reserve(1000), 2);
    QCOMPARE(guard.spentToday(), 200.0);
}

void TestSpendGuard::refusal_is429WithItsOwnCode()
{
    FakeClock clock;
    SpendGuard guard(clock, 5);
    guard.setSpentToday(5);
    QVERIFY(!guard.reserve(0.01));
    const ApiError error = guard.refusal();
    QCOMPARE(error.status, 429);
    QCOMPARE(error.code, "spend_limit_exceeded"_ba);
    QVERIFY2(error.message.english().contains(u"5.00 USD"_s) && error.message.english().contains(u"--max-spend"_s),
             qPrintable(error.message.english()));
}

void TestSpendGuard::unknownCost_isRefusedUnderACapOnly()
{
    FakeClock clock;
    SpendGuard capped(clock, 1000);
    QVERIFY(!capped.reserve(std::nullopt));   // a model without a price could cost anything
    QCOMPARE(capped.reservedNow(), 0.0);
    QCOMPARE(capped.outstanding(), 0);
    QVERIFY(capped.reserve(0.0));             // a known zero (a free local model) is fine
    SpendGuard uncapped(clock, 0);
    const auto id = uncapped.reserve(std::nullopt);
    QVERIFY(id);
    uncapped.settle(*id, -1);
    QCOMPARE(uncapped.spentToday(), 0.0);
}

void TestSpendGuard::unpricedRefusal_namesTheModelAndHowToPriceIt()
{
    FakeClock clock;
    SpendGuard guard(clock, 2.5);
    const ApiError error = guard.unpricedRefusal(u"ft:acme-9:org::x1"_s);
    QCOMPARE(error.status, 403);
    QCOMPARE(error.code, "model_price_unknown"_ba);
    for (const QString &part : {u"\"ft:acme-9:org::x1\""_s, u"--prices FILE"_s, u"--max-spend 2.50"_s,
                                u"{\"models\": {\"ft:acme-9:org::x1\": {\"input\""_s})
        QVERIFY2(error.message.english().contains(part), qPrintable(error.message.english()));
    const ApiError longName = guard.unpricedRefusal(QString(10'000, u'm'));
    QVERIFY2(longName.message.english().size() < 1000, qPrintable(QString::number(longName.message.english().size())));
}

void TestSpendGuard::restart_keepsTheDaysSpendFromTheCallLog()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(u"calls.sqlite"_s);
    FakeClock clock;
    const auto logged = [&](Outcome outcome, double cost, qint64 atMs) {
        CallRecord record;
        record.outcome = outcome;
        record.costUsd = cost;
        record.receivedAtMs = atMs;
        return record;
    };
    {
        CallLog log;
        const Result opened = log.open(path);
        QVERIFY2(opened.ok(), qPrintable(opened.error()));
        SpendGuard guard(clock, 1);
        for (double cost : {0.25, 0.125, 0.0625}) {
            const auto id = guard.reserve(0.3);
            guard.settle(*id, cost);
            log.append(logged(Outcome::Miss, cost, clock.wallMs()));
        }
        // Shared answers repeat the cost of the call they shared: never counted twice.
        log.append(logged(Outcome::Joined, 0.25, clock.wallMs()));
        log.append(logged(Outcome::Hit, 0.25, clock.wallMs()));
        log.append(logged(Outcome::Bypass, 0.0625, clock.wallMs()));
        guard.settle(*guard.reserve(0.1), 0.0625);
        // Yesterday's spend does not count today.
        log.append(logged(Outcome::Miss, 0.5, clock.wallMs() - 86'400'000));
        QCOMPARE(guard.spentToday(), 0.5);
    }   // the proxy stops; the log is written out

    CallLog log;
    const Result opened = log.open(path);
    QVERIFY2(opened.ok(), qPrintable(opened.error()));
    SpendGuard restarted(clock, 1);
    restarted.setSpentToday(log.spentOnDay(restarted.today()));
    QCOMPARE(restarted.spentToday(), 0.5);
    QVERIFY(!restarted.reserve(0.6));
    QVERIFY(restarted.reserve(0.5));
}

QTEST_GUILESS_MAIN(TestSpendGuard)
#include "tst_spendguard.moc"
