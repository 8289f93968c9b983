// Retry amplification: the attempts an SDK makes for one logical call are grouped by what they share
// (key and credential fingerprints, a rising X-Stainless-Retry-Count, arrival within the window),
// since no SDK sends an idempotency key; anything else stays a logical call of its own.

#include "accounting/callrecord.h"
#include "accounting/retrygroups.h"

#include <QTest>

namespace {

CallRecord attempt(qint64 atMs, int retryCount, const QByteArray &key = "0123456789ab",
                   const QByteArray &credential = "c0ffee000001")
{
    CallRecord r;
    r.receivedAtMs = atMs;
    r.endAtMs = atMs + 100;
    r.retryAttempt = retryCount;
    r.keyFingerprint = key;
    r.credentialFingerprint = credential;
    return r;
}

} // namespace

class TestRetryGroups final : public QObject
{
    Q_OBJECT
private slots:
    void group_findsTheAttemptsOfEachLogicalCall_data();
    void group_findsTheAttemptsOfEachLogicalCall();
};

void TestRetryGroups::group_findsTheAttemptsOfEachLogicalCall_data()
{
    QTest::addColumn<QList<CallRecord>>("records");
    QTest::addColumn<QList<int>>("attempts");   // per record: how many attempts its logical call has
    QTest::addColumn<QList<int>>("attempt");    // per record: which attempt it is
    QTest::newRow("three attempts of one call")
        << QList<CallRecord>{attempt(0, 0), attempt(600, 1), attempt(1700, 2)} << QList<int>{3, 3, 3}
        << QList<int>{1, 2, 3};
    QTest::newRow("in any order")
        << QList<CallRecord>{attempt(1700, 2), attempt(0, 0), attempt(600, 1)} << QList<int>{3, 3, 3}
        << QList<int>{3, 1, 2};
    QTest::newRow("a new first try starts a new call")
        << QList<CallRecord>{attempt(0, 0), attempt(600, 1), attempt(900, 0), attempt(1500, 1)}
        << QList<int>{2, 2, 2, 2} << QList<int>{1, 2, 1, 2};
    QTest::newRow("another credential is another call")
        << QList<CallRecord>{attempt(0, 0), attempt(600, 1, "0123456789ab", "beef00000002")} << QList<int>{1, 1}
        << QList<int>{1, 1};
    QTest::newRow("another key is another call")
        << QList<CallRecord>{attempt(0, 0), attempt(600, 1, "ba9876543210")} << QList<int>{1, 1} << QList<int>{1, 1};
    QTest::newRow("too late for the window")
        << QList<CallRecord>{attempt(0, 0), attempt(RetryGroups::kWindowMs + 1000, 1)} << QList<int>{1, 1}
        << QList<int>{1, 1};
    QTest::newRow("without the header every call stands alone")
        << QList<CallRecord>{attempt(0, -1), attempt(600, -1)} << QList<int>{1, 1} << QList<int>{1, 1};
    QTest::newRow("without a key every call stands alone")
        << QList<CallRecord>{attempt(0, 0, {}), attempt(600, 1, {})} << QList<int>{1, 1} << QList<int>{1, 1};
    QTest::newRow("a retry seen without its first try")
        << QList<CallRecord>{attempt(0, 1), attempt(900, 2)} << QList<int>{2, 2} << QList<int>{1, 2};
}

void TestRetryGroups::group_findsTheAttemptsOfEachLogicalCall()
{
    QFETCH(QList<CallRecord>, records);
    QFETCH(QList<int>, attempts);
    QFETCH(QList<int>, attempt);
    QList<const CallRecord *> pointers;
    for (const CallRecord &record : records)
        pointers.append(&record);
    const QList<RetryPlace> places = RetryGroups::group(pointers);
    QCOMPARE(places.size(), records.size());
    QList<int> gotAttempts;
    QList<int> gotAttempt;
    for (const RetryPlace &place : places) {
        gotAttempts.append(place.attempts);
        gotAttempt.append(place.attempt);
    }
    QCOMPARE(gotAttempts, attempts);
    QCOMPARE(gotAttempt, attempt);
}

QTEST_GUILESS_MAIN(TestRetryGroups)
#include "tst_retrygroups.moc"
