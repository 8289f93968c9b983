#include "genaiprices.h"

#include <algorithm>
#include <optional>

#include <QDate>
#include <QJsonArray>

using namespace Qt::StringLiterals;

namespace {

struct Component
{
    double base = 0;
    QList<std::pair<qint64, double>> tiers;   // (start, price), ascending start

    // genai-prices: the last tier whose start is below the prompt's tokens, else the base.
    double at(qint64 inputTokens) const
    {
        double price = base;
        for (const auto &[start, tierPrice] : tiers) {
            if (inputTokens > start)
                price = tierPrice;
        }
        return price;
    }
};

std::optional<Component> component(const QJsonValue &value, QString *why)
{
    if (value.isDouble() && value.toDouble() >= 0)
        return Component{value.toDouble(), {}};
    const QJsonObject tiered = value.toObject();
    if (!tiered.value(u"base").isDouble() || !tiered.value(u"tiers").isArray()) {
        *why = u"a price that is neither a number nor tiered"_s;
        return std::nullopt;
    }
    Component result{tiered.value(u"base").toDouble(), {}};
    for (const QJsonValue &tier : tiered.value(u"tiers").toArray()) {
        if (!tier[u"start"].isDouble() || !tier[u"price"].isDouble()) {
            *why = u"a tier without a numeric start and price"_s;
            return std::nullopt;
        }
        result.tiers.append({qint64(tier[u"start"].toDouble()), tier[u"price"].toDouble()});
    }
    std::sort(result.tiers.begin(), result.tiers.end());
    return result;
}

// The prices in force on `date` (see the header).
std::optional<QJsonObject> pricesOn(const QJsonValue &prices, QDate date, QString *why)
{
    if (prices.isObject())
        return prices.toObject();
    const QJsonArray periods = prices.toArray();
    if (periods.isEmpty()) {
        *why = u"prices that are neither an object nor a list of periods"_s;
        return std::nullopt;
    }
    for (qsizetype i = periods.size() - 1; i >= 0; --i) {
        const QJsonObject period = periods.at(i).toObject();
        const QJsonValue constraint = period.value(u"constraint");
        const QString type = constraint[u"type"].toString();
        if (constraint.isUndefined())
            return period.value(u"prices").toObject();
        if (type == u"start_date") {
            const QDate start = QDate::fromString(constraint[u"start_date"].toString().left(10), Qt::ISODate);
            if (!start.isValid()) {
                *why = u"an invalid start_date"_s;
                return std::nullopt;
            }
            if (start <= date)
                return period.value(u"prices").toObject();
        } else if (type != u"time_of_date") {
            *why = u"an unknown price constraint \"%1\""_s.arg(type);
            return std::nullopt;
        }
    }
    return periods.first()[u"prices"].toObject();
}

QJsonObject priceObject(const Component &input, const std::optional<Component> &cached,
                        const std::optional<Component> &output, qint64 inputTokens)
{
    QJsonObject price{{u"input"_s, input.at(inputTokens)}, {u"output"_s, output ? output->at(inputTokens) : 0.0}};
    if (cached)
        price.insert(u"cached_input"_s, cached->at(inputTokens));
    return price;
}

} // namespace

GenaiConversion convertGenaiPrices(const QJsonObject &snapshot, const QStringList &providers)
{
    GenaiConversion result;
    const QDate date = QDate::fromString(snapshot.value(u"fetched").toString(), Qt::ISODate);
    const QString version = snapshot.value(u"version").toString();
    if (!date.isValid() || version.isEmpty()) {
        result.error = u"the snapshot has no \"version\" and \"fetched\" date"_s;
        return result;
    }
    const QJsonArray all = snapshot.value(u"providers").toArray();
    QJsonObject models;
    QJsonArray rules;
    for (const QString &providerId : providers) {
        const auto provider = std::find_if(all.begin(), all.end(),
                                           [&](const QJsonValue &p) { return p[u"id"].toString() == providerId; });
        if (provider == all.end()) {
            result.error = u"the snapshot has no provider \"%1\""_s.arg(providerId);
            return result;
        }
        const QJsonValue providerData = *provider;
        for (const QJsonValue &model : providerData[u"models"].toArray()) {
            const QString id = model[u"id"].toString();
            QString why;
            const auto fail = [&] {
                result.error = u"%1/%2: %3"_s.arg(providerId, id, why);
                return result;
            };
            if (id.isEmpty() || !model[u"match"].isObject()) {
                why = u"a model without an id or match"_s;
                return fail();
            }
            if (models.contains(id)) {
                result.skipped.append(u"%1/%2: listed by an earlier provider"_s.arg(providerId, id));
                continue;
            }
            const std::optional<QJsonObject> prices = pricesOn(model[u"prices"], date, &why);
            if (!prices)
                return fail();
            if (!prices->contains(u"input_mtok")) {
                result.skipped.append(u"%1/%2: no price per input token"_s.arg(providerId, id));
                continue;
            }
            const std::optional<Component> input = component(prices->value(u"input_mtok"), &why);
            std::optional<Component> cached, output;
            if (input && prices->contains(u"cache_read_mtok"))
                cached = component(prices->value(u"cache_read_mtok"), &why);
            if (input && prices->contains(u"output_mtok"))
                output = component(prices->value(u"output_mtok"), &why);
            if (!why.isEmpty())
                return fail();

            QJsonObject entry = priceObject(*input, cached, output, 0);
            QList<qint64> starts;
            for (const std::optional<Component> &part : {std::optional(*input), cached, output}) {
                for (const auto &tier : part ? part->tiers : QList<std::pair<qint64, double>>{})
                    starts.append(tier.first);
            }
            std::sort(starts.begin(), starts.end());
            starts.erase(std::unique(starts.begin(), starts.end()), starts.end());
            QJsonArray tiers;
            for (qint64 start : starts) {
                QJsonObject tier = priceObject(*input, cached, output, start + 1);
                tier.insert(u"above_input_tokens"_s, start);
                tiers.append(tier);
            }
            if (!tiers.isEmpty())
                entry.insert(u"tiers"_s, tiers);
            models.insert(id, entry);
            rules.append(QJsonObject{{u"model"_s, id}, {u"match"_s, model[u"match"]}});
        }
    }
    result.table = QJsonObject{
        {u"unit"_s, u"USD per million tokens"_s},
        {u"source"_s, u"@pydantic/genai-prices %1, fetched %2 (third_party/genai-prices), providers: %3"_s
                          .arg(version, date.toString(Qt::ISODate), providers.join(u", "))},
        {u"note"_s, u"Generated at build time by tools/pricegen; do not edit. Extend or override it with "
                    "--prices FILE (the same shape)."_s},
        {u"models"_s, models},
        {u"rules"_s, rules},
    };
    return result;
}
