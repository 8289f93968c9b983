#include "accounting/modelmatch.h"

#include <algorithm>

#include <QJsonArray>
#include <QJsonObject>

using namespace Qt::StringLiterals;

std::optional<ModelMatch> ModelMatch::fromJson(const QJsonValue &logic, QString *error)
{
    return parse(logic, 0, error);
}

std::optional<ModelMatch> ModelMatch::parse(const QJsonValue &logic, int depth, QString *error)
{
    const auto fail = [&](const QString &why) -> std::optional<ModelMatch> {
        if (error)
            *error = why;
        return std::nullopt;
    };
    if (depth >= kMaxDepth)
        return fail(u"match rules nested deeper than %1"_s.arg(kMaxDepth));
    const QJsonObject object = logic.toObject();
    if (!logic.isObject() || object.size() != 1)
        return fail(u"a match must be an object with exactly one key"_s);

    static const QList<std::pair<QString, Kind>> kinds{
        {u"equals"_s, Kind::Equals}, {u"starts_with"_s, Kind::StartsWith}, {u"ends_with"_s, Kind::EndsWith},
        {u"contains"_s, Kind::Contains}, {u"regex"_s, Kind::Regex}, {u"or"_s, Kind::AnyOf}, {u"and"_s, Kind::AllOf}};
    const QString key = object.begin().key();
    const QJsonValue value = object.begin().value();
    const auto kind = std::find_if(kinds.cbegin(), kinds.cend(), [&](const auto &k) { return k.first == key; });
    if (kind == kinds.cend())
        return fail(u"unknown match \"%1\""_s.arg(key));

    ModelMatch match;
    match.m_kind = kind->second;
    if (match.m_kind == Kind::AnyOf || match.m_kind == Kind::AllOf) {
        if (!value.isArray() || value.toArray().isEmpty())
            return fail(u"\"%1\" needs a non-empty list"_s.arg(key));
        for (const QJsonValue &part : value.toArray()) {
            std::optional<ModelMatch> parsed = parse(part, depth + 1, error);
            if (!parsed)
                return std::nullopt;
            match.m_parts.append(std::move(*parsed));
        }
        return match;
    }
    if (!value.isString() || value.toString().isEmpty())
        return fail(u"\"%1\" needs a non-empty string"_s.arg(key));
    match.m_text = value.toString();
    if (match.m_kind == Kind::Regex) {
        match.m_regex.setPattern(match.m_text);
        if (!match.m_regex.isValid())
            return fail(u"invalid regex \"%1\": %2"_s.arg(match.m_text, match.m_regex.errorString()));
        match.m_regex.optimize();
    }
    return match;
}

bool ModelMatch::matches(const QString &model) const
{
    switch (m_kind) {
    case Kind::Equals: return model.compare(m_text, Qt::CaseInsensitive) == 0;
    case Kind::StartsWith: return model.startsWith(m_text, Qt::CaseInsensitive);
    case Kind::EndsWith: return model.endsWith(m_text, Qt::CaseInsensitive);
    case Kind::Contains: return model.contains(m_text, Qt::CaseInsensitive);
    case Kind::Regex: return m_regex.match(model).hasMatch();
    case Kind::AnyOf:
        return std::any_of(m_parts.cbegin(), m_parts.cend(), [&](const ModelMatch &m) { return m.matches(model); });
    case Kind::AllOf:
        return std::all_of(m_parts.cbegin(), m_parts.cend(), [&](const ModelMatch &m) { return m.matches(model); });
    }
    return false;
}
