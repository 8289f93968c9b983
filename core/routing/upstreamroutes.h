#pragma once

#include <optional>

#include <QHash>
#include <QJsonArray>
#include <QList>
#include <QRegularExpression>
#include <QString>
#include <QStringList>
#include <QUrl>

#include "http/apierror.h"
#include "result.h"

// One named upstream beside the default ones (--upstream, --anthropic-upstream): the calls whose
// model matches one of its patterns go to it. From the configuration file's "upstreams" list or a
// --route option. Checked when it is read (parseUpstreamRoutes), so the proxy can trust it.
struct UpstreamRoute
{
    QString name;                 // unique; the metrics label and the call log's upstream
    ApiStyle api = ApiStyle::OpenAI;
    QUrl url;
    QStringList models;           // globs: * any run, ? one character, [...] a set
    QString fallback;             // empty: none (step 2 of issue 24)
    QHash<QString, QString> modelsMap;   // model renamed when this upstream is a fallback

    bool matches(const QString &model) const;
};

// The fallback rule (README, "Fallbacks"): a call whose upstream's breaker refuses it (open, its
// cool-down not over), or that its upstream refused before any byte reached the client (429, 5xx,
// unreachable, our timeout before its headers), goes to the upstream that one names as `fallback`,
// once (a fallback's own fallback is never taken), with its model renamed by the fallback's
// `models_map`. Once a stream has begun it never falls back: the client gets the error event. Fallbacks stay
// within one API (checkUpstreamRoutes), since no call is translated between APIs.

// The named upstreams in the order they were given: the first whose patterns match a call's model
// takes it. Pure, no state beyond the list.
class UpstreamRoutes
{
public:
    UpstreamRoutes() = default;
    explicit UpstreamRoutes(QList<UpstreamRoute> routes) : m_routes(std::move(routes)) {}

    const QList<UpstreamRoute> &all() const { return m_routes; }
    bool isEmpty() const { return m_routes.isEmpty(); }
    // The index of the first upstream of `api` that takes `model`, or nothing (the family's default).
    std::optional<qsizetype> routeFor(ApiStyle api, const QString &model) const;
    // The index of the upstream called `name`, or nothing.
    std::optional<qsizetype> indexOf(const QString &name) const;

private:
    QList<UpstreamRoute> m_routes;
};

// The configuration file's "upstreams" array; a failure names the key that is wrong
// ("upstreams[1].api: unknown API 'gemin' (openai, anthropic or gemini)").
Expected<QList<UpstreamRoute>> parseUpstreamRoutes(const QJsonArray &array);

// One --route 'PATTERN[,PATTERN...]=URL': an OpenAI-compatible upstream named by its host (and port
// when it has one, so two local servers get two names).
Expected<UpstreamRoute> parseRouteOption(const QString &text);

// The whole list's own rules: unique names, fallbacks that name an upstream of the same API and
// make no cycle.
Result checkUpstreamRoutes(const QList<UpstreamRoute> &routes);
