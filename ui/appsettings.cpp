#include "appsettings.h"

#include "commandline.h"

#include <cmath>
#include <type_traits>

#include <QHostAddress>
#include <QLoggingCategory>
#include <QSettings>
#include <QUrl>
#include <QVariant>

using namespace Qt::StringLiterals;

Q_LOGGING_CATEGORY(lcSettings, "breakwater.settings")

namespace {

constexpr double kMaxSeconds = 86400.0 * 365;
constexpr int kMaxConcurrency = 4096;
constexpr int kMaxCacheMb = 65536;
constexpr int kMaxBreakerFailures = 1000;
constexpr double kMaxSpendUsd = 1'000'000;

// Each check returns a message, empty when the value is fine: the Settings dialog shows it in the
// dashboard's language, the log of a bad saved value in English (message.h).
Message checkListen(const QString &text)
{
    QHostAddress address;
    quint16 port = 0;
    if (!parseListenAddress(text, &address, &port))
        return Message(QT_TRANSLATE_NOOP("Message", "Listen address: '%1' is not valid; expected HOST:PORT with a loopback IP "
                                                    "address, e.g. 127.0.0.1:8080 (port 0 picks a free one).")).arg(text);
    if (!address.isLoopback())
        return Message(QT_TRANSLATE_NOOP("Message", "Listen address: %1 is not a loopback address. Breakwater listens on loopback only; "
                                                    "binding elsewhere needs an explicit command-line option and an access token."))
            .arg(address.toString());
    return {};
}

Message checkUrl(const Message &what, const QString &text, const QString &example)
{
    const QUrl url(text, QUrl::StrictMode);
    if (!url.isValid() || (url.scheme() != u"http"_s && url.scheme() != u"https"_s) || url.host().isEmpty())
        //: %1 is the setting ("OpenAI upstream"), %2 what was typed, %3 an example URL
        return Message(QT_TRANSLATE_NOOP("Message", "%1: '%2' is not valid; expected an http(s) URL such as %3.")).arg(what).arg(text).arg(example);
    return {};
}

Message checkSeconds(const Message &what, double seconds, bool allowZero)
{
    if (!std::isfinite(seconds) || seconds < 0 || (!allowZero && seconds == 0) || seconds > kMaxSeconds)
        //: %1 is the setting ("Timeout"), %2 the seconds typed, %3 "0 or more" or "more than 0"
        return Message(QT_TRANSLATE_NOOP("Message", "%1: %2 s is not valid; expected %3 seconds.")).arg(what).arg(seconds).arg(
            allowZero ? Message(QT_TRANSLATE_NOOP("Message", "0 or more")) : Message(QT_TRANSLATE_NOOP("Message", "more than 0")));
    return {};
}

Message checkCount(const Message &what, int value, int minimum, int maximum)
{
    if (value < minimum || value > maximum)
        //: %1 is the setting ("Concurrency"), %2 the number typed
        return Message(QT_TRANSLATE_NOOP("Message", "%1: %2 is not valid; expected a whole number from %3 to %4."))
            .arg(what).arg(value).arg(minimum).arg(maximum);
    return {};
}

std::chrono::milliseconds toMs(double seconds)
{
    return std::chrono::milliseconds(qint64(std::llround(seconds * 1000)));
}

} // namespace

AppSettings AppSettings::fromConfig(const ProxyConfig &config)
{
    AppSettings s;
    const QString host = config.listenAddress.protocol() == QAbstractSocket::IPv6Protocol
        ? u'[' + config.listenAddress.toString() + u']'
        : config.listenAddress.toString();
    s.listen = host + u':' + QString::number(config.listenPort);
    s.openaiUpstream = config.openaiUpstream.toString();
    s.anthropicUpstream = config.anthropicUpstream.toString();
    s.timeoutSeconds = double(config.upstreamTimeout.count()) / 1000.0;
    s.concurrency = config.concurrency;
    s.dedupWindowSeconds = double(config.dedupWindow.count()) / 1000.0;
    s.cacheSizeMb = int(config.cacheBytes / (1024 * 1024));
    s.breakerFailures = config.breakerFailures;
    s.breakerCooldownSeconds = double(config.breakerCooldown.count()) / 1000.0;
    s.maxSpendUsd = config.maxSpendUsd;
    return s;
}

