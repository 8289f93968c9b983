#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include "accounting/pricetable.h"
#include "accounting/usage.h"

using namespace Qt::StringLiterals;

// The built-in table (converted from the genai-prices snapshot), model name matching, cost
// arithmetic, long-context tiers and user overrides.
class TestPriceTable : public QObject
{
    Q_OBJECT

private slots:
    void builtIn_hasCurrentModels();
    void builtIn_isConvertedFromGenaiPrices();
    void find_matchesListedNamesRulesAndSnapshots_data();
    void find_matchesListedNamesRulesAndSnapshots();
    void cost_chargesCachedInputAtItsOwnPrice();
    void tiers_priceTheWholeCallAboveTheirThreshold();
    void cost_unknownModelOrUsage_isNullopt();
    void maxCost_isInputPlusMaxOutputAtFullPrice();
    void userFile_overridesAndExtends();
    void userFile_rulesAndTiers_comeFirst();
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

void TestPriceTable::builtIn_isConvertedFromGenaiPrices()
{
    // The embedded file loads cleanly on its own (the constructor only logs a failure) and is the
    // converted snapshot, with genai-prices' match rules, not a hand-typed list.
    QFile file(u":/breakwater/prices.json"_s);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray json = file.readAll();
    QVERIFY(json.contains("@pydantic/genai-prices"));
    PriceTable empty;
    const Result loaded = empty.loadJson(json, u"built-in"_s);
    QVERIFY2(loaded.ok(), qPrintable(loaded.error()));
    const PriceTable table;
    QVERIFY2(table.size() >= 100, qPrintable(QString::number(table.size())));
    QVERIFY2(table.ruleCount() >= 100, qPrintable(QString::number(table.ruleCount())));
}

void TestPriceTable::find_matchesListedNamesRulesAndSnapshots_data()
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
    // genai-prices' rules and its date spelling
    QTest::newRow("listed snapshot (rule)") << u"gpt-4o-2024-11-20"_s << 2.5 << 10.0;
    QTest::newRow("compact date") << u"gpt-4o-20241120"_s << 2.5 << 10.0;
    QTest::newRow("claude family (rule)") << u"claude-sonnet-4-5-20250929"_s << 3.0 << 15.0;
    QTest::newRow("case-insensitive rule") << u"GPT-4o"_s << 2.5 << 10.0;
    QTest::newRow("old -MMDD snapshot") << u"gpt-4-0613"_s << 30.0 << 60.0;
    QTest::newRow("vertex @date") << u"claude-sonnet-4@20250514"_s << 3.0 << 15.0;
    QTest::newRow("issue 12's gpt-5.1") << u"gpt-5.1"_s << 1.25 << 10.0;
    QTest::newRow("embedding: no output price") << u"text-embedding-3-small"_s << 0.02 << 0.0;
    // Breakwater's own fallbacks
    QTest::newRow("unlisted snapshot") << u"gpt-4o-2099-01-01"_s << 2.5 << 10.0;
    QTest::newRow("unlisted -latest") << u"gpt-4.1-mini-latest"_s << 0.4 << 1.6;
    QTest::newRow("router openai/") << u"openai/gpt-4o"_s << 2.5 << 10.0;
    QTest::newRow("router + snapshot") << u"openai/gpt-4o-mini-2024-07-18"_s << 0.15 << 0.6;
    QTest::newRow("router anthropic/") << u"anthropic/claude-3.5-sonnet"_s << 3.0 << 15.0;
    QTest::newRow("another router's model") << u"meta-llama/llama-3-70b"_s << 0.0 << 0.0;
    QTest::newRow("fine-tune, dated base (its own price)") << u"ft:gpt-4o-mini-2024-07-18:acme::a1b2"_s << 0.3 << 1.2;
    QTest::newRow("fine-tune, ft:BASE listed") << u"ft:gpt-4o-mini:acme:support:a1b2"_s << 0.3 << 1.2;
    QTest::newRow("fine-tune priced as its base") << u"ft:gpt-4.1-mini-2025-04-14:acme::a1b2"_s << 0.4 << 1.6;
    QTest::newRow("fine-tune of an unknown base") << u"ft:acme-model:acme::a1b2"_s << 0.0 << 0.0;
    // No loose prefix matching: a longer name is often a dearer model.
    QTest::newRow("gpt-5-pro is not gpt-5") << u"gpt-5-pro"_s << 15.0 << 120.0;
    QTest::newRow("unlisted variant is unknown") << u"gpt-5.1-ultra"_s << 0.0 << 0.0;
    QTest::newRow("overlong name") << u"claude-3-5-haiku-"_s + QString(PriceTable::kMaxModelName, u'x') << 0.0 << 0.0;
}

