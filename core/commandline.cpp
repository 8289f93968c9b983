#include "commandline.h"

#include <QCommandLineParser>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStandardPaths>

#include <cmath>

#include "http/hostguard.h"
#include "http/tlsidentity.h"
#include "upstream/curlsettings.h"

using namespace Qt::StringLiterals;

namespace {

struct Option
{
    QString name;        // without dashes, as in the configuration file
    QString valueName;   // empty: a switch
    QString help;
    bool inConfigFile = true;
    bool repeatable = false;   // every value counts (comma-separated too; a list in the file), not the last
};

const QList<Option> &options()
{
    static const QList<Option> list{
        {u"headless"_s, {}, u"Run the proxy without the desktop window."_s},
        {u"listen"_s, u"HOST:PORT"_s, u"Address to listen on (default 127.0.0.1:8080; port 0 picks a free one)."_s},
        {u"upstream"_s, u"URL"_s, u"OpenAI-compatible base URL including /v1 (default https://api.openai.com/v1)."_s},
        {u"anthropic-upstream"_s, u"URL"_s, u"Anthropic base URL (default https://api.anthropic.com)."_s},
        {u"gemini-upstream"_s, u"URL"_s, u"Gemini API base URL, without /v1beta (default https://generativelanguage.googleapis.com)."_s},
        {u"route"_s, u"PATTERNS=URL"_s, u"Send the calls whose model matches one of the comma-separated patterns (globs: *, ?) to this OpenAI-compatible upstream, named by its host (repeatable; before --upstream; the configuration file's \"upstreams\" list does more)."_s, false},
        {u"ca-file"_s, u"FILE"_s, u"PEM certificate authorities to trust for upstreams (and their probes and replays) besides the system's, e.g. a corporate TLS proxy's or a local server's own."_s},
        {u"timeout"_s, u"S"_s, u"Seconds to wait for the upstream's first byte and between stream chunks (default 60)."_s},
        {u"drain"_s, u"S"_s, u"On SIGTERM, SIGINT or Quit: seconds calls in flight may finish before they are ended with an error (default 10)."_s},
        {u"concurrency"_s, u"N"_s, u"Upstream calls at once, per upstream (default 64)."_s},
        {u"max-queue"_s, u"N"_s, u"Calls that may wait for a free upstream slot before 429 (default 1024)."_s},
        {u"max-body"_s, u"MB"_s, u"Largest request body accepted, in MiB (default 32)."_s},
        {u"dedup-window"_s, u"S"_s, u"Seconds a finished answer is reused (default 300; 0 = only join calls in flight)."_s},
        {u"cache-size"_s, u"MB"_s, u"Bytes the answer cache may hold, in MB (default 64)."_s},
        {u"breaker-failures"_s, u"N"_s, u"Consecutive upstream failures that open the breaker (default 5)."_s},
        {u"breaker-cooldown"_s, u"S"_s, u"Seconds an open breaker waits before a trial, unless a probe sees the provider back sooner (default 60)."_s},
        {u"max-spend"_s, u"USD"_s, u"Spending cap per calendar day (local time), from the price table; over it: 429 (default: no cap)."_s},
        {u"prices"_s, u"FILE"_s, u"JSON price file that extends or overrides the built-in price table."_s},
        {u"log-db"_s, u"PATH"_s, u"SQLite call log (default: calls.sqlite in the per-user data folder)."_s},
        {u"log-bodies"_s, {}, u"Also store request and response bodies in the call log (credentials redacted)."_s},
        {u"allow-origin"_s, u"ORIGIN"_s, u"Answer requests from this browser origin, e.g. http://localhost:3000 (repeatable or comma-separated; default: web pages are refused)."_s, true, true},
        {u"control-token"_s, u"FILE"_s, u"The control token's file, asked of every /breakwater/ route (default ~/.config/breakwater/control-token; made 0600 at the first start if missing)."_s},
        {u"access-tokens"_s, u"FILE"_s, u"A team's Breakwater: the members' tokens, {\"members\":[{\"name\":\"alice\",\"token\":\"...\",\"max_spend\":5}]} (0600; tokens of 32 characters or more); every API call then needs one (README, Team gateway)."_s},
        {u"provider-keys"_s, u"FILE"_s, u"With --access-tokens: the provider keys Breakwater calls upstreams with, {\"openai\":\"sk-...\",\"anthropic\":\"sk-ant-...\"} (0600); members then send their token as their API key."_s},
        {u"tls-cert"_s, u"FILE"_s, u"Serve HTTPS (HTTP/1.1) with this PEM certificate (chain after it); with --tls-key."_s},
        {u"tls-key"_s, u"FILE"_s, u"The PEM private key of --tls-cert."_s},
        {u"public-name"_s, u"NAME"_s, u"A host name members reach this Breakwater by, accepted in the Host header besides loopback ones (repeatable or comma-separated)."_s, true, true},
        {u"fault"_s, u"RULE"_s, u"Arm a fault-injection rule at start, e.g. 503:count=2, 529:p=30, hang:for=30s, cut=3 (repeatable; see README, Fault injection; default: none)."_s, true, true},
        {u"json"_s, {}, u"With `breakwater report`: print JSON instead of a table."_s, false},
        {u"faults"_s, u"FILE"_s, u"With `breakwater exec`: the fault timeline to play, {\"timeline\": [{\"at\": \"5s\", \"rule\": \"529:for=20s\"}]}."_s, false},
        {u"junit"_s, u"FILE"_s, u"With `breakwater exec`: write JUnit XML, one test case per fault window."_s, false},
        {u"har"_s, u"FILE"_s, u"With `breakwater exec`: write every call of the drill as HAR 1.2."_s, false},
        {u"fleet"_s, {}, u"With `breakwater fault add`: arm the rule on every Breakwater of the running one's --shared-state fleet."_s, false},
        {u"shared-state"_s, u"URL"_s, u"Share answers, breakers and the spend cap with other Breakwaters through one Redis: redis://[user:password@]host:port[/db][?timeout=D] (default: off, every state is this process's own)."_s},
        {u"demo"_s, {}, u"Use the built-in mock provider as both upstreams."_s},
        {u"attach"_s, u"URL"_s, u"Open the dashboard and tray for the Breakwater at URL (http(s)://host:port) instead of starting one here, with its owner's --control-token (default ~/.config/breakwater/control-token); --ca-file adds a CA to trust for it."_s, false},
        {u"minimized"_s, {}, u"Start in the tray without showing the window (used by the login autostart)."_s},
        {u"config"_s, u"FILE"_s, u"JSON configuration file (default ~/.config/breakwater/config.json); the command line wins."_s, false},
        {u"help"_s, {}, u"Show this help."_s, false},
        {u"version"_s, {}, u"Show the version."_s, false},
    };
    return list;
}

const Option *findOption(const QString &name)
{
    for (const Option &option : options()) {
        if (option.name == name)
            return &option;
    }
    return nullptr;
}

bool parseSeconds(const QString &text, std::chrono::milliseconds *out, bool allowZero)
{
    bool ok = false;
    const double seconds = text.toDouble(&ok);
    if (!ok || !std::isfinite(seconds) || seconds < 0 || (!allowZero && seconds == 0) || seconds > 86400 * 365)
        return false;
    // Kept in whole milliseconds: a positive value never rounds down to 0 (a 0 ms timeout would
    // time out every call at once; found by fuzz_commandline).
    const qint64 milliseconds = std::llround(seconds * 1000);
    *out = std::chrono::milliseconds(seconds > 0 ? qMax<qint64>(milliseconds, 1) : 0);
    return true;
}

bool parseCount(const QString &text, int *out, int minimum, int maximum)
{
    bool ok = false;
    const int value = text.toInt(&ok);
    if (!ok || value < minimum || value > maximum)
        return false;
    *out = value;
    return true;
}

bool parseUrl(const QString &text, QUrl *out)
{
    const QUrl url(text, QUrl::StrictMode);
    if (!url.isValid() || (url.scheme() != u"http"_s && url.scheme() != u"https"_s) || url.host().isEmpty())
        return false;
    *out = url;
    return true;
}

// Applies one option (name without dashes) with its value. `label` names the option in messages:
// "--timeout" on the command line, "key 'timeout'" in the configuration file.
Result apply(CommandLine &result, const QString &name, const QString &value, const QString &label)
{
    ProxyConfig &config = result.config;
    const auto invalid = [&](const QString &expected) {
        return Failure{u"invalid value '%1' for %2: expected %3"_s.arg(value, label, expected)};
    };
    if (name == u"fleet"_s) {
        result.faultCommand.fleet = true;
    } else if (name == u"headless"_s) {
        result.headless = true;
    } else if (name == u"demo"_s) {
        result.demo = true;
    } else if (name == u"minimized"_s) {
        result.minimized = true;
    } else if (name == u"attach"_s) {
        const QUrl url(value, QUrl::StrictMode);
        if (!url.isValid() || (url.scheme() != u"http"_s && url.scheme() != u"https"_s) || url.host().isEmpty())
            return invalid(u"the remote Breakwater's http(s)://HOST:PORT, e.g. https://breakwater.example.com:8443"_s);
        result.attach = url;
    } else if (name == u"help"_s) {
        result.showHelp = true;
    } else if (name == u"version"_s) {
        result.showVersion = true;
    } else if (name == u"listen"_s) {
        if (!parseListenAddress(value, &config.listenAddress, &config.listenPort))
            return invalid(u"HOST:PORT with an IP address, e.g. 127.0.0.1:8080"_s);
        // Beyond loopback only for a team (--access-tokens): checked once every option is read.
    } else if (name == u"upstream"_s) {
        if (!parseUrl(value, &config.openaiUpstream))
            return invalid(u"an http(s) URL such as https://api.openai.com/v1"_s);
    } else if (name == u"anthropic-upstream"_s) {
        if (!parseUrl(value, &config.anthropicUpstream))
            return invalid(u"an http(s) URL such as https://api.anthropic.com"_s);
    } else if (name == u"gemini-upstream"_s) {
        if (!parseUrl(value, &config.geminiUpstream))
            return invalid(u"an http(s) URL such as https://generativelanguage.googleapis.com"_s);
        config.geminiUpstreamChosen = true;
    } else if (name == u"ca-file"_s) {
        QFile file(value);
        if (value.isEmpty() || !file.open(QIODevice::ReadOnly))
            return Failure{u"cannot read %1 '%2': %3"_s.arg(label, value, value.isEmpty() ? u"no path"_s : file.errorString())};
        // The parser the engine itself uses, so what is accepted here is what will be trusted.
        if (CurlSettings::countCertificates(file.readAll()) == 0)
            return Failure{u"%1 '%2' holds no PEM certificate (-----BEGIN CERTIFICATE-----)"_s.arg(label, value)};
        config.caFile = QFileInfo(value).absoluteFilePath();
    } else if (name == u"timeout"_s) {
        if (!parseSeconds(value, &config.upstreamTimeout, false))
            return invalid(u"seconds greater than 0"_s);
    } else if (name == u"concurrency"_s) {
        if (!parseCount(value, &config.concurrency, 1, 4096))
            return invalid(u"a whole number from 1 to 4096"_s);
    } else if (name == u"max-queue"_s) {
        if (!parseCount(value, &config.maxQueued, 0, 1000000))
            return invalid(u"a whole number from 0 to 1000000"_s);
    } else if (name == u"max-body"_s) {
        int megabytes = 0;
        if (!parseCount(value, &megabytes, 1, 4096))
            return invalid(u"a whole number of MiB from 1 to 4096"_s);
        config.maxBodyBytes = qint64(megabytes) * 1024 * 1024;
    } else if (name == u"max-spend"_s) {
        bool ok = false;
        const double usd = value.toDouble(&ok);
        if (!ok || !std::isfinite(usd) || usd <= 0)
            return invalid(u"US dollars greater than 0, e.g. 5 or 0.50"_s);
        config.maxSpendUsd = usd;
    } else if (name == u"prices"_s) {
        if (value.isEmpty())
            return invalid(u"a file path"_s);
        config.priceFile = value;
    } else if (name == u"log-db"_s) {
        if (value.isEmpty())
            return invalid(u"a file path"_s);
        result.logDb = value;
    } else if (name == u"control-token"_s) {
        if (value.isEmpty())
            return invalid(u"a file path"_s);
        result.controlTokenFile = value;
    } else if (name == u"access-tokens"_s) {
        const Expected<Team> team = loadTeam(value);
        if (!team.ok())
            return Failure{u"%1: %2"_s.arg(label, team.error())};
        config.team = team.value();
    } else if (name == u"provider-keys"_s) {
        const Expected<ProviderKeys> keys = loadProviderKeys(value);
        if (!keys.ok())
            return Failure{u"%1: %2"_s.arg(label, keys.error())};
        config.providerKeys = keys.value();
    } else if (name == u"tls-cert"_s || name == u"tls-key"_s) {
        if (value.isEmpty())
            return invalid(u"a file path"_s);
        (name == u"tls-cert"_s ? config.tlsCertFile : config.tlsKeyFile) = QFileInfo(value).absoluteFilePath();
    } else if (name == u"public-name"_s) {
        for (const QString &item : value.split(u',', Qt::SkipEmptyParts)) {
            const QString host = item.trimmed().toLower();
            if (host.isEmpty() || host.contains(u':') || host.contains(u'/') || QUrl::fromAce(QUrl::toAce(host)) != host)
                return invalid(u"a host name such as breakwater.example.com (no scheme, no port)"_s);
            if (!config.publicNames.contains(host))
                config.publicNames.append(host);
        }
    } else if (name == u"log-bodies"_s) {
        result.logBodies = true;
    } else if (name == u"allow-origin"_s) {
        for (const QString &item : value.split(u',', Qt::SkipEmptyParts)) {
            const std::optional<QString> origin = normalizeOrigin(item.trimmed());
            if (!origin)
                return invalid(u"origins such as http://localhost:3000 (scheme://host[:port], no path; "
                               "comma-separated)"_s);
            if (!config.allowedOrigins.contains(*origin))
                config.allowedOrigins.append(*origin);
        }
        if (config.allowedOrigins.isEmpty())
            return invalid(u"an origin such as http://localhost:3000"_s);
    } else if (name == u"fault"_s) {
        for (const QString &item : value.split(u',', Qt::SkipEmptyParts)) {
            const Expected<FaultRule> rule = FaultRule::parse(item);
            if (!rule.ok())
                return Failure{u"%1: %2"_s.arg(label, rule.error())};
            config.faults.append(rule.value());
        }
    } else if (name == u"json"_s) {
        if (!result.report)
            return Failure{u"--json goes with `breakwater report`"_s};
        result.reportJson = true;
    } else if (name == u"faults"_s || name == u"junit"_s || name == u"har"_s) {
        if (!result.exec.requested)
            return Failure{u"%1 goes with `breakwater exec`"_s.arg(label)};
        if (value.isEmpty())
            return invalid(u"a file path"_s);
        (name == u"faults"_s ? result.exec.faultsFile : name == u"junit"_s ? result.exec.junitFile : result.exec.harFile) = value;
    } else if (name == u"shared-state"_s) {
        Expected<RedisTarget> target = parseRedisTarget(value);
        if (!target.ok())
            return Failure{QString(target.error()).replace(u"--shared-state"_s, label)};
        config.sharedState = std::move(target).value();
    } else if (name == u"dedup-window"_s) {
        if (!parseSeconds(value, &config.dedupWindow, true))
            return invalid(u"seconds, 0 or more"_s);
    } else if (name == u"cache-size"_s) {
        bool ok = false;
        const double megabytes = value.toDouble(&ok);
        if (!ok || !std::isfinite(megabytes) || megabytes < 0 || megabytes > 65536)
            return invalid(u"megabytes from 0 to 65536"_s);
        config.cacheBytes = qint64(megabytes * 1024 * 1024);
    } else if (name == u"breaker-failures"_s) {
        if (!parseCount(value, &config.breakerFailures, 1, 1000))
            return invalid(u"a whole number from 1 to 1000"_s);
    } else if (name == u"drain"_s) {
        if (!parseSeconds(value, &config.drainTimeout, true))
            return invalid(u"seconds, 0 or more"_s);
    } else if (name == u"breaker-cooldown"_s) {
        if (!parseSeconds(value, &config.breakerCooldown, false))
            return invalid(u"seconds greater than 0"_s);
    }
    return {};
}

// The configuration file's layer: every key it holds that the command line did not give.
Result applyConfigFile(CommandLine &result, const QString &path, const QStringList &givenOnCommandLine)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return Failure{u"cannot read config file %1: %2"_s.arg(path, file.errorString())};
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(file.readAll(), &error);
    if (!document.isObject())
        return Failure{u"config file %1 is not a JSON object: %2"_s.arg(
            path, error.error == QJsonParseError::NoError ? u"it holds another JSON value"_s : error.errorString())};
    const QJsonObject object = document.object();
    for (auto it = object.begin(); it != object.end(); ++it) {
        if (it.key() == u"upstreams"_s) {   // a list of objects, no option's value
            if (!it.value().isArray())
                return Failure{u"config file %1: key 'upstreams' takes a list of upstreams"_s.arg(path)};
            Expected<QList<UpstreamRoute>> routes = parseUpstreamRoutes(it.value().toArray());
            if (!routes.ok())
                return Failure{u"config file %1: %2"_s.arg(path, routes.error())};
            result.config.upstreamRoutes += routes.value();
            continue;
        }
        const Option *option = findOption(it.key());
        const QString label = u"key '%1'"_s.arg(it.key());
        if (!option || !option->inConfigFile)
            return Failure{u"config file %1: unknown key '%2' (keys are option names without the dashes, "
                           "e.g. \"timeout\"; see --help)"_s.arg(path, it.key())};
        const QString name = u"--"_s + option->name;
        if (givenOnCommandLine.contains(name))
            continue;   // the command line wins
        QString value;
        if (option->valueName.isEmpty()) {
            if (!it.value().isBool())
                return Failure{u"config file %1: %2 takes true or false"_s.arg(path, label)};
            if (!it.value().toBool())
                continue;
        } else if (it.value().isDouble()) {
            value = QString::number(it.value().toDouble(), 'g', 17);
        } else if (it.value().isString()) {
            value = it.value().toString();
        } else if (option->repeatable && it.value().isArray()) {
            for (const QJsonValue &item : it.value().toArray()) {
                if (!item.isString())
                    return Failure{u"config file %1: %2 takes a list of strings"_s.arg(path, label)};
                value += item.toString() + u',';
            }
        } else {
            return Failure{u"config file %1: %2 takes %3 as a number or a string"_s.arg(path, label, option->valueName)};
        }
        if (const Result applied = apply(result, option->name, value, label); !applied.ok())
            return Failure{u"config file %1: %2"_s.arg(path, applied.error())};
        result.given.append(name);
    }
    return {};
}

