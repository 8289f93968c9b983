#include <QTemporaryDir>
#include <QTest>

#include "accounting/pricetable.h"
#include "accounting/usage.h"

using namespace Qt::StringLiterals;

// The built-in table, model name matching, cost arithmetic and user overrides.
class TestPriceTable : public QObject
{
    Q_OBJECT

private slots:
    void builtIn_hasCurrentModels();
    void find_matchesExactlyOrByLongestPrefix_data();
    void find_matchesExactlyOrByLongestPrefix();
    void cost_chargesCachedInputAtItsOwnPrice();
    void cost_unknownModelOrUsage_isNullopt();
    void maxCost_isInputPlusMaxOutputAtFullPrice();
    void userFile_overridesAndExtends();
    void badUserFile_changesNothingAndSaysWhy_data();
    void badUserFile_changesNothingAndSaysWhy();
};

void TestPriceTable::builtIn_hasCurrentModels()
{
    const PriceTable table;
    QVERIFY2(table.size() >= 25, qPrintable(QString::number(table.size())));
    for (const QString &model : {u"gpt-4o"_s, u"gpt-4o-mini"_s, u"gpt-4.1"_s, u"gpt-4.1-mini"_s, u"gpt-4.1-nano"_s,
                                 u"o3"_s, u"o4-mini"_s, u"o1"_s, u"gpt-3.5-turbo"_s, u"text-embedding-3-small"_s,
                                 u"text-embedding-3-large"_s, u"claude-3-5-haiku"_s, u"claude-3-5-sonnet"_s,
                                 u"claude-3-7-sonnet"_s, u"claude-sonnet-4"_s, u"claude-opus-4"_s, u"claude-3-haiku"_s}) {
        const auto price = table.find(model);
        QVERIFY2(price, qPrintable(model));
        QVERIFY2(price->input > 0, qPrintable(model));
        QVERIFY2(price->cachedInput <= price->input, qPrintable(model));
    }
}

void TestPriceTable::find_matchesExactlyOrByLongestPrefix_data()
{
    QTest::addColumn<QString>("model");
    QTest::addColumn<double>("input");    // per million, 0 = no match
    QTest::addColumn<double>("output");
    QTest::newRow("exact") << u"gpt-4o"_s << 2.5 << 10.0;
    QTest::newRow("dated snapshot") << u"gpt-4o-2024-08-06"_s << 2.5 << 10.0;
    QTest::newRow("listed snapshot wins") << u"gpt-4o-2024-05-13"_s << 5.0 << 15.0;
    QTest::newRow("longer prefix wins") << u"gpt-4o-mini-2024-07-18"_s << 0.15 << 0.6;
    QTest::newRow("4.1 is not 4") << u"gpt-4.1-2025-04-14"_s << 2.0 << 8.0;
    QTest::newRow("4.1-nano") << u"gpt-4.1-nano-2025-04-14"_s << 0.1 << 0.4;
    QTest::newRow("o3-mini is not o3") << u"o3-mini-2025-01-31"_s << 1.1 << 4.4;
    QTest::newRow("claude latest") << u"claude-3-5-haiku-latest"_s << 0.8 << 4.0;
    QTest::newRow("claude dated") << u"claude-sonnet-4-20250514"_s << 3.0 << 15.0;
    QTest::newRow("claude opus 4") << u"claude-opus-4-20250514"_s << 15.0 << 75.0;
    QTest::newRow("no boundary") << u"gpt-4oo"_s << 0.0 << 0.0;
    QTest::newRow("unknown") << u"llama-3-70b"_s << 0.0 << 0.0;
    QTest::newRow("empty") << QString() << 0.0 << 0.0;
}

void TestPriceTable::find_matchesExactlyOrByLongestPrefix()
{
    QFETCH(QString, model);
    QFETCH(double, input);
    QFETCH(double, output);
    const auto price = PriceTable().find(model);
    QCOMPARE(price.has_value(), input > 0);
    if (price) {
        QCOMPARE(price->input, input);
        QCOMPARE(price->output, output);
    }
}

