// The configuration file parser: `breakwater --config FILE` with the input as FILE's contents.
// Whatever the file holds, parsing ends with an error message, or with a configuration whose every
// value lies in the range --help promises, set only from keys the file may hold.

#include "commandline.h"

#include <cmath>

#include <QJsonDocument>
#include <QJsonObject>

#include "fuzzsupport.h"

using namespace Qt::StringLiterals;
using namespace std::chrono_literals;

extern "C" int LLVMFuzzerInitialize(int *, char ***)
{
    fuzz::quietQt();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const fuzz::ScratchFile file(u"config.json"_s);
    file.write(data, size);
    const Expected<CommandLine> parsed = parseCommandLine({u"breakwater"_s, u"--config"_s, file.path()});
    if (!parsed.ok()) {
        FUZZ_CHECK(parsed.error().contains(file.path()));   // every refusal names the file
        return 0;
    }
    const CommandLine &line = parsed.value();
    FUZZ_CHECK(line.configFile == file.path());

    const QJsonObject object = QJsonDocument::fromJson(fuzz::bytesOf(data, size)).object();
    for (const QString &name : line.given)
        FUZZ_CHECK(name == u"--config"_s || object.contains(name.mid(2)));
    FUZZ_CHECK(!line.showHelp && !line.showVersion && !line.report && !line.reportJson);

    const ProxyConfig &config = line.config;
    FUZZ_CHECK(config.listenAddress.isLoopback());
    for (const QUrl &url : {config.openaiUpstream, config.anthropicUpstream}) {
        FUZZ_CHECK(url.isValid() && !url.host().isEmpty());
        FUZZ_CHECK(url.scheme() == u"http"_s || url.scheme() == u"https"_s);
    }
    FUZZ_CHECK(config.upstreamTimeout > 0ms && config.upstreamTimeout <= 365 * 24h);
    FUZZ_CHECK(config.breakerCooldown > 0ms && config.breakerCooldown <= 365 * 24h);
    FUZZ_CHECK(config.dedupWindow >= 0ms && config.dedupWindow <= 365 * 24h);
    FUZZ_CHECK(config.concurrency >= 1 && config.concurrency <= 4096);
    FUZZ_CHECK(config.maxQueued >= 0 && config.maxQueued <= 1000000);
    FUZZ_CHECK(config.maxBodyBytes >= 1024 * 1024 && config.maxBodyBytes <= 4096LL * 1024 * 1024);
    FUZZ_CHECK(config.cacheBytes >= 0 && config.cacheBytes <= 65536LL * 1024 * 1024);
    FUZZ_CHECK(config.breakerFailures >= 1 && config.breakerFailures <= 1000);
    FUZZ_CHECK(config.maxSpendUsd >= 0 && std::isfinite(config.maxSpendUsd));
    FUZZ_CHECK(!line.given.contains(u"--prices"_s) || !config.priceFile.isEmpty());
    FUZZ_CHECK(!line.given.contains(u"--log-db"_s) || !line.logDb.isEmpty());
    return 0;
}
