#pragma once

#include <QJsonObject>
#include <QString>
#include <QStringList>

// The build-time conversion of pydantic's genai-prices data (the snapshot in third_party/genai-prices/,
// refreshed by tools/refresh-prices.sh) into Breakwater's price table, the file PriceTable reads from
// :/breakwater/prices.json. Used by tools/pricegen, and by tst_genaiprices to pin the rules below.
//
// For each model of the given providers (in that order; an id an earlier provider took is skipped):
// - its price is the one in force on the snapshot's date: for a list of periods, genai-prices' own
//   rule (the last whose start_date is on or before the date, else the first), except that a
//   time-of-day period (an off-peak discount) is never chosen, so the full price is kept;
// - input_mtok is "input", cache_read_mtok "cached_input" (absent: no discount), output_mtok
//   "output" (absent: 0, as for embeddings); a model without input_mtok (priced per audio hour or
//   per request) is skipped, since Breakwater only counts tokens;
// - tiered prices ({"base", "tiers": [{"start", "price"}]}: above `start` prompt tokens the whole
//   call is priced at the tier) become "tiers" with the three prices above each threshold;
// - its match logic becomes a rule, verbatim and in the data's order (the first match wins);
// - everything else is dropped: cache writes (cache_write_mtok, cache_write_1h_mtok: such tokens
//   are priced as input), audio, image and video token prices (priced as text), per-search and
//   per-request fees.
struct GenaiConversion
{
    QJsonObject table;     // {"unit", "source", "note", "models", "rules"}
    QStringList skipped;   // "provider/model: why"
    QString error;         // not empty: the snapshot cannot be converted
};

GenaiConversion convertGenaiPrices(const QJsonObject &snapshot, const QStringList &providers);