QList<Message> AppSettings::validate() const
{
    const QList<Message> checked{
        checkListen(listen),
        checkUrl(Message(QT_TRANSLATE_NOOP("Message", "OpenAI upstream")), openaiUpstream, u"https://api.openai.com/v1"_s),
        checkUrl(Message(QT_TRANSLATE_NOOP("Message", "Anthropic upstream")), anthropicUpstream, u"https://api.anthropic.com"_s),
        checkSeconds(Message(QT_TRANSLATE_NOOP("Message", "Timeout")), timeoutSeconds, false),
        checkCount(Message(QT_TRANSLATE_NOOP("Message", "Concurrency")), concurrency, 1, kMaxConcurrency),
        checkSeconds(Message(QT_TRANSLATE_NOOP("Message", "De-dup window")), dedupWindowSeconds, true),
        checkCount(Message(QT_TRANSLATE_NOOP("Message", "Cache size (MB)")), cacheSizeMb, 0, kMaxCacheMb),
        checkCount(Message(QT_TRANSLATE_NOOP("Message", "Breaker failures")), breakerFailures, 1, kMaxBreakerFailures),
        checkSeconds(Message(QT_TRANSLATE_NOOP("Message", "Breaker cool-down")), breakerCooldownSeconds, false),
        std::isfinite(maxSpendUsd) && maxSpendUsd >= 0 && maxSpendUsd <= kMaxSpendUsd
            ? Message()
            : Message(QT_TRANSLATE_NOOP("Message", "Spend limit: %1 is not valid; expected US dollars per day from 0 (no limit) to %2."))
                  .arg(maxSpendUsd).arg(QString::number(kMaxSpendUsd, 'f', 0)),
    };
    QList<Message> problems;
    for (const Message &problem : checked) {
        if (!problem.isEmpty())
            problems.append(problem);
    }
    return problems;
}

void AppSettings::applyTo(ProxyConfig &config, const QStringList &keep) const
{
    const auto take = [&keep](const QString &option) { return !keep.contains(option); };
    if (take(u"--listen"_s)) {
        const qsizetype colon = listen.lastIndexOf(u':');
        QString host = listen.left(colon);
        if (host.startsWith(u'[') && host.endsWith(u']'))
            host = host.mid(1, host.size() - 2);
        config.listenAddress = QHostAddress(host == u"localhost"_s ? u"127.0.0.1"_s : host);
        config.listenPort = quint16(listen.mid(colon + 1).toUInt());
    }
    if (take(u"--upstream"_s))
        config.openaiUpstream = QUrl(openaiUpstream, QUrl::StrictMode);
    if (take(u"--anthropic-upstream"_s))
        config.anthropicUpstream = QUrl(anthropicUpstream, QUrl::StrictMode);
    if (take(u"--timeout"_s))
        config.upstreamTimeout = toMs(timeoutSeconds);
    if (take(u"--concurrency"_s))
        config.concurrency = concurrency;
    if (take(u"--dedup-window"_s))
        config.dedupWindow = toMs(dedupWindowSeconds);
    if (take(u"--cache-size"_s))
        config.cacheBytes = qint64(cacheSizeMb) * 1024 * 1024;
    if (take(u"--breaker-failures"_s))
        config.breakerFailures = breakerFailures;
    if (take(u"--breaker-cooldown"_s))
        config.breakerCooldown = toMs(breakerCooldownSeconds);
    if (take(u"--max-spend"_s))
        config.maxSpendUsd = maxSpendUsd;
}

