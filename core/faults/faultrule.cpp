#include "faults/faultrule.h"
#include "faults/faultduration.h"

#include <QJsonValue>
#include <QLocale>
#include <QStringList>

#include <algorithm>
#include <cmath>
#include <optional>

using namespace Qt::StringLiterals;

namespace {

constexpr int kStatuses[] = {429, 500, 502, 503, 529};
constexpr qint64 kMaxDurationMs = 3600LL * 1000;          // a delay, a gap, a retry-after
constexpr qint64 kMaxLifetimeMs = 365LL * 86400 * 1000;   // for=

const QString kKinds = u"429, 500, 502, 503, 529, hang, delay=D, slow-stream=D, cut=N, error-event=N, reset, garbage"_s;
const QString kOptions = u"upstream=, route=, model=, p=, count=, for=, retry-after="_s;

// Seconds (fractional ok), or a number with a unit: ms, s, m.
std::optional<qint64> parseDurationMs(QString text)
{
    double scale = 1000;
    if (text.endsWith(u"ms"_s)) {
        scale = 1;
        text.chop(2);
    } else if (text.endsWith(u's')) {
        text.chop(1);
    } else if (text.endsWith(u'm')) {
        scale = 60'000;
        text.chop(1);
    }
    bool ok = false;
    const double value = text.toDouble(&ok);
    // Bounded before rounding: llround of a value past qint64 is unspecified (retry-after=1e300
    // came out negative and slipped past the callers' upper bounds). A year is past every bound.
    if (!ok || !std::isfinite(value) || value < 0 || value * scale > 365.0 * 86'400'000)
        return std::nullopt;
    return std::llround(value * scale);
}

QString durationText(std::chrono::milliseconds duration)
{
    const qint64 ms = duration.count();
    return ms % 1000 == 0 ? u"%1s"_s.arg(ms / 1000) : u"%1ms"_s.arg(ms);
}

std::optional<int> parseCount(const QString &text, int minimum, int maximum)
{
    bool ok = false;
    const int value = text.toInt(&ok);
    if (!ok || value < minimum || value > maximum)
        return std::nullopt;
    return value;
}

// The text split at ':', with a piece without '=' glued back to a model= before it (a model name
// such as ft:gpt-4o-mini:acme or llama3:8b holds colons).
QStringList pieces(const QString &text)
{
    QStringList out;
    for (const QString &piece : text.split(u':')) {
        if (out.size() > 1 && out.last().startsWith(u"model="_s) && !piece.contains(u'='))
            out.last() += u':' + piece;
        else
            out.append(piece);
    }
    return out;
}

} // namespace

