// The one line beside a replay's two answers: status, length, and the first line that differs once
// both bodies are readable (JSON pretty-printed), or that they are the same.

#include "replay/answerdiff.h"

#include <QTest>

using namespace Qt::StringLiterals;

class TestAnswerDiff final : public QObject
{
    Q_OBJECT
private slots:
    void summary_saysWhatDiffers_data();
    void summary_saysWhatDiffers();
    void readable_prettyPrintsJsonOnly();
};

void TestAnswerDiff::summary_saysWhatDiffers_data()
{
    QTest::addColumn<int>("originalStatus");
    QTest::addColumn<QByteArray>("original");
    QTest::addColumn<int>("replayStatus");
    QTest::addColumn<QByteArray>("replay");
    QTest::addColumn<QString>("expected");
    QTest::newRow("identical") << 200 << QByteArray(R"({"a":1})") << 200 << QByteArray(R"({"a":1})")
                               << u"same status 200; same length (7 bytes); bodies identical"_s;
    QTest::newRow("spacing only") << 200 << QByteArray(R"({"a":1})") << 200 << QByteArray(R"({ "a": 1 })")
                                  << u"same status 200; length 7 → 10 bytes; bodies identical"_s;
    QTest::newRow("status and body") << 200 << QByteArray(R"({"id":"x1","text":"hi"})") << 503
                                     << QByteArray(R"({"error":{"message":"down"}})")
                                     << u"status 200 → 503; length 23 → 28 bytes; first difference at line 2: "
                                        "\"id\": \"x1\", | \"error\": {"_s;
    QTest::newRow("stream text") << 200 << QByteArray("data: 1\n\ndata: 2\n\n") << 200
                                 << QByteArray("data: 1\n\ndata: 3\n\n")
                                 << u"same status 200; same length (18 bytes); first difference at line 3: "
                                    "data: 2 | data: 3"_s;
    QTest::newRow("replay shorter") << 200 << QByteArray("a\nb\n") << 200 << QByteArray("a\n")
                                    << u"same status 200; length 4 → 2 bytes; first difference at line 2: "
                                       "b | (empty line)"_s;
    QTest::newRow("not logged") << 200 << QByteArray() << 200 << QByteArray("abc")
                                << u"same status 200; length ? → 3 bytes (the original body was not logged)"_s;
}

void TestAnswerDiff::summary_saysWhatDiffers()
{
    QFETCH(int, originalStatus);
    QFETCH(QByteArray, original);
    QFETCH(int, replayStatus);
    QFETCH(QByteArray, replay);
    QFETCH(QString, expected);
    QCOMPARE(AnswerDiff::summary(originalStatus, original, replayStatus, replay).english(), expected);
}

void TestAnswerDiff::readable_prettyPrintsJsonOnly()
{
    QCOMPARE(AnswerDiff::readable(R"({"b":1,"a":[2]})"), QByteArray("{\n    \"a\": [\n        2\n    ],\n    \"b\": 1\n}\n"));
    QCOMPARE(AnswerDiff::readable("data: {\"a\":1}\n\n"), QByteArray("data: {\"a\":1}\n\n"));
    QCOMPARE(AnswerDiff::readable("not json"), QByteArray("not json"));
}

QTEST_GUILESS_MAIN(TestAnswerDiff)
#include "tst_answerdiff.moc"