void TestPriceTable::cost_chargesCachedInputAtItsOwnPrice()
{
    PriceTable table;
    table.setPrice(u"m"_s, {2.0, 0.5, 8.0});
    // 1000 input of which 400 cached, 500 output: 600*2 + 400*0.5 + 500*8 = 5400 per million.
    const auto cost = table.cost(u"m"_s, Usage{1000, 500, 400});
    QVERIFY(cost);
    QCOMPARE(*cost, 0.0054);
    // Unknown cached count: all input at full price.
    QCOMPARE(*table.cost(u"m"_s, Usage{1000, 500, -1}), 0.006);
}

void TestPriceTable::cost_unknownModelOrUsage_isNullopt()
{
    const PriceTable table;
    QVERIFY(!table.cost(u"my-local-model"_s, Usage{10, 10, 0}));
    QVERIFY(!table.cost(u"gpt-4o"_s, Usage{}));
    QVERIFY(!table.cost(u"gpt-4o"_s, Usage{10, -1, -1}));
    QVERIFY(table.cost(u"gpt-4o"_s, Usage{10, 0, -1}));
}

void TestPriceTable::maxCost_isInputPlusMaxOutputAtFullPrice()
{
    PriceTable table;
    table.setPrice(u"m"_s, {2.0, 0.5, 8.0});
    QCOMPARE(*table.maxCost(u"m"_s, 1000, 4096), (1000 * 2.0 + 4096 * 8.0) / 1e6);
    QVERIFY(!table.maxCost(u"nope"_s, 1000, 4096));
}

void TestPriceTable::userFile_overridesAndExtends()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(u"prices.json"_s);
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(R"({"models": {"gpt-4o": {"input": 1, "output": 2, "cached_input": 0.25},
                             "my-local-model": {"input": 0, "output": 0}}})");
    file.close();

    PriceTable table;
    const qsizetype before = table.size();
    const Result loaded = table.load(path);
    QVERIFY2(loaded.ok(), qPrintable(loaded.error()));
    QCOMPARE(table.size(), before + 1);
    QCOMPARE(table.find(u"gpt-4o-2024-11-20"_s)->output, 2.0);
    QCOMPARE(table.find(u"gpt-4o"_s)->cachedInput, 0.25);
    QCOMPARE(*table.cost(u"my-local-model"_s, Usage{100, 100, -1}), 0.0);
    QCOMPARE(table.find(u"gpt-4o-mini"_s)->input, 0.15);   // untouched
}

void TestPriceTable::badUserFile_changesNothingAndSaysWhy_data()
{
    QTest::addColumn<QByteArray>("content");
    QTest::addColumn<QString>("mention");
    QTest::newRow("not json") << "{models"_ba << u"at byte"_s;
    QTest::newRow("no models") << R"({"prices": {}})"_ba << u"models"_s;
    QTest::newRow("missing output") << R"({"models": {"gpt-4o": {"input": 1}, "x": {"input": 1, "output": 1}}})"_ba
                                    << u"gpt-4o"_s;
    QTest::newRow("negative") << R"({"models": {"gpt-4o": {"input": -1, "output": 1}}})"_ba << u"negative"_s;
}

void TestPriceTable::badUserFile_changesNothingAndSaysWhy()
{
    QFETCH(QByteArray, content);
    QFETCH(QString, mention);
    PriceTable table;
    const qsizetype before = table.size();
    const Result bad = table.loadJson(content, u"user.json"_s);
    QVERIFY(!bad.ok());
    QVERIFY2(bad.error().contains(mention) && bad.error().contains(u"user.json"_s), qPrintable(bad.error()));
    QCOMPARE(table.size(), before);
    QCOMPARE(table.find(u"gpt-4o"_s)->input, 2.5);
    const Result missing = table.load(u"/nonexistent/prices.json"_s);
    QVERIFY(!missing.ok());
    QVERIFY2(missing.error().contains(u"/nonexistent/prices.json"_s), qPrintable(missing.error()));
}

QTEST_GUILESS_MAIN(TestPriceTable)
#include "tst_pricetable.moc"
