#include "drill/faulttimeline.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>

#include "faults/faultduration.h"

using namespace Qt::StringLiterals;

namespace {

const QString kShape = u"{\"timeline\": [{\"at\": \"5s\", \"rule\": \"529:for=20s\"}, ...]}"_s;

// "at" as written: a JSON number is seconds, a string is a duration with or without a unit.
QString atTextOf(const QJsonValue &value)
{
    if (value.isDouble())
        return QString::number(value.toDouble(), 'g', 12);
    return value.toString();
}

Expected<TimelineEntry> parseEntry(const QJsonValue &value, int number)
{
    const auto bad = [number](const QString &why) { return Failure{u"timeline entry %1: %2"_s.arg(number).arg(why)}; };
    if (!value.isObject())
        return bad(u"expected an object such as {\"at\": \"5s\", \"rule\": \"503:for=20s\"}"_s);
    const QJsonObject object = value.toObject();
    for (auto it = object.begin(); it != object.end(); ++it) {
        if (it.key() != u"at"_s && it.key() != u"rule"_s)
            return bad(u"unknown key \"%1\"; an entry has \"at\" and \"rule\""_s.arg(it.key()));
    }
    const QJsonValue rule = object.value(u"rule"_s);
    if (!rule.isString())
        return bad(u"\"rule\" must be a fault rule as a string, e.g. \"529:for=20s\""_s);
    const QJsonValue at = object.value(u"at"_s);
    TimelineEntry entry;
    entry.number = number;
    entry.atText = atTextOf(at);
    if (!at.isString() && !at.isDouble())
        return bad(u"\"at\" must be a time from COMMAND's start, e.g. \"5s\", \"500ms\", \"1m\" or 5"_s);
    const std::optional<std::chrono::milliseconds> when = parseFaultDuration(entry.atText);
    if (!when)
        return Failure{u"timeline entry %1 (rule %2): \"at\" '%3' is not a time from COMMAND's start "
                       "(seconds, or 500ms, 5s, 1m; 0 or more)"_s.arg(number).arg(rule.toString(), entry.atText)};
    entry.at = *when;
    const Expected<FaultRule> parsed = FaultRule::parse(rule.toString());
    if (!parsed.ok())
        return Failure{u"timeline entry %1 (at %2): %3"_s.arg(number).arg(entry.atText, parsed.error())};
    entry.rule = parsed.value();
    return entry;
}

} // namespace

Expected<QList<TimelineEntry>> FaultTimeline::parse(const QByteArray &json)
{
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(json, &error);
    if (document.isNull())
        return Failure{u"not JSON (%1 at offset %2); expected %3"_s.arg(error.errorString()).arg(error.offset).arg(kShape)};
    const QJsonObject top = document.object();
    if (!document.isObject() || !top.value(u"timeline"_s).isArray())
        return Failure{u"expected an object with a \"timeline\" list: %1"_s.arg(kShape)};
    for (auto it = top.begin(); it != top.end(); ++it) {
        if (it.key() != u"timeline"_s)
            return Failure{u"unknown key \"%1\"; the file holds only \"timeline\""_s.arg(it.key())};
    }
    QList<TimelineEntry> entries;
    const QJsonArray list = top.value(u"timeline"_s).toArray();
    for (qsizetype i = 0; i < list.size(); ++i) {
        Expected<TimelineEntry> entry = parseEntry(list.at(i), int(i + 1));
        if (!entry.ok())
            return Failure{entry.error()};
        entries.append(std::move(entry).value());
    }
    std::stable_sort(entries.begin(), entries.end(),
                     [](const TimelineEntry &a, const TimelineEntry &b) { return a.at < b.at; });
    return entries;
}

Expected<QList<TimelineEntry>> FaultTimeline::read(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return Failure{u"cannot read %1: %2"_s.arg(path, file.errorString())};
    Expected<QList<TimelineEntry>> entries = parse(file.readAll());
    if (!entries.ok())
        return Failure{u"%1: %2"_s.arg(path, entries.error())};
    return entries;
}
