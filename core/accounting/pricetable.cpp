#include "accounting/pricetable.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLoggingCategory>

#include "accounting/usage.h"

Q_LOGGING_CATEGORY(lcPrices, "breakwater.prices", QtInfoMsg)

using namespace Qt::StringLiterals;

namespace {
const QString kBuiltIn = u":/breakwater/prices.json"_s;
}

PriceTable::PriceTable()
{
    if (const Result loaded = load(kBuiltIn); !loaded.ok())   // a broken build, not a user error: say so loudly
        qCCritical(lcPrices).noquote() << "built-in price table:" << loaded.error();
}

Result PriceTable::load(const QString &userFile)
{
    QFile file(userFile);
    if (!file.open(QIODevice::ReadOnly))
        return Failure{u"cannot read price file %1: %2"_s.arg(userFile, file.errorString())};
    return loadJson(file.readAll(), userFile);
}

Result PriceTable::loadJson(const QByteArray &json, const QString &origin)
{
    const auto fail = [&](const QString &why) { return Failure{u"price file %1: %2"_s.arg(origin, why)}; };
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(json, &parseError);
    if (parseError.error != QJsonParseError::NoError)
        return fail(u"%1 at byte %2"_s.arg(parseError.errorString()).arg(parseError.offset));
    const QJsonValue models = document.object().value(u"models");
    if (!models.isObject())
        return fail(u"no \"models\" object"_s);

    // Validate everything first, so a bad file changes nothing.
    QHash<QString, Price> parsed;
    const QJsonObject object = models.toObject();
    for (auto it = object.begin(); it != object.end(); ++it) {
        const QJsonObject entry = it.value().toObject();
        const QJsonValue input = entry.value(u"input");
        const QJsonValue output = entry.value(u"output");
        const QJsonValue cached = entry.value(u"cached_input");
        if (!input.isDouble() || !output.isDouble() || (!cached.isUndefined() && !cached.isDouble()))
            return fail(u"model \"%1\" needs numeric \"input\" and \"output\""_s.arg(it.key()));
        Price price{input.toDouble(), cached.toDouble(input.toDouble()), output.toDouble()};
        if (price.input < 0 || price.cachedInput < 0 || price.output < 0)
            return fail(u"model \"%1\" has a negative price"_s.arg(it.key()));
        parsed.insert(it.key(), price);
    }
    m_prices.insert(parsed);
    qCDebug(lcPrices) << "loaded" << parsed.size() << "prices from" << origin;
    return {};
}

std::optional<PriceTable::Price> PriceTable::find(const QString &model) const
{
    if (const auto exact = m_prices.constFind(model); exact != m_prices.cend())
        return *exact;
    // Longest listed prefix that ends at a '-' in the model name. The table is small (tens of
    // entries), so a scan is cheaper than keeping a sorted index in step with user overrides.
    qsizetype bestLength = 0;
    std::optional<Price> best;
    for (auto it = m_prices.cbegin(); it != m_prices.cend(); ++it) {
        const QString &name = it.key();
        if (name.size() > bestLength && model.size() > name.size() && model.startsWith(name)
            && model.at(name.size()) == u'-') {
            bestLength = name.size();
            best = *it;
        }
    }
    return best;
}

std::optional<double> PriceTable::cost(const QString &model, const Usage &usage) const
{
    const std::optional<Price> price = find(model);
    if (!price || !usage.known())
        return std::nullopt;
    const qint64 cached = qBound<qint64>(0, usage.cachedTokens, usage.inputTokens);
    return ((usage.inputTokens - cached) * price->input + cached * price->cachedInput
            + usage.outputTokens * price->output) / kPerTokens;
}

std::optional<double> PriceTable::maxCost(const QString &model, qint64 inputTokens,
                                          qint64 maxOutputTokens) const
{
    const std::optional<Price> price = find(model);
    if (!price)
        return std::nullopt;
    return (qMax<qint64>(inputTokens, 0) * price->input + qMax<qint64>(maxOutputTokens, 0) * price->output)
           / kPerTokens;
}