// What only the options together decide: a team's Breakwater (README, Team gateway).
Result checkTeamOptions(const ProxyConfig &config)
{
    // Anyone who can reach the port spends the keys passed through it: beyond loopback, only
    // members with a token may.
    if (!config.listenAddress.isLoopback() && !config.team.enabled())
        return Failure{u"refusing to listen on %1: beyond loopback (127.0.0.0/8, ::1) Breakwater needs "
                       "--access-tokens FILE, so that only the team's members can call it (README, Team gateway)"_s
                           .arg(config.listenAddress.toString())};
    if (config.providerKeys.any() && !config.team.enabled())
        return Failure{u"--provider-keys goes with --access-tokens: without members' tokens, every caller "
                       "would spend the provider keys"_s};
    if (!config.tlsCertFile.isEmpty() || !config.tlsKeyFile.isEmpty()) {
        if (const Expected<QSslConfiguration> tls = loadTlsIdentity(config.tlsCertFile, config.tlsKeyFile); !tls.ok())
            return Failure{tls.error()};
    }
    return {};
}

// `breakwater fault add RULE | list | clear [ID]`, the words after `fault`.
Result parseFaultCommand(CommandLine &result, const QStringList &words)
{
    const QString usage = u"use `breakwater fault add RULE`, `breakwater fault list` or `breakwater fault clear [ID]`"_s;
    const QString action = words.value(0);
    if (action == u"add"_s) {
        if (words.size() != 2)
            return Failure{u"`breakwater fault add` takes one RULE, e.g. 503:count=2"_s};
        const Expected<FaultRule> rule = FaultRule::parse(words[1]);
        if (!rule.ok())
            return Failure{rule.error()};
        result.faultCommand = {FaultCommand::Action::Add, rule->text()};
    } else if (action == u"list"_s) {
        if (words.size() != 1)
            return Failure{u"unexpected argument '%1' after `fault list`"_s.arg(words[1])};
        result.faultCommand = {FaultCommand::Action::List, {}};
    } else if (action == u"clear"_s) {
        if (words.size() > 2)
            return Failure{u"`breakwater fault clear` takes at most one rule ID"_s};
        if (words.size() == 2) {
            QString id = words[1];
            if (id.startsWith(u'#'))
                id.remove(0, 1);
            bool ok = false;
            if (id.toInt(&ok) <= 0 || !ok)
                return Failure{u"`breakwater fault clear` takes a rule ID such as 3 (from `breakwater fault list`), not '%1'"_s.arg(words[1])};
            result.faultCommand = {FaultCommand::Action::Clear, id};
        } else {
            result.faultCommand = {FaultCommand::Action::Clear, {}};
        }
    } else {
        return Failure{action.isEmpty() ? QString(u"`breakwater fault` needs an action: "_s + usage)
                                        : QString(u"unknown fault action '%1': "_s.arg(action) + usage)};
    }
    return {};
}

} // namespace

