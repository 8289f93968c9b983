#include "accounting/pricetable.h"

#include <algorithm>

#include <QDate>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLoggingCategory>
#include <QRegularExpression>

#include "accounting/usage.h"

Q_LOGGING_CATEGORY(lcPrices, "breakwater.prices", QtInfoMsg)

using namespace Qt::StringLiterals;

namespace {
const QString kBuiltIn = u":/breakwater/prices.json"_s;

// genai-prices' own retry: a compact date (-20241120) spelled as its snapshots are listed
// (-2024-11-20), when it is a real date followed by '-', ':' or the end.
QString withDashedDates(const QString &name)
{
    static const QRegularExpression compact(
        uR"(-(20\d{2})(0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01])(?=-|:|\z))"_s);
    QString result;
    qsizetype copied = 0;
    for (QRegularExpressionMatchIterator it = compact.globalMatch(name); it.hasNext();) {
        const QRegularExpressionMatch match = it.next();
        if (!QDate(match.captured(1).toInt(), match.captured(2).toInt(), match.captured(3).toInt()).isValid())
            continue;
        result.append(QStringView(name).sliced(copied, match.capturedStart() - copied));
        result.append(u"-%1-%2-%3"_s.arg(match.captured(1), match.captured(2), match.captured(3)));
        copied = match.capturedEnd();
    }
    if (copied == 0)
        return name;
    result.append(QStringView(name).sliced(copied));
    return result;
}

// The name without the suffix that marks one snapshot of a model: a date, OpenAI's old -MMDD,
// -latest, or Vertex's @YYYYMMDD.
QString withoutSnapshot(const QString &name)
{
    static const QRegularExpression snapshot(uR"(^(.+?)(?:-\d{4}-\d{2}-\d{2}|-\d{8}|-\d{4}|-latest|@\d{8})\z)"_s);
    const QRegularExpressionMatch match = snapshot.match(name);
    return match.hasMatch() ? match.captured(1) : name;
}

// The names a model may be listed under, most specific first (the order PriceTable documents).
QStringList aliases(const QString &model)
{
    QStringList bases{model};
    QString name = model;
    for (QLatin1StringView router : {"openai/"_L1, "anthropic/"_L1}) {
        if (name.startsWith(router, Qt::CaseInsensitive)) {
            name = name.sliced(router.size());
            bases.append(name);
        }
    }
    // OpenAI fine-tunes: ft:BASE:ORG:SUFFIX:ID. genai-prices lists some as "ft:BASE" prices of
    // their own (fine-tuned inference costs more than its base); the rest are priced as BASE.
    if (name.startsWith(u"ft:"_s)) {
        const QString base = name.sliced(3).section(u':', 0, 0);
        bases.append(u"ft:"_s + base);
        bases.append(base);
    }
    QStringList names;
    for (const QString &base : std::as_const(bases))
        names << base << withDashedDates(base) << withoutSnapshot(base);
    names.removeDuplicates();
    return names;
}

std::optional<double> number(const QJsonObject &object, QStringView key, const QString &model, QString *why)
{
    const QJsonValue value = object.value(key);
    if (!value.isDouble()) {
        *why = u"model \"%1\" needs numeric \"input\" and \"output\""_s.arg(model);
        return std::nullopt;
    }
    if (value.toDouble() < 0) {
        *why = u"model \"%1\" has a negative price"_s.arg(model);
        return std::nullopt;
    }
    return value.toDouble();
}

// {"input": .., "output": .., "cached_input": ..}; cached_input absent means no discount.
std::optional<PriceTable::Price> parsePrice(const QJsonObject &entry, const QString &model, QString *why)
{
    const std::optional<double> input = number(entry, u"input", model, why);
    const std::optional<double> output = input ? number(entry, u"output", model, why) : std::nullopt;
    if (!output)
        return std::nullopt;
    PriceTable::Price price{*input, *input, *output};
    if (entry.contains(u"cached_input")) {
        const std::optional<double> cached = number(entry, u"cached_input", model, why);
        if (!cached)
            return std::nullopt;
        price.cachedInput = *cached;
    }
    return price;
}
} // namespace

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

