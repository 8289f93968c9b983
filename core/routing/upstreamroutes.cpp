#include "upstreamroutes.h"

#include <QJsonObject>
#include <QSet>

using namespace Qt::StringLiterals;

namespace {

// A model glob as an anchored expression: * any run (slashes too: "openai/*"), ? one character,
// [...] a set. Written here: Qt 6.4's wildcard conversion treats "/" as a path separator.
QRegularExpression globExpression(const QString &pattern)
{
    QString expression;
    bool inSet = false;
    for (const QChar c : pattern) {
        if (inSet) {
            expression += c == u'\\' ? u"\\\\"_s : QString(c);
            inSet = c != u']';
        } else if (c == u'*') {
            expression += u".*"_s;
        } else if (c == u'?') {
            expression += u'.';
        } else if (c == u'[') {
            expression += c;
            inSet = true;
        } else {
            expression += QRegularExpression::escape(QString(c));
        }
    }
    if (inSet)
        return QRegularExpression(u"["_s);   // invalid: an open set
    return QRegularExpression(QRegularExpression::anchoredPattern(expression));
}

// A pattern that is empty or that the glob syntax cannot read (an open "[").
Result checkPattern(const QString &pattern, const QString &label)
{
    if (pattern.trimmed().isEmpty())
        return Failure{u"%1: an empty model pattern"_s.arg(label)};
    if (!globExpression(pattern).isValid())
        return Failure{u"%1: '%2' is not a model pattern (globs: *, ?, [abc])"_s.arg(label, pattern)};
    return {};
}

Result checkUrl(const QUrl &url, const QString &text, const QString &label)
{
    if (!url.isValid() || (url.scheme() != u"http"_s && url.scheme() != u"https"_s) || url.host().isEmpty())
        return Failure{u"%1: '%2' is not an http or https URL"_s.arg(label, text)};
    return {};
}

std::optional<ApiStyle> apiNamed(const QString &name)
{
    if (name == u"openai"_s)
        return ApiStyle::OpenAI;
    if (name == u"anthropic"_s)
        return ApiStyle::Anthropic;
    if (name == u"gemini"_s)
        return ApiStyle::Gemini;
    return std::nullopt;
}

} // namespace

bool UpstreamRoute::matches(const QString &model) const
{
    for (const QString &pattern : models) {
        if (globExpression(pattern).match(model).hasMatch())
            return true;
    }
    return false;
}

std::optional<qsizetype> UpstreamRoutes::routeFor(ApiStyle api, const QString &model) const
{
    if (model.isEmpty())
        return std::nullopt;
    for (qsizetype i = 0; i < m_routes.size(); ++i) {
        if (m_routes[i].api == api && m_routes[i].matches(model))
            return i;
    }
    return std::nullopt;
}

std::optional<qsizetype> UpstreamRoutes::indexOf(const QString &name) const
{
    for (qsizetype i = 0; i < m_routes.size(); ++i) {
        if (m_routes[i].name == name)
            return i;
    }
    return std::nullopt;
}