AppSettings AppSettings::load(QSettings &settings, const AppSettings &fallback)
{
    AppSettings loaded = fallback;
    settings.beginGroup(u"proxy"_s);
    // Each value is checked on its own, so one bad entry does not throw away the others.
    const auto read = [&](const QString &key, auto &field) {
        if (!settings.contains(key))
            return;
        const auto previous = field;
        const qsizetype problemsBefore = loaded.validate().size();
        field = settings.value(key).template value<std::decay_t<decltype(field)>>();
        if (const QList<Message> problems = loaded.validate(); problems.size() > problemsBefore) {
            QStringList english;
            for (const Message &problem : problems)
                english << problem.english();
            qCWarning(lcSettings).noquote() << "ignoring the saved value of" << key << "-" << english.join(u' ');
            field = previous;
        }
    };
    read(u"listen"_s, loaded.listen);
    read(u"openaiUpstream"_s, loaded.openaiUpstream);
    read(u"anthropicUpstream"_s, loaded.anthropicUpstream);
    read(u"timeoutSeconds"_s, loaded.timeoutSeconds);
    read(u"concurrency"_s, loaded.concurrency);
    read(u"dedupWindowSeconds"_s, loaded.dedupWindowSeconds);
    read(u"cacheSizeMb"_s, loaded.cacheSizeMb);
    read(u"breakerFailures"_s, loaded.breakerFailures);
    read(u"breakerCooldownSeconds"_s, loaded.breakerCooldownSeconds);
    read(u"maxSpendUsd"_s, loaded.maxSpendUsd);
    settings.endGroup();
    return loaded;
}

void AppSettings::save(QSettings &settings) const
{
    save(settings, options());
}

void AppSettings::save(QSettings &settings, const QStringList &which) const
{
    const QList<std::pair<QString, QVariant>> entries{
        {u"listen"_s, listen},
        {u"openaiUpstream"_s, openaiUpstream},
        {u"anthropicUpstream"_s, anthropicUpstream},
        {u"timeoutSeconds"_s, timeoutSeconds},
        {u"concurrency"_s, concurrency},
        {u"dedupWindowSeconds"_s, dedupWindowSeconds},
        {u"cacheSizeMb"_s, cacheSizeMb},
        {u"breakerFailures"_s, breakerFailures},
        {u"breakerCooldownSeconds"_s, breakerCooldownSeconds},
        {u"maxSpendUsd"_s, maxSpendUsd},
    };
    settings.beginGroup(u"proxy"_s);
    const QStringList all = options();
    for (qsizetype i = 0; i < all.size(); ++i) {
        if (which.contains(all[i]))
            settings.setValue(entries[i].first, entries[i].second);
    }
    settings.endGroup();
    settings.sync();
}

QStringList AppSettings::options()
{
    // In the order of the fields (and of save()'s keys).
    return {u"--listen"_s, u"--upstream"_s, u"--anthropic-upstream"_s, u"--timeout"_s, u"--concurrency"_s,
            u"--dedup-window"_s, u"--cache-size"_s, u"--breaker-failures"_s, u"--breaker-cooldown"_s,
            u"--max-spend"_s};
}

QStringList AppSettings::differences(const AppSettings &other) const
{
    QStringList changed;
    if (listen != other.listen) changed << u"--listen"_s;
    if (openaiUpstream != other.openaiUpstream) changed << u"--upstream"_s;
    if (anthropicUpstream != other.anthropicUpstream) changed << u"--anthropic-upstream"_s;
    if (timeoutSeconds != other.timeoutSeconds) changed << u"--timeout"_s;
    if (concurrency != other.concurrency) changed << u"--concurrency"_s;
    if (dedupWindowSeconds != other.dedupWindowSeconds) changed << u"--dedup-window"_s;
    if (cacheSizeMb != other.cacheSizeMb) changed << u"--cache-size"_s;
    if (breakerFailures != other.breakerFailures) changed << u"--breaker-failures"_s;
    if (breakerCooldownSeconds != other.breakerCooldownSeconds) changed << u"--breaker-cooldown"_s;
    if (maxSpendUsd != other.maxSpendUsd) changed << u"--max-spend"_s;
    return changed;
}

ProxyConfig withSavedSettings(const ProxyConfig &config, const QStringList &given, QSettings &settings)
{
    ProxyConfig merged = config;
    AppSettings::load(settings, AppSettings::fromConfig(config)).applyTo(merged, given);
    return merged;
}
