// The price file parser: `--prices FILE` with the input as FILE's contents, loaded over the built-in
// table. A file that is refused changes nothing and says why; a file that loads prices every model
// it names at what it says, never below zero, and every cost figured from the table is a number
// (the spend guard compares them with the cap: a NaN would never reach it).

#include "accounting/pricetable.h"

#include <cmath>

#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

#include "accounting/usage.h"
#include "fuzzsupport.h"

using namespace Qt::StringLiterals;

namespace {
bool isCost(std::optional<double> cost)
{
    return cost && !std::isnan(*cost) && *cost >= 0;
}
} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***)
{
    fuzz::quietQt();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const fuzz::ScratchFile file(u"prices.json"_s);
    static const PriceTable builtIn;   // parsed once: a plain value, copied for each input
    file.write(data, size);
    PriceTable table = builtIn;
    const Result loaded = table.load(file.path());
    if (!loaded.ok()) {
        FUZZ_CHECK(!loaded.error().isEmpty());
        FUZZ_CHECK(table.size() == builtIn.size());
        return 0;
    }
    FUZZ_CHECK(table.size() >= builtIn.size());

    const QJsonObject models =
        QJsonDocument::fromJson(fuzz::bytesOf(data, size)).object().value(u"models"_s).toObject();
    const Usage usage{1000, 500, 200};
    for (auto it = models.begin(); it != models.end(); ++it) {
        const std::optional<PriceTable::Price> price = table.find(it.key());
        FUZZ_CHECK(price);
        FUZZ_CHECK(price->input == it.value()[u"input"_s].toDouble());
        FUZZ_CHECK(price->output == it.value()[u"output"_s].toDouble());
        FUZZ_CHECK(price->input >= 0 && price->cachedInput >= 0 && price->output >= 0);
        FUZZ_CHECK(isCost(table.cost(it.key(), usage)));
        FUZZ_CHECK(isCost(table.maxCost(it.key(), 0, 0)));
        FUZZ_CHECK(isCost(table.maxCost(it.key(), 1000, 4096)));
        // A dated snapshot of a listed model is priced as that model. Model names are plain ids
        // (letters, digits, . _ : / -), as the snapshot rules (accounting/modelmatch) expect. \z, not
        // $: PCRE's $ also matches before a final newline, and "abc\n" is no plain id.
        static const QRegularExpression plainId(u"\\A[A-Za-z0-9._:/-]{1,400}\\z"_s);
        if (plainId.match(it.key()).hasMatch())
            FUZZ_CHECK(isCost(table.maxCost(it.key() + u"-2025-01-01"_s, 1000, 4096)));
    }
    return 0;
}