Expected<FaultRule> FaultRule::parse(const QString &input)
{
    const QString text = input.trimmed();
    // Shown in the Faults panel as the user's language has it, sent by the API in English (message.h).
    const auto bad = [&text](const Message &why) {
        return Failure{Message(QT_TRANSLATE_NOOP("Message", "fault rule '%1': %2")).arg(text).arg(why)};
    };
    if (text.isEmpty())
        return Failure{Message(QT_TRANSLATE_NOOP("Message", "empty fault rule: expected KIND[:OPTION=VALUE]..., KIND one of %1")).arg(kKinds)};
    if (text.contains(u',') || text.contains(u' '))
        return bad(Message(QT_TRANSLATE_NOOP("Message", "a rule holds no commas or spaces; options are separated by ':'")));

    const QStringList parts = pieces(text);
    FaultRule rule;
    const QString head = parts.first();
    const QString kind = head.section(u'=', 0, 0);
    const bool hasValue = head.contains(u'=');
    const QString kindValue = head.section(u'=', 1);
    bool ok = false;
    const int status = kind.toInt(&ok);
    if (ok) {
        if (std::find(std::begin(kStatuses), std::end(kStatuses), status) == std::end(kStatuses))
            return bad(Message(QT_TRANSLATE_NOOP("Message", "no status kind %1; the status kinds are 429, 500, 502, 503 and 529")).arg(kind));
        rule.kind = Kind::Status;
        rule.status = status;
    } else if (kind == u"hang"_s) {
        rule.kind = Kind::Hang;
    } else if (kind == u"reset"_s) {
        rule.kind = Kind::Reset;
    } else if (kind == u"garbage"_s) {
        rule.kind = Kind::Garbage;
    } else if (kind == u"delay"_s || kind == u"slow-stream"_s) {
        rule.kind = kind == u"delay"_s ? Kind::Delay : Kind::SlowStream;
        const std::optional<qint64> ms = parseDurationMs(kindValue);
        if (!hasValue || !ms || *ms <= 0 || *ms > kMaxDurationMs)
            return bad(Message(QT_TRANSLATE_NOOP("Message", "%1 needs a duration, e.g. %1=2s or %1=500ms (more than 0, at most 1 h)")).arg(kind));
        rule.duration = std::chrono::milliseconds(*ms);
    } else if (kind == u"cut"_s || kind == u"error-event"_s) {
        rule.kind = kind == u"cut"_s ? Kind::Cut : Kind::ErrorEvent;
        const std::optional<int> events = parseCount(kindValue, 0, 1'000'000);
        if (!hasValue || !events)
            return bad(Message(QT_TRANSLATE_NOOP("Message", "%1 needs the number of events that pass first, e.g. %1=3")).arg(kind));
        rule.events = *events;
    } else {
        return bad(Message(QT_TRANSLATE_NOOP("Message", "unknown kind '%1'; the kinds are %2")).arg(head).arg(kKinds));
    }
    if (hasValue && (rule.kind == Kind::Status || rule.kind == Kind::Hang || rule.kind == Kind::Reset
                     || rule.kind == Kind::Garbage))
        return bad(Message(QT_TRANSLATE_NOOP("Message", "%1 takes no value (write options after a ':', e.g. %1:count=2)")).arg(kind));

    QStringList seen;
    for (qsizetype i = 1; i < parts.size(); ++i) {
        const QString &part = parts[i];
        const QString name = part.section(u'=', 0, 0);
        const QString value = part.section(u'=', 1);
        if (!part.contains(u'=') || value.isEmpty())
            return bad(Message(QT_TRANSLATE_NOOP("Message", "option '%1' needs a value (NAME=VALUE)")).arg(part));
        if (seen.contains(name))
            return bad(Message(QT_TRANSLATE_NOOP("Message", "option %1 is given twice")).arg(name));
        seen.append(name);
        if (name == u"upstream"_s) {
            if (value != u"openai"_s && value != u"anthropic"_s)
                return bad(Message(QT_TRANSLATE_NOOP("Message", "upstream is openai or anthropic, not '%1' (leave it out for both)")).arg(value));
            rule.upstream = value.toLatin1();
        } else if (name == u"route"_s) {
            if (!value.startsWith(u'/'))
                return bad(Message(QT_TRANSLATE_NOOP("Message", "route is a path such as /v1/chat/completions, not '%1'")).arg(value));
            rule.route = value.toUtf8();
        } else if (name == u"model"_s) {
            rule.model = value;
        } else if (name == u"p"_s) {
            const double percent = value.toDouble(&ok);
            if (!ok || !std::isfinite(percent) || percent < 0 || percent > 100)
                return bad(Message(QT_TRANSLATE_NOOP("Message", "p is a percentage from 0 to 100, not '%1'")).arg(value));
            rule.percent = percent;
        } else if (name == u"count"_s) {
            const std::optional<int> count = parseCount(value, 1, 1'000'000);
            if (!count)
                return bad(Message(QT_TRANSLATE_NOOP("Message", "count is a whole number of calls from 1 to 1000000, not '%1'")).arg(value));
            rule.count = *count;
        } else if (name == u"for"_s) {
            const std::optional<qint64> ms = parseDurationMs(value);
            if (!ms || *ms <= 0 || *ms > kMaxLifetimeMs)
                return bad(Message(QT_TRANSLATE_NOOP("Message", "for is how long the rule stays armed, e.g. for=60 or for=30s (more than 0), not '%1'")).arg(value));
            rule.lifetime = std::chrono::milliseconds(*ms);
        } else if (name == u"retry-after"_s) {
            if (rule.kind != Kind::Status)
                return bad(Message(QT_TRANSLATE_NOOP("Message", "retry-after goes with a status kind (429, 500, 502, 503, 529)")));
            const std::optional<qint64> ms = parseDurationMs(value);
            if (!ms || *ms > kMaxDurationMs)
                return bad(Message(QT_TRANSLATE_NOOP("Message", "retry-after is seconds from 0 to 3600, e.g. retry-after=2, not '%1'")).arg(value));
            rule.retryAfter = std::chrono::milliseconds(*ms);
        } else {
            return bad(Message(QT_TRANSLATE_NOOP("Message", "unknown option '%1'; the options are %2")).arg(name).arg(kOptions));
        }
    }
    if (rule.kind == Kind::Status && rule.status == 429 && rule.retryAfter.count() < 0)
        rule.retryAfter = std::chrono::seconds(1);
    return rule;
}

std::optional<std::chrono::milliseconds> parseFaultDuration(const QString &text)
{
    const std::optional<qint64> ms = parseDurationMs(text);
    if (!ms)
        return std::nullopt;
    return std::chrono::milliseconds(*ms);
}