bool PriceTable::parseModels(const QJsonObject &models, QHash<QString, Entry> &into, QString *why)
{
    for (auto it = models.begin(); it != models.end(); ++it) {
        const QString &model = it.key();
        if (model.isEmpty()) {
            *why = u"a model with an empty name"_s;
            return false;
        }
        const QJsonObject object = it.value().toObject();
        const std::optional<Price> base = parsePrice(object, model, why);
        if (!base)
            return false;
        Entry entry{*base, {}};
        const QJsonValue tiers = object.value(u"tiers");
        if (!tiers.isUndefined() && !tiers.isArray()) {
            *why = u"model \"%1\": \"tiers\" must be a list"_s.arg(model);
            return false;
        }
        for (const QJsonValue &value : tiers.toArray()) {
            const QJsonObject tier = value.toObject();
            const QJsonValue above = tier.value(u"above_input_tokens");
            const std::optional<Price> price = parsePrice(tier, model, why);
            if (!price)
                return false;
            if (!above.isDouble() || above.toDouble() < 0) {
                *why = u"model \"%1\": a tier needs \"above_input_tokens\" >= 0"_s.arg(model);
                return false;
            }
            entry.tiers.append({qint64(above.toDouble()), *price});
        }
        std::sort(entry.tiers.begin(), entry.tiers.end(),
                  [](const Tier &a, const Tier &b) { return a.aboveInputTokens < b.aboveInputTokens; });
        into.insert(model, entry);
    }
    return true;
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
    QHash<QString, Entry> parsed;
    QString why;
    if (!parseModels(models.toObject(), parsed, &why))
        return fail(why);
    const QJsonValue rules = document.object().value(u"rules");
    if (!rules.isUndefined() && !rules.isArray())
        return fail(u"\"rules\" must be a list"_s);
    QList<Rule> newRules;
    for (const QJsonValue &value : rules.toArray()) {
        const QString model = value[u"model"].toString();
        if (!parsed.contains(model) && !m_prices.contains(model))
            return fail(u"a rule for \"%1\", which has no price"_s.arg(model));
        std::optional<ModelMatch> match = ModelMatch::fromJson(value[u"match"], &why);
        if (!match)
            return fail(u"the rule for \"%1\": %2"_s.arg(model, why));
        newRules.append({model, std::move(*match)});
    }
    m_prices.insert(parsed);
    m_rules = newRules + m_rules;
    qCDebug(lcPrices) << "loaded" << parsed.size() << "prices and" << newRules.size() << "rules from" << origin;
    return {};
}

void PriceTable::setPrice(const QString &model, const Price &price, const QList<Tier> &tiers)
{
    m_prices.insert(model, {price, tiers});
}

QString PriceTable::lookup(const QString &name) const
{
    if (m_prices.contains(name))
        return name;
    // First match wins, in the table's order, as genai-prices does. A scan: about a hundred rules.
    for (const Rule &rule : m_rules) {
        if (rule.match.matches(name))
            return rule.model;
    }
    return {};
}

QString PriceTable::resolve(const QString &model) const
{
    // A name is the client's: one no model has (megabytes of it) is not worth scanning the rules for.
    if (model.isEmpty() || model.size() > kMaxModelName)
        return {};
    for (const QString &name : aliases(model)) {
        if (QString listed = lookup(name); !listed.isEmpty())
            return listed;
    }
    return {};
}

std::optional<PriceTable::Price> PriceTable::find(const QString &model, qint64 inputTokens) const
{
    const auto entry = m_prices.constFind(resolve(model));
    if (entry == m_prices.cend())
        return std::nullopt;
    Price price = entry->base;
    for (const Tier &tier : entry->tiers) {
        if (inputTokens > tier.aboveInputTokens)
            price = tier.price;
    }
    return price;
}

std::optional<double> PriceTable::cost(const QString &model, const Usage &usage) const
{
    if (!usage.known())
        return std::nullopt;
    const std::optional<Price> price = find(model, usage.inputTokens);
    if (!price)
        return std::nullopt;
    const qint64 cached = qBound<qint64>(0, usage.cachedTokens, usage.inputTokens);
    return ((usage.inputTokens - cached) * price->input + cached * price->cachedInput
            + usage.outputTokens * price->output) / kPerTokens;
}

std::optional<double> PriceTable::maxCost(const QString &model, qint64 inputTokens,
                                          qint64 maxOutputTokens) const
{
    const std::optional<Price> price = find(model, inputTokens);
    if (!price)
        return std::nullopt;
    return (qMax<qint64>(inputTokens, 0) * price->input + qMax<qint64>(maxOutputTokens, 0) * price->output)
           / kPerTokens;
}
