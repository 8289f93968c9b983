#pragma once

#include <optional>

#include <QHash>
#include <QString>

#include "result.h"

struct Usage;

// What a call costs. Prices are USD per million tokens: input, cached input (prompt tokens read from
// the provider's cache) and output. The built-in table ships in resources/prices.json (embedded at
// :/breakwater/prices.json); a user file of the same shape can add models or override prices.
//
// A model matches a listed name exactly, or by the longest listed name that is a prefix of it and
// is followed by '-' (so "gpt-4o-2024-08-06" is priced as "gpt-4o" and "claude-3-5-haiku-latest"
// as "claude-3-5-haiku", but "gpt-4.1" never as "gpt-4"). A model that matches nothing has no cost:
// the caller records it as unknown and counts it, it is never guessed. A plain value, cheap to copy.
class PriceTable final
{
public:
    struct Price
    {
        double input = 0;
        double cachedInput = 0;
        double output = 0;
    };

    // The built-in table.
    PriceTable();

    // Adds or overrides prices from a JSON file ({"models": {"name": {"input": .., "output": ..,
    // "cached_input": ..}}}). On a missing or malformed file nothing changes and the failure says why.
    Result load(const QString &userFile);
    // The same, from bytes; `origin` names them in errors.
    Result loadJson(const QByteArray &json, const QString &origin);

    void setPrice(const QString &model, const Price &price) { m_prices.insert(model, price); }
    std::optional<Price> find(const QString &model) const;
    std::optional<double> cost(const QString &model, const Usage &usage) const;
    // The most a call may cost before it is made: the input estimate plus max output tokens, both
    // at full price. What the spend guard reserves.
    std::optional<double> maxCost(const QString &model, qint64 inputTokens, qint64 maxOutputTokens) const;

    qsizetype size() const { return m_prices.size(); }
    static constexpr double kPerTokens = 1'000'000.0;

private:
    QHash<QString, Price> m_prices;
};
