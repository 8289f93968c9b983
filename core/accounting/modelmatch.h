#pragma once

#include <optional>

#include <QJsonValue>
#include <QList>
#include <QRegularExpression>
#include <QString>

// Which model names a price applies to, in genai-prices' match logic (the rules its data gives each
// model, e.g. {"or": [{"equals": "gpt-4o"}, {"starts_with": "gpt-4o-2024-"}]}), so the price table
// can use them as they are instead of a hand-kept list of aliases.
//
// As genai-prices evaluates them: equals, starts_with, ends_with and contains compare without regard
// to case; regex is a case-sensitive search anywhere in the name (anchor it with ^ and $); "or" is
// any of its parts, "and" all of them. A plain value, cheap to copy.
class ModelMatch final
{
public:
    // Reads one match object. nullopt (and `error` says why) for an unknown key, a value of the wrong
    // type, an invalid regular expression, an empty "or"/"and", or nesting deeper than kMaxDepth.
    static std::optional<ModelMatch> fromJson(const QJsonValue &logic, QString *error);

    bool matches(const QString &model) const;

    static constexpr int kMaxDepth = 16;

private:
    enum class Kind { Equals, StartsWith, EndsWith, Contains, Regex, AnyOf, AllOf };

    static std::optional<ModelMatch> parse(const QJsonValue &logic, int depth, QString *error);

    Kind m_kind = Kind::Equals;
    QString m_text;
    QRegularExpression m_regex;
    QList<ModelMatch> m_parts;
};