Expected<FaultRule> FaultRule::fromJson(const QJsonObject &object)
{
    if (object.contains(u"rule"_s)) {
        if (!object.value(u"rule"_s).isString())
            return Failure{u"\"rule\" must be a string such as \"503:count=2\""_s};
        return parse(object.value(u"rule"_s).toString());
    }
    // The fields become the text form, so both forms are checked by the one parser.
    const QJsonValue kind = object.value(u"kind"_s);
    if (!kind.isString() && !kind.isDouble())
        return Failure{u"give the rule as {\"rule\": \"503:count=2\"} or as fields with a \"kind\""_s};
    const auto textOf = [](const QJsonValue &value) {
        return value.isDouble() ? QString::number(value.toDouble(), 'g', 12) : value.toString();
    };
    QString text = textOf(kind);
    if (object.contains(u"value"_s))
        text += u'=' + textOf(object.value(u"value"_s));
    for (const QString &name : {u"upstream"_s, u"route"_s, u"model"_s, u"p"_s, u"count"_s, u"for"_s, u"retry-after"_s}) {
        const QJsonValue value = object.value(name);
        if (value.isUndefined() || value.isNull())
            continue;
        if (!value.isString() && !value.isDouble())
            return Failure{u"\"%1\" must be a string or a number"_s.arg(name)};
        text += u':' + name + u'=' + textOf(value);
    }
    for (auto it = object.begin(); it != object.end(); ++it) {
        static const QStringList known{u"kind"_s, u"value"_s, u"upstream"_s, u"route"_s, u"model"_s, u"p"_s,
                                       u"count"_s, u"for"_s, u"retry-after"_s};
        if (!known.contains(it.key()))
            return Failure{u"unknown field \"%1\"; the fields are rule, or %2"_s.arg(it.key(), known.join(u", "))};
    }
    return parse(text);
}

QByteArray FaultRule::kindName() const
{
    switch (kind) {
    case Kind::Status: return QByteArray::number(status);
    case Kind::Hang: return "hang";
    case Kind::Delay: return "delay";
    case Kind::SlowStream: return "slow-stream";
    case Kind::Cut: return "cut";
    case Kind::ErrorEvent: return "error-event";
    case Kind::Reset: return "reset";
    case Kind::Garbage: return "garbage";
    }
    return {};
}

QString FaultRule::text() const
{
    QString text = QString::fromLatin1(kindName());
    if (kind == Kind::Delay || kind == Kind::SlowStream)
        text += u'=' + durationText(duration);
    else if (kind == Kind::Cut || kind == Kind::ErrorEvent)
        text += u'=' + QString::number(events);
    if (kind == Kind::Status && retryAfter.count() >= 0 && !(status == 429 && retryAfter == std::chrono::seconds(1)))
        text += u":retry-after="_s + durationText(retryAfter);
    if (!upstream.isEmpty())
        text += u":upstream="_s + QString::fromLatin1(upstream);
    if (!route.isEmpty())
        text += u":route="_s + QString::fromUtf8(route);
    if (!model.isEmpty())
        text += u":model="_s + model;
    if (percent != 100)
        text += u":p="_s + QString::number(percent, 'g', QLocale::FloatingPointShortest);
    if (count >= 0)
        text += u":count="_s + QString::number(count);
    if (lifetime.count() > 0)
        text += u":for="_s + durationText(lifetime);
    return text;
}

QString FaultRule::label() const
{
    return u"#%1 %2"_s.arg(id).arg(text());
}

QJsonObject FaultRule::toJson(qint64 nowMs) const
{
    const auto orNull = [](const QString &value) { return value.isEmpty() ? QJsonValue() : QJsonValue(value); };
    QJsonObject object{
        {u"id"_s, id},
        {u"rule"_s, text()},
        {u"label"_s, label()},
        {u"kind"_s, QString::fromLatin1(kindName())},
        {u"upstream"_s, orNull(QString::fromLatin1(upstream))},
        {u"route"_s, orNull(QString::fromUtf8(route))},
        {u"model"_s, orNull(model)},
        {u"p"_s, percent},
        {u"fired"_s, fired},
        {u"left"_s, count >= 0 ? QJsonValue(count - fired) : QJsonValue()},
        {u"expires_in_s"_s, expiresAtMs > 0 ? QJsonValue(std::max<qint64>(expiresAtMs - nowMs, 0) / 1000.0) : QJsonValue()},
    };
    if (kind == Kind::Status)
        object.insert(u"status"_s, status);
    if (!fleetId.isEmpty())
        object.insert(u"fleet"_s, true);
    return object;
}

bool FaultRule::shapesRealCall() const
{
    return kind == Kind::Delay || kind == Kind::SlowStream || kind == Kind::Cut || kind == Kind::ErrorEvent;
}

bool FaultRule::needsStream() const
{
    return kind == Kind::SlowStream || kind == Kind::Cut || kind == Kind::ErrorEvent;
}
