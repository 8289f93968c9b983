#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>

#include "accounting/pricetable.h"
#include "genaiprices.h"

using namespace Qt::StringLiterals;

// The build-time conversion of genai-prices data into the price table: what is kept, what is
// chosen among periods and tiers, what is dropped, and that the vendored snapshot converts.
class TestGenaiPrices : public QObject
{
    Q_OBJECT

private slots:
    void tokenPrices_becomeInputCachedAndOutput();
    void tiers_areMergedAcrossPrices();
    void periods_takeThePriceInForceOnTheSnapshotDate();
    void modelsWithoutTokenPrices_areSkipped();
    void providers_inOrder_firstIdWins();
    void brokenSnapshots_sayWhy_data();
    void brokenSnapshots_sayWhy();
    void vendoredSnapshot_convertsAndLoads();
};

namespace {
QJsonObject snapshot(const QByteArray &providersJson, const QString &fetched = u"2026-06-01"_s)
{
    return QJsonObject{{u"version"_s, u"9.9.9"_s}, {u"fetched"_s, fetched},
                       {u"providers"_s, QJsonDocument::fromJson(providersJson).array()}};
}

// One provider "p" with the given models array.
QJsonObject oneProvider(const QByteArray &models, const QString &fetched = u"2026-06-01"_s)
{
    return snapshot(R"([{"id": "p", "models": )" + models + "}]", fetched);
}

QJsonObject modelOf(const GenaiConversion &conversion, const QString &id)
{
    return conversion.table.value(u"models").toObject().value(id).toObject();
}
} // namespace

void TestGenaiPrices::tokenPrices_becomeInputCachedAndOutput()
{
    const GenaiConversion conversion = convertGenaiPrices(oneProvider(R"([
        {"id": "chat", "match": {"equals": "chat"},
         "prices": {"input_mtok": 2.5, "cache_read_mtok": 1.25, "cache_write_mtok": 3, "output_mtok": 10,
                    "input_audio_mtok": 40, "web_searches_kcount": 10}},
        {"id": "embed", "match": {"starts_with": "embed-"}, "prices": {"input_mtok": 0.02}}])"), {u"p"_s});
    QVERIFY2(conversion.error.isEmpty(), qPrintable(conversion.error));
    QCOMPARE(modelOf(conversion, u"chat"_s),
             (QJsonObject{{u"input"_s, 2.5}, {u"cached_input"_s, 1.25}, {u"output"_s, 10}}));
    // No cache price: no discount (cached_input absent); no output price: output is free.
    QCOMPARE(modelOf(conversion, u"embed"_s), (QJsonObject{{u"input"_s, 0.02}, {u"output"_s, 0}}));
    const QJsonArray rules = conversion.table.value(u"rules").toArray();
    QCOMPARE(rules.size(), 2);
    QCOMPARE(rules[1][u"model"].toString(), u"embed"_s);
    QCOMPARE(rules[1][u"match"].toObject(), (QJsonObject{{u"starts_with"_s, u"embed-"_s}}));
    QVERIFY(conversion.table.value(u"source").toString().contains(u"9.9.9"_s));
}

void TestGenaiPrices::tiers_areMergedAcrossPrices()
{
    const GenaiConversion conversion = convertGenaiPrices(oneProvider(R"([
        {"id": "long", "match": {"equals": "long"},
         "prices": {"input_mtok": {"base": 1, "tiers": [{"start": 100, "price": 2}]},
                    "cache_read_mtok": 0.1,
                    "output_mtok": {"base": 10, "tiers": [{"start": 200, "price": 20}, {"start": 100, "price": 15}]}}}])"),
                                                          {u"p"_s});
    QVERIFY2(conversion.error.isEmpty(), qPrintable(conversion.error));
    const QJsonObject model = modelOf(conversion, u"long"_s);
    QCOMPARE(model.value(u"input"_s).toDouble(), 1.0);
    QCOMPARE(model.value(u"output"_s).toDouble(), 10.0);
    const QJsonArray expected = QJsonDocument::fromJson(R"([
        {"above_input_tokens": 100, "input": 2, "cached_input": 0.1, "output": 15},
        {"above_input_tokens": 200, "input": 2, "cached_input": 0.1, "output": 20}])").array();
    QCOMPARE(model.value(u"tiers"_s).toArray(), expected);
}

void TestGenaiPrices::periods_takeThePriceInForceOnTheSnapshotDate()
{
    const QByteArray models = R"([{"id": "m", "match": {"equals": "m"}, "prices": [
        {"prices": {"input_mtok": 1, "output_mtok": 1}},
        {"constraint": {"type": "start_date", "start_date": "2026-03-01"}, "prices": {"input_mtok": 2, "output_mtok": 2}},
        {"constraint": {"type": "start_date", "start_date": "2027-01-01"}, "prices": {"input_mtok": 3, "output_mtok": 3}},
        {"constraint": {"type": "time_of_date", "start_time": "16:30:00Z", "end_time": "00:30:00Z"},
         "prices": {"input_mtok": 0.5, "output_mtok": 0.5}}]}])";
    const auto inputOn = [&](const QString &fetched) {
        const GenaiConversion conversion = convertGenaiPrices(oneProvider(models, fetched), {u"p"_s});
        return modelOf(conversion, u"m"_s).value(u"input"_s).toDouble();
    };
    QCOMPARE(inputOn(u"2026-01-01"_s), 1.0);   // before every start date
    QCOMPARE(inputOn(u"2026-03-01"_s), 2.0);   // on it
    QCOMPARE(inputOn(u"2026-12-01"_s), 2.0);   // the 2027 price is not in force yet; off-peak never
    QCOMPARE(inputOn(u"2027-02-01"_s), 3.0);
}

