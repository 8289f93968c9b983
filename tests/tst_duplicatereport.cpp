#include <QDateTime>
#include <QFile>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QTest>

#include "accounting/calllog.h"
#include "accounting/duplicatereport.h"

using namespace Qt::StringLiterals;

// `breakwater report` on a hand-built log whose rates are worked out by hand below.
class TestDuplicateReport : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void rates_matchTheHandCount();
    void sameClientShare_matchesTheHandCount();
    void topKeys_areMostRepeatedFirstWithModelAndSavings();
    void table_andJson_sayTheSame();
    void missingOrForeignFile_isAnError();

private:
    QTemporaryDir m_dir;
    QString m_path;
    DuplicateReport m_report;
};

void TestDuplicateReport::initTestCase()
{
    // Minutes from a base three days ago. c1, c2 are clients; A..G are keys.
    //   row  min     key client outcome   duplicate within          same client within
    //   1    0       A   c1     miss      -                         -
    //   2    1       A   c1     miss      5m 1h 24h all (gap 1)     5m 1h 24h all
    //   3    3       A   c2     miss      5m 1h 24h all (gap 2)     - (c2 never sent A)
    //   4    30      B   c1     miss      -                         -
    //   5    40      B   c1     bypass    1h 24h all (gap 10)       1h 24h all
    //   6    100     G   c1     miss      -                         -
    //   7    100+1s  G   c2     joined    5m 1h 24h all             -
    //   8    120     A   c1     hit       24h all (gap 117)         24h all (c1's last A: min 1)
    //   9    0       D   c1     miss      -                         -
    //   10   2 days  D   c2     miss      all                       -
    //   11   2 days  C   c2     miss      -                         -
    //   --   refused by the breaker (key E) and one without a key: not proxied, not counted.
    // 11 requests. Duplicates: 5m 3, 1h 4, 24h 5, all 6. Same client: 5m 1, 1h 2, 24h 3, all 3.
    m_path = m_dir.filePath(u"calls.sqlite"_s);
    const qint64 base = QDateTime::currentMSecsSinceEpoch() - 3 * 86'400'000LL;
    const qint64 minute = 60'000;
    CallLog log;
    log.setRetention(0, 0);
    const Result opened = log.open(m_path);
    QVERIFY2(opened.ok(), qPrintable(opened.error()));
    const auto add = [&](qint64 atMs, const QByteArray &key, const QString &client, Outcome outcome,
                         const QString &model = u"gpt-4o-mini"_s, double saved = 0) {
        CallRecord r;
        r.route = "/v1/chat/completions";
        r.upstream = "openai";
        r.model = model;
        r.keyFingerprint = key;
        r.clientAddress = client;
        r.outcome = outcome;
        r.receivedAtMs = base + atMs;
        r.costSavedUsd = saved;
        log.append(r);
    };
    // Appended out of time order on purpose: the report orders by arrival.
    add(0, "aaaaaaaaaaaa", u"c1"_s, Outcome::Miss);
    add(1 * minute, "aaaaaaaaaaaa", u"c1"_s, Outcome::Miss);
    add(3 * minute, "aaaaaaaaaaaa", u"c2"_s, Outcome::Miss);
    add(30 * minute, "bbbbbbbbbbbb", u"c1"_s, Outcome::Miss, u"claude-3-5-haiku"_s);
    add(40 * minute, "bbbbbbbbbbbb", u"c1"_s, Outcome::Bypass, u"claude-3-5-haiku"_s);
    add(100 * minute, "gggggggggggg", u"c1"_s, Outcome::Miss);
    add(100 * minute + 1000, "gggggggggggg", u"c2"_s, Outcome::Joined, u"gpt-4o-mini"_s, 0.01);
    add(120 * minute, "aaaaaaaaaaaa", u"c1"_s, Outcome::Hit, u"gpt-4o-mini"_s, 0.002);
    add(2 * 1440 * minute, "dddddddddddd", u"c2"_s, Outcome::Miss);
    add(0, "dddddddddddd", u"c1"_s, Outcome::Miss);
    add(2 * 1440 * minute, "cccccccccccc", u"c2"_s, Outcome::Miss);
    add(2 * minute, "eeeeeeeeeeee", u"c1"_s, Outcome::BreakerRefused);
    add(4 * minute, "", u"c1"_s, Outcome::Error);
    log.close();

    Expected<DuplicateReport> report = DuplicateReport::compute(m_path);
    QVERIFY2(report.ok(), qPrintable(report.error()));
    m_report = std::move(report).value();
}