void TestPriceTable::find_matchesListedNamesRulesAndSnapshots()
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

void TestPriceTable::tiers_priceTheWholeCallAboveTheirThreshold()
{
    PriceTable table;
    table.setPrice(u"long"_s, {3.0, 0.3, 15.0}, {{200'000, {6.0, 0.6, 22.5}}});
    QCOMPARE(table.find(u"long"_s)->input, 3.0);
    QCOMPARE(table.find(u"long"_s, 200'000)->input, 3.0);   // "above" the threshold, as genai-prices
    QCOMPARE(table.find(u"long"_s, 200'001)->output, 22.5);
    // Every token of a call over the threshold is at the tier's price, not only the ones above it.
    QCOMPARE(*table.cost(u"long"_s, Usage{100'000, 1'000, 0}), (100'000 * 3.0 + 1'000 * 15.0) / 1e6);
    QCOMPARE(*table.cost(u"long"_s, Usage{300'000, 1'000, 100'000}),
             (200'000 * 6.0 + 100'000 * 0.6 + 1'000 * 22.5) / 1e6);
    // The reservation takes the tier its input estimate reaches.
    QCOMPARE(*table.maxCost(u"long"_s, 250'000, 4096), (250'000 * 6.0 + 4096 * 22.5) / 1e6);
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

void TestPriceTable::userFile_rulesAndTiers_comeFirst()
{
    PriceTable table;
    const Result loaded = table.loadJson(R"({"models": {
            "acme-large": {"input": 1, "output": 4,
                           "tiers": [{"above_input_tokens": 1000, "input": 2, "output": 8, "cached_input": 1}]},
            "gpt-4o-special": {"input": 7, "output": 7},
            "ft:gpt-4.1-mini": {"input": 0.8, "output": 3.2}},
        "rules": [{"model": "acme-large", "match": {"regex": "^acme-large(-v\\d+)?$"}},
                  {"model": "gpt-4o-special", "match": {"equals": "gpt-4o-2024-11-20"}},
                  {"model": "gpt-4o-mini", "match": {"starts_with": "my-mini"}}]})",
                            u"user.json"_s);
    QVERIFY2(loaded.ok(), qPrintable(loaded.error()));
    QCOMPARE(table.resolve(u"acme-large-v2"_s), u"acme-large"_s);
    QVERIFY(!table.find(u"acme-large-xl"_s));                          // the rule is anchored
    QCOMPARE(table.find(u"acme-large-v3"_s, 5000)->cachedInput, 1.0);
    QCOMPARE(table.find(u"gpt-4o-2024-11-20"_s)->input, 7.0);          // before the built-in rules
    QCOMPARE(table.find(u"gpt-4o-2024-08-06"_s)->input, 2.5);          // which still apply
    QCOMPARE(table.find(u"my-mini-2"_s)->input, 0.15);                 // a rule for a built-in price
    // A fine-tune's own price, for every snapshot of its base.
    QCOMPARE(table.find(u"ft:gpt-4.1-mini-2025-04-14:acme::a1b2"_s)->input, 0.8);
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
    QTest::newRow("tiers not a list") << R"({"models": {"gpt-4o": {"input": 1, "output": 1, "tiers": 5}}})"_ba
                                      << u"tiers"_s;
    QTest::newRow("tier without threshold")
        << R"({"models": {"gpt-4o": {"input": 1, "output": 1, "tiers": [{"input": 2, "output": 2}]}}})"_ba
        << u"above_input_tokens"_s;
    QTest::newRow("rule for no price")
        << R"({"models": {}, "rules": [{"model": "nobody", "match": {"equals": "x"}}]})"_ba << u"nobody"_s;
    QTest::newRow("unknown match")
        << R"({"models": {}, "rules": [{"model": "gpt-4o", "match": {"like": "x"}}]})"_ba << u"like"_s;
    QTest::newRow("bad regex")
        << R"({"models": {}, "rules": [{"model": "gpt-4o", "match": {"regex": "("}}]})"_ba << u"regex"_s;
    QTest::newRow("rules not a list") << R"({"models": {}, "rules": {}})"_ba << u"rules"_s;
    QTest::newRow("empty name") << R"({"models": {"": {"input": 1, "output": 1}}})"_ba << u"empty name"_s;
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
    QCOMPARE(table.ruleCount(), PriceTable().ruleCount());
    QCOMPARE(table.find(u"gpt-4o"_s)->input, 2.5);
    const Result missing = table.load(u"/nonexistent/prices.json"_s);
    QVERIFY(!missing.ok());
    QVERIFY2(missing.error().contains(u"/nonexistent/prices.json"_s), qPrintable(missing.error()));
}

QTEST_GUILESS_MAIN(TestPriceTable)
#include "tst_pricetable.moc"