void TestGenaiPrices::modelsWithoutTokenPrices_areSkipped()
{
    const GenaiConversion conversion = convertGenaiPrices(oneProvider(R"([
        {"id": "whisper", "match": {"equals": "whisper"}, "prices": {"audio_hours": 0.36}},
        {"id": "free", "match": {"contains": "moderation"}, "prices": {}}])"), {u"p"_s});
    QVERIFY2(conversion.error.isEmpty(), qPrintable(conversion.error));
    QVERIFY(conversion.table.value(u"models").toObject().isEmpty());
    QVERIFY(conversion.table.value(u"rules").toArray().isEmpty());   // a rule only for a price
    QCOMPARE(conversion.skipped.size(), 2);
    QVERIFY(conversion.skipped.first().startsWith(u"p/whisper"_s));
}

void TestGenaiPrices::providers_inOrder_firstIdWins()
{
    const QJsonObject data = snapshot(R"([
        {"id": "a", "models": [{"id": "x", "match": {"equals": "x"}, "prices": {"input_mtok": 1}}]},
        {"id": "b", "models": [{"id": "x", "match": {"equals": "x"}, "prices": {"input_mtok": 2}},
                               {"id": "y", "match": {"equals": "y"}, "prices": {"input_mtok": 3}}]},
        {"id": "c", "models": [{"id": "z", "match": {"equals": "z"}, "prices": {"input_mtok": 4}}]}])");
    const GenaiConversion conversion = convertGenaiPrices(data, {u"b"_s, u"a"_s});
    QVERIFY2(conversion.error.isEmpty(), qPrintable(conversion.error));
    QCOMPARE(modelOf(conversion, u"x"_s).value(u"input"_s).toDouble(), 2.0);
    QCOMPARE(conversion.table.value(u"models").toObject().keys(), (QStringList{u"x"_s, u"y"_s}));   // no c
    QCOMPARE(conversion.skipped, QStringList{u"a/x: listed by an earlier provider"_s});
}

void TestGenaiPrices::brokenSnapshots_sayWhy_data()
{
    QTest::addColumn<QJsonObject>("data");
    QTest::addColumn<QString>("mention");
    QJsonObject undated = oneProvider("[]");
    undated.remove(u"fetched"_s);
    QTest::newRow("no date") << undated << u"fetched"_s;
    QTest::newRow("no provider") << snapshot("[]") << u"no provider \"p\""_s;
    QTest::newRow("no match") << oneProvider(R"([{"id": "m", "prices": {"input_mtok": 1}}])") << u"p/m"_s;
    QTest::newRow("bad tier") << oneProvider(R"([{"id": "m", "match": {"equals": "m"},
                                                 "prices": {"input_mtok": {"base": 1, "tiers": [{"start": 1}]}}}])")
                              << u"tier"_s;
    QTest::newRow("unknown constraint")
        << oneProvider(R"([{"id": "m", "match": {"equals": "m"},
                            "prices": [{"constraint": {"type": "moon_phase"}, "prices": {"input_mtok": 1}}]}])")
        << u"moon_phase"_s;
}

void TestGenaiPrices::brokenSnapshots_sayWhy()
{
    QFETCH(QJsonObject, data);
    QFETCH(QString, mention);
    const GenaiConversion conversion = convertGenaiPrices(data, {u"p"_s});
    QVERIFY2(conversion.error.contains(mention), qPrintable(conversion.error));
}

void TestGenaiPrices::vendoredSnapshot_convertsAndLoads()
{
    // What the build does, checked here too: the vendored data converts for both providers, and the
    // result is a table PriceTable accepts, with every rule pointing at a price.
    QFile file(QStringLiteral(GENAI_SNAPSHOT));
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QJsonObject data = QJsonDocument::fromJson(file.readAll()).object();
    QCOMPARE(data.value(u"package"_s).toString(), u"@pydantic/genai-prices"_s);
    const GenaiConversion conversion = convertGenaiPrices(data, {u"openai"_s, u"anthropic"_s});
    QVERIFY2(conversion.error.isEmpty(), qPrintable(conversion.error));
    PriceTable table;
    const Result loaded = table.loadJson(QJsonDocument(conversion.table).toJson(), u"converted"_s);
    QVERIFY2(loaded.ok(), qPrintable(loaded.error()));
    const QJsonObject models = conversion.table.value(u"models").toObject();
    QVERIFY(models.contains(u"gpt-4o"_s) && models.contains(u"claude-sonnet-4-5"_s));
}

QTEST_GUILESS_MAIN(TestGenaiPrices)
#include "tst_genaiprices.moc"