Expected<QList<UpstreamRoute>> parseUpstreamRoutes(const QJsonArray &array)
{
    static const QSet<QString> known{u"name"_s, u"api"_s, u"url"_s, u"models"_s, u"fallback"_s, u"models_map"_s};
    QList<UpstreamRoute> routes;
    for (qsizetype i = 0; i < array.size(); ++i) {
        const QString at = u"upstreams[%1]"_s.arg(i);
        if (!array[i].isObject())
            return Failure{u"%1: an upstream is an object {\"name\", \"api\", \"url\", \"models\"}"_s.arg(at)};
        const QJsonObject object = array[i].toObject();
        for (auto it = object.begin(); it != object.end(); ++it) {
            if (!known.contains(it.key()))
                return Failure{u"%1.%2: unknown key (name, api, url, models, fallback, models_map)"_s.arg(at, it.key())};
        }
        UpstreamRoute route;
        route.name = object.value(u"name"_s).toString();
        if (route.name.isEmpty())
            return Failure{u"%1.name: every upstream needs a name"_s.arg(at)};
        const QString api = object.value(u"api"_s).toString(u"openai"_s);
        const std::optional<ApiStyle> style = apiNamed(api);
        if (!style)
            return Failure{u"%1.api: unknown API '%2' (openai, anthropic or gemini)"_s.arg(at, api)};
        route.api = *style;
        const QString url = object.value(u"url"_s).toString();
        route.url = QUrl(url, QUrl::StrictMode);
        if (const Result checked = checkUrl(route.url, url, at + u".url"_s); !checked.ok())
            return Failure{checked.error()};
        const QJsonValue models = object.value(u"models"_s);
        if (!models.isArray() || models.toArray().isEmpty())
            return Failure{u"%1.models: a list of model patterns, e.g. [\"llama-*\"]"_s.arg(at)};
        for (const QJsonValue &pattern : models.toArray()) {
            if (!pattern.isString())
                return Failure{u"%1.models: a list of model patterns, e.g. [\"llama-*\"]"_s.arg(at)};
            if (const Result checked = checkPattern(pattern.toString(), at + u".models"_s); !checked.ok())
                return Failure{checked.error()};
            route.models.append(pattern.toString());
        }
        const QJsonValue fallback = object.value(u"fallback"_s);
        if (!fallback.isUndefined() && !fallback.isString())
            return Failure{u"%1.fallback: the name of another upstream"_s.arg(at)};
        route.fallback = fallback.toString();
        const QJsonValue map = object.value(u"models_map"_s);
        if (!map.isUndefined()) {
            if (!map.isObject())
                return Failure{u"%1.models_map: an object of model names, {\"gpt-4o\": \"openai/gpt-4o\"}"_s.arg(at)};
            const QJsonObject names = map.toObject();
            for (auto it = names.begin(); it != names.end(); ++it) {
                if (!it.value().isString())
                    return Failure{u"%1.models_map.%2: a model name"_s.arg(at, it.key())};
                route.modelsMap.insert(it.key(), it.value().toString());
            }
        }
        routes.append(route);
    }
    return routes;
}

Expected<UpstreamRoute> parseRouteOption(const QString &text)
{
    const qsizetype equals = text.indexOf(u'=');
    if (equals <= 0)
        return Failure{u"--route: '%1' is not PATTERN[,PATTERN...]=URL"_s.arg(text)};
    UpstreamRoute route;
    const QString url = text.mid(equals + 1);
    route.url = QUrl(url, QUrl::StrictMode);
    if (const Result checked = checkUrl(route.url, url, u"--route"_s); !checked.ok())
        return Failure{checked.error()};
    for (const QString &pattern : text.left(equals).split(u',')) {
        if (const Result checked = checkPattern(pattern, u"--route"_s); !checked.ok())
            return Failure{checked.error()};
        route.models.append(pattern.trimmed());
    }
    route.name = route.url.port() > 0 ? u"%1:%2"_s.arg(route.url.host()).arg(route.url.port()) : route.url.host();
    return route;
}

Result checkUpstreamRoutes(const QList<UpstreamRoute> &routes)
{
    const UpstreamRoutes table(routes);
    for (qsizetype i = 0; i < routes.size(); ++i) {
        const UpstreamRoute &route = routes[i];
        if (route.name == u"openai"_s || route.name == u"anthropic"_s || route.name == u"gemini"_s
            || table.indexOf(route.name) != i)
            return Failure{u"upstreams[%1].name: '%2' names another upstream already"_s.arg(i).arg(route.name)};
    }
    for (qsizetype i = 0; i < routes.size(); ++i) {
        // Walk the chain: a name seen twice is a cycle, one nobody has is a typo.
        QSet<QString> seen{routes[i].name};
        for (const UpstreamRoute *at = &routes[i]; !at->fallback.isEmpty();) {
            const std::optional<qsizetype> next = table.indexOf(at->fallback);
            const QString key = u"upstreams[%1].fallback"_s.arg(table.indexOf(at->name).value_or(i));
            if (!next)
                return Failure{u"%1: no upstream is named '%2'"_s.arg(key, at->fallback)};
            if (routes[*next].api != at->api)
                return Failure{u"%1: '%2' speaks another API; a fallback stays within one API"_s.arg(key, at->fallback)};
            if (seen.contains(at->fallback))
                return Failure{u"%1: '%2' makes a cycle of fallbacks"_s.arg(key, at->fallback)};
            seen.insert(at->fallback);
            at = &routes[*next];
        }
    }
    return {};
}