void TestDuplicateReport::rates_matchTheHandCount()
{
    QCOMPARE(m_report.requests(), 11);
    const QList<DuplicateReport::Window> &w = m_report.windows();
    QCOMPARE(w.size(), 4);
    QCOMPARE(w[0].name, u"5 min"_s);
    QCOMPARE(w[0].duplicates, 3);
    QCOMPARE(w[1].duplicates, 4);
    QCOMPARE(w[2].duplicates, 5);
    QCOMPARE(w[3].duplicates, 6);
    QCOMPARE(w[0].rate(m_report.requests()), 3.0 / 11);
    QCOMPARE(w[3].rate(m_report.requests()), 6.0 / 11);
}

void TestDuplicateReport::sameClientShare_matchesTheHandCount()
{
    const QList<DuplicateReport::Window> &w = m_report.windows();
    QCOMPARE(w[0].sameClient, 1);
    QCOMPARE(w[1].sameClient, 2);
    QCOMPARE(w[2].sameClient, 3);
    QCOMPARE(w[3].sameClient, 3);
    QCOMPARE(w[0].sameClientShare(), 1.0 / 3);
    QCOMPARE(w[2].sameClientShare(), 3.0 / 5);
}

void TestDuplicateReport::topKeys_areMostRepeatedFirstWithModelAndSavings()
{
    const QList<DuplicateReport::RepeatedKey> &keys = m_report.topKeys();
    QCOMPARE(keys.size(), 4);   // A, G, B and D repeat; C does not, the refused E is not counted
    QCOMPARE(keys[0].key, "aaaaaaaaaaaa"_ba);
    QCOMPARE(keys[0].count, 4);
    QCOMPARE(keys[0].clients, 2);
    QCOMPARE(keys[0].costSavedUsd, 0.002);
    QCOMPARE(keys[1].key, "gggggggggggg"_ba);   // ties on count: more saved first
    QCOMPARE(keys[1].costSavedUsd, 0.01);
    QCOMPARE(keys[2].key, "bbbbbbbbbbbb"_ba);
    QCOMPARE(keys[2].model, u"claude-3-5-haiku"_s);
    QCOMPARE(keys[2].clients, 1);
    QCOMPARE(keys[3].key, "dddddddddddd"_ba);   // same count and savings as B: by key
    QCOMPARE(keys[3].clients, 2);
    QCOMPARE(m_report.costSavedUsd(), 0.012);
}

void TestDuplicateReport::table_andJson_sayTheSame()
{
    const QString table = m_report.table();
    QVERIFY2(table.contains(u"11 proxied requests"_s), qPrintable(table));
    QVERIFY2(table.contains(u"27.27 %"_s) && table.contains(u"54.55 %"_s) && table.contains(u"33.33 %"_s),
             qPrintable(table));
    QVERIFY2(table.contains(u"aaaaaaaaaaaa"_s) && table.contains(u"claude-3-5-haiku"_s), qPrintable(table));
    const QJsonObject json = m_report.json();
    QCOMPARE(json[u"requests"_s].toInteger(), 11);
    const QJsonArray windows = json[u"windows"_s].toArray();
    QCOMPARE(windows.size(), 4);
    QCOMPARE(windows[1][u"seconds"_s].toInteger(), 3600);
    QCOMPARE(windows[1][u"duplicates"_s].toInteger(), 4);
    QCOMPARE(windows[1][u"sameClientShare"_s].toDouble(), 0.5);
    QVERIFY(windows[3][u"seconds"_s].isNull());
    QCOMPARE(json[u"topKeys"_s].toArray().size(), 4);
}

void TestDuplicateReport::missingOrForeignFile_isAnError()
{
    const QString missing = m_dir.filePath(u"nothing.sqlite"_s);
    const Expected<DuplicateReport> none = DuplicateReport::compute(missing);
    QVERIFY(!none.ok());
    QVERIFY2(none.error().contains(missing), qPrintable(none.error()));
    QVERIFY(!QFile::exists(missing));   // never creates one

    const QString foreign = m_dir.filePath(u"notes.txt"_s);
    QFile file(foreign);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("just some notes, not a database at all........................................");
    file.close();
    const Expected<DuplicateReport> bad = DuplicateReport::compute(foreign);
    QVERIFY(!bad.ok());
    QVERIFY2(bad.error().contains(foreign), qPrintable(bad.error()));
}

QTEST_GUILESS_MAIN(TestDuplicateReport)
#include "tst_duplicatereport.moc"