bool parseListenAddress(const QString &text, QHostAddress *address, quint16 *port)
{
    const qsizetype colon = text.lastIndexOf(u':');
    if (colon <= 0)
        return false;
    QString host = text.left(colon);
    if (host.startsWith(u'[') && host.endsWith(u']'))
        host = host.mid(1, host.size() - 2);
    if (host == u"localhost"_s)
        host = u"127.0.0.1"_s;
    const QHostAddress parsed(host);
    bool ok = false;
    const uint number = text.mid(colon + 1).toUInt(&ok);
    if (parsed.isNull() || !ok || number > 65535)
        return false;
    *address = parsed;
    *port = quint16(number);
    return true;
}

QString defaultConfigFile()
{
    return QStandardPaths::writableLocation(QStandardPaths::GenericConfigLocation) + u"/breakwater/config.json"_s;
}

Expected<CommandLine> parseCommandLine(const QStringList &arguments, const QString &defaultConfigFile)
{
    CommandLine result;
    // `breakwater exec ... -- COMMAND [ARGS]`: what follows the first `--` is COMMAND's, never ours.
    QStringList ours = arguments;
    const qsizetype separator = arguments.indexOf(u"--"_s);
    if (separator > 0) {
        result.exec.command = arguments.mid(separator + 1);
        ours = arguments.mid(0, separator);
    }
    QCommandLineParser parser;
    parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    for (const Option &option : options())
        parser.addOption(QCommandLineOption(option.name, option.help, option.valueName));
    if (!parser.parse(ours)) {
        const QStringList unknown = parser.unknownOptionNames();
        return Failure{unknown.isEmpty()
            ? parser.errorText().replace(0, 1, parser.errorText().left(1).toLower()) + u" (see --help)"_s
            : u"unknown option '--%1' (see --help)"_s.arg(unknown.first())};
    }
    const QStringList positional = parser.positionalArguments();
    if (positional.value(0) == u"report"_s)
        result.report = true;
    if (separator > 0 && positional.value(0) != u"exec"_s)
        return Failure{u"a COMMAND after `--` goes with `breakwater exec` (see --help)"_s};
    if (positional.value(0) == u"exec"_s) {
        result.exec.requested = true;
        if (positional.size() > 1)
            return Failure{u"unexpected argument '%1': write COMMAND after `--`, as in "
                           "`breakwater exec --faults drill.json -- node app.js`"_s.arg(positional[1])};
        if (result.exec.command.isEmpty())
            return Failure{u"`breakwater exec` needs a COMMAND after `--`, as in "
                           "`breakwater exec --faults drill.json -- node app.js`"_s};
    } else if (positional.value(0) == u"fault"_s) {
        if (const Result fault = parseFaultCommand(result, positional.mid(1)); !fault.ok())
            return Failure{fault.error()};
    } else if (positional.size() > (result.report ? 1 : 0)) {
        return Failure{u"unexpected argument '%1' (see --help)"_s.arg(positional.value(result.report ? 1 : 0))};
    }
    // In the order given; a repeated option takes its last value, as QCommandLineParser::value does.
    for (const QString &name : parser.optionNames()) {
        const QString dashed = u"--"_s + name;
        if (result.given.contains(dashed))
            continue;
        result.given.append(dashed);
        if (name == u"config"_s)
            continue;
        if (name == u"route"_s) {   // repeatable, and its value has commas of its own
            for (const QString &value : parser.values(name)) {
                Expected<UpstreamRoute> route = parseRouteOption(value);
                if (!route.ok())
                    return Failure{route.error()};
                result.config.upstreamRoutes.append(route.value());
            }
            continue;
        }
        const Option *option = findOption(name);
        const QString value = option && option->repeatable ? parser.values(name).join(u',') : parser.value(name);
        if (const Result applied = apply(result, name, value, dashed); !applied.ok())
            return Failure{applied.error()};
    }
    if (result.faultCommand.fleet && result.faultCommand.action != FaultCommand::Action::Add)
        return Failure{u"--fleet goes with `breakwater fault add RULE`"_s};
    if (parser.isSet(u"config"_s))
        result.configFile = parser.value(u"config"_s);
    else if (!defaultConfigFile.isEmpty() && QFile::exists(defaultConfigFile))
        result.configFile = defaultConfigFile;
    if (!result.configFile.isEmpty()) {
        if (const Result applied = applyConfigFile(result, result.configFile, result.given); !applied.ok())
            return Failure{applied.error()};
    }
    // Checks of the configuration as a whole: the command line and the file together, so a refusal
    // names the file too (its values may be the ones at fault).
    const auto refusal = [&](const QString &why) {
        return Failure{result.configFile.isEmpty() ? why : u"%1 (with the configuration file %2)"_s.arg(why, result.configFile)};
    };
    if (const Result routes = checkUpstreamRoutes(result.config.upstreamRoutes); !routes.ok())
        return refusal(routes.error());
    if (const Result team = checkTeamOptions(result.config); !team.ok())
        return refusal(team.error());
    return result;
}

