#pragma once

#include <optional>

#include <QHash>
#include <QJsonObject>
#include <QList>
#include <QString>

#include "accounting/modelmatch.h"
#include "result.h"

struct Usage;

// What a call costs. Prices are USD per million tokens: input, cached input (prompt tokens read from
// the provider's cache) and output. The built-in table (embedded at :/breakwater/prices.json) is
// converted at build time from the vendored genai-prices snapshot (tools/pricegen); a user file of
// the same shape can add models or override prices.
//
// A model is priced as the first of its names the table has. Its names, in order: as sent, without
// a router's "openai/" or "anthropic/" in front, and for a fine-tune "ft:BASE:org::id" "ft:BASE" and
// then BASE; each as it is, then with genai-prices' date spelling (-20241120 as -2024-11-20), then
// without a snapshot suffix (-2024-11-20, -20241120, -0613, -latest, @20250514). A name is in the
// table if it is a listed name exactly, or else by the first match rule (genai-prices' own rules, see
// ModelMatch) that matches it. No other prefix matching: a longer name is often another, dearer
// model (gpt-5-pro is not gpt-5). A model that matches nothing has no cost: the caller records it as
// unknown, never a guess (and under a spend cap refuses it). A plain value, cheap to copy.
class PriceTable final
{
public:
    struct Price
    {
        double input = 0;
        double cachedInput = 0;
        double output = 0;
    };
    // Long-context pricing: `price` applies to the whole call once its prompt (cached tokens
    // included) has more than `aboveInputTokens` tokens, as genai-prices' tiers do.
    struct Tier
    {
        qint64 aboveInputTokens = 0;
        Price price;
    };

    // The built-in table.
    PriceTable();

    // Adds or overrides prices from a JSON file ({"models": {"name": {"input": .., "output": ..,
    // "cached_input": .., "tiers": [..]}}, "rules": [{"model": "name", "match": {..}}]}). A file's
    // rules are tried before the ones already loaded. On a missing or malformed file nothing changes
    // and the failure says why.
    Result load(const QString &userFile);
    // The same, from bytes; `origin` names them in errors.
    Result loadJson(const QByteArray &json, const QString &origin);

    void setPrice(const QString &model, const Price &price, const QList<Tier> &tiers = {});
    // The listed name `model` is priced as (see above), or an empty string (also for a name longer
    // than kMaxModelName characters).
    QString resolve(const QString &model) const;
    // The price of a call to `model` whose prompt has `inputTokens` tokens.
    std::optional<Price> find(const QString &model, qint64 inputTokens = 0) const;
    std::optional<double> cost(const QString &model, const Usage &usage) const;
    // The most a call may cost before it is made: the input estimate plus max output tokens, both
    // at full price (the tier the estimate reaches). What the spend guard reserves; nullopt for a
    // model without a price, which the spend guard refuses under a cap.
    std::optional<double> maxCost(const QString &model, qint64 inputTokens, qint64 maxOutputTokens) const;

    qsizetype size() const { return m_prices.size(); }
    qsizetype ruleCount() const { return m_rules.size(); }
    static constexpr double kPerTokens = 1'000'000.0;
    static constexpr qsizetype kMaxModelName = 512;

private:
    struct Entry
    {
        Price base;
        QList<Tier> tiers;   // ascending aboveInputTokens
    };
    struct Rule
    {
        QString model;
        ModelMatch match;
    };

    QString lookup(const QString &name) const;   // a listed name exactly, else the first rule
    static bool parseModels(const QJsonObject &models, QHash<QString, Entry> &into, QString *why);

    QHash<QString, Entry> m_prices;
    QList<Rule> m_rules;
};
