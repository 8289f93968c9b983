#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include "accounting/modelmatch.h"

using namespace Qt::StringLiterals;

// genai-prices' match logic, as the price table evaluates it.
class TestModelMatch : public QObject
{
    Q_OBJECT

private slots:
    void matches_followsGenaiPrices_data();
    void matches_followsGenaiPrices();
    void fromJson_refusesWhatItCannotEvaluate_data();
    void fromJson_refusesWhatItCannotEvaluate();
};

void TestModelMatch::matches_followsGenaiPrices_data()
{
    QTest::addColumn<QByteArray>("logic");
    QTest::addColumn<QString>("model");
    QTest::addColumn<bool>("matches");
    QTest::newRow("equals") << R"({"equals": "gpt-4o"})"_ba << u"gpt-4o"_s << true;
    QTest::newRow("equals ignores case") << R"({"equals": "gpt-4o"})"_ba << u"GPT-4O"_s << true;
    QTest::newRow("equals is whole") << R"({"equals": "gpt-4o"})"_ba << u"gpt-4o-mini"_s << false;
    QTest::newRow("starts_with") << R"({"starts_with": "claude-3-5-haiku"})"_ba << u"claude-3-5-haiku-latest"_s << true;
    QTest::newRow("starts_with, not inside") << R"({"starts_with": "haiku"})"_ba << u"claude-haiku"_s << false;
    QTest::newRow("ends_with") << R"({"ends_with": "-preview"})"_ba << u"o1-PREVIEW"_s << true;
    QTest::newRow("contains") << R"({"contains": "claude-v2"})"_ba << u"anthropic.claude-v2:1"_s << true;
    QTest::newRow("regex searches") << R"({"regex": "\\d{8}"})"_ba << u"claude-fable-5-20260101"_s << true;
    QTest::newRow("regex anchored") << R"({"regex": "^claude-fable-5-\\d{8}$"})"_ba << u"x-claude-fable-5-20260101"_s
                                    << false;
    QTest::newRow("regex keeps case") << R"({"regex": "^gpt"})"_ba << u"GPT-4"_s << false;
    QTest::newRow("or") << R"({"or": [{"equals": "a"}, {"equals": "b"}]})"_ba << u"b"_s << true;
    QTest::newRow("or, none") << R"({"or": [{"equals": "a"}, {"equals": "b"}]})"_ba << u"c"_s << false;
    QTest::newRow("and") << R"({"and": [{"starts_with": "gpt-"}, {"ends_with": "-mini"}]})"_ba << u"gpt-5-mini"_s
                         << true;
    QTest::newRow("and, one fails") << R"({"and": [{"starts_with": "gpt-"}, {"ends_with": "-mini"}]})"_ba
                                    << u"gpt-5-nano"_s << false;
    QTest::newRow("nested") << R"({"or": [{"and": [{"contains": "4o"}, {"contains": "mini"}]}, {"equals": "x"}]})"_ba
                            << u"gpt-4o-mini"_s << true;
}

void TestModelMatch::matches_followsGenaiPrices()
{
    QFETCH(QByteArray, logic);
    QFETCH(QString, model);
    QString error;
    const std::optional<ModelMatch> match = ModelMatch::fromJson(QJsonDocument::fromJson(logic).object(), &error);
    QVERIFY2(match, qPrintable(error));
    QTEST(match->matches(model), "matches");
}

void TestModelMatch::fromJson_refusesWhatItCannotEvaluate_data()
{
    QTest::addColumn<QByteArray>("logic");
    QTest::addColumn<QString>("mention");
    QTest::newRow("unknown key") << R"({"like": "x"})"_ba << u"like"_s;
    QTest::newRow("two keys") << R"({"equals": "x", "contains": "y"})"_ba << u"exactly one"_s;
    QTest::newRow("not a string") << R"({"equals": 5})"_ba << u"string"_s;
    QTest::newRow("empty string") << R"({"starts_with": ""})"_ba << u"string"_s;
    QTest::newRow("empty or") << R"({"or": []})"_ba << u"list"_s;
    QTest::newRow("bad part") << R"({"and": [{"equals": "x"}, {"nope": "y"}]})"_ba << u"nope"_s;
    QTest::newRow("bad regex") << R"({"regex": "a("})"_ba << u"regex"_s;
    QByteArray deep = R"({"equals": "x"})";
    for (int i = 0; i < ModelMatch::kMaxDepth; ++i)
        deep = R"({"or": [)" + deep + "]}";
    QTest::newRow("too deep") << deep << u"deeper"_s;
}

void TestModelMatch::fromJson_refusesWhatItCannotEvaluate()
{
    QFETCH(QByteArray, logic);
    QFETCH(QString, mention);
    QString error;
    QVERIFY(!ModelMatch::fromJson(QJsonDocument::fromJson(logic).object(), &error));
    QVERIFY2(error.contains(mention), qPrintable(error));
}

QTEST_GUILESS_MAIN(TestModelMatch)
#include "tst_modelmatch.moc"