Result applyOptionValue(ProxyConfig &config, const QString &name, const QString &value, const QString &label)
{
    CommandLine line;
    line.config = config;
    if (const Result applied = apply(line, name, value, label); !applied.ok())
        return applied;
    config = line.config;
    return {};
}

QString helpText()
{
    QString text = u"Usage: breakwater [options]\n"
                   "       breakwater report [--log-db PATH] [--json]\n"
                   "       breakwater fault add [--fleet] RULE | list | clear [ID]   [--listen HOST:PORT] [--control-token FILE]\n"
                   "       breakwater --attach URL [--control-token FILE] [--ca-file FILE] [--minimized]\n"
                   "       breakwater exec [--faults FILE] [--junit FILE] [--har FILE] [options] -- COMMAND [ARGS]\n\n"
                   "A local LLM proxy: point an OpenAI or Anthropic SDK at it by changing only the base URL.\n\n"
                   "Options:\n"_s;
    for (const Option &option : options()) {
        const QString left = u"--"_s + option.name + (option.valueName.isEmpty() ? QString() : u' ' + option.valueName);
        text += u"  "_s + left.leftJustified(28) + option.help + u'\n';
    }
    text += u"\nSeconds may be fractional. Invalid values exit with status 2.\n"
            "Precedence: command line, then the configuration file, then the settings saved from the\n"
            "dashboard, then the defaults (see `man breakwater`).\n"
            "`breakwater report` prints how many requests were exact duplicates (within 5 min, 1 h, 24 h\n"
            "and in all) and which were repeated most, from the call log.\n"
            "`breakwater fault add|list|clear` arms, lists or disarms fault-injection rules of the\n"
            "Breakwater running at --listen (default 127.0.0.1:8080), through /breakwater/faults, with\n"
            "the control token from --control-token (default ~/.config/breakwater/control-token).\n"
            "With --access-tokens Breakwater serves a team: every API call needs a member's token (with\n"
            "--provider-keys as the SDK's API key, else in x-breakwater-token), it may listen beyond loopback,\n"
            "and --tls-cert/--tls-key serve HTTPS (README, Team gateway).\n"
            "`breakwater exec` runs COMMAND against a private headless Breakwater on a free loopback port\n"
            "(OPENAI_BASE_URL and ANTHROPIC_BASE_URL point at it; the options before `--` configure it),\n"
            "plays the --faults timeline into its traffic, prints a summary and exits with COMMAND's status\n"
            "(127: COMMAND not found, 126: not executable, 2: a timeline that cannot be read).\n"
            "A RULE is KIND[:OPTION=VALUE]...: KIND 429, 500, 502, 503, 529, hang, delay=D, slow-stream=D,\n"
            "cut=N, error-event=N, reset or garbage; options upstream=openai|anthropic, route=PATH,\n"
            "model=NAME, p=PERCENT, count=N, for=D, retry-after=D (D in seconds, or 500ms, 2s, 1m).\n"_s;
    return text;
}
