#include "proxyserver.h"

#include "accounting/spendguard.h"
#include "accounting/usage.h"
#include "http/frontdoor.h"
#include "http/hostguard.h"
#include "http/responsewriter.h"
#include "sharing/flight.h"
#include "sharing/requestkey.h"
#include "upstream/breakerprobe.h"
#include "upstream/upstreampool.h"

#include <QHttpServerRequest>
#include <QJsonDocument>
#include <QJsonParseError>
#include <QLoggingCategory>
#include <QTcpSocket>

Q_LOGGING_CATEGORY(lcProxy, "breakwater.proxy", QtInfoMsg)

using namespace Qt::StringLiterals;

// A route this proxy answers, and in which API's shape.
struct ProxyRoute
{
    enum class Kind { Proxied, PassThrough, Health, Stats };
    QByteArray method;
    QByteArray path;
    Kind kind;
    ApiStyle style;
};

namespace {
const QList<ProxyRoute> &routes()
{
    using Kind = ProxyRoute::Kind;
    static const QList<ProxyRoute> table{
        {"POST", "/v1/chat/completions", Kind::Proxied, ApiStyle::OpenAI},
        {"POST", "/v1/completions", Kind::Proxied, ApiStyle::OpenAI},
        {"POST", "/v1/embeddings", Kind::Proxied, ApiStyle::OpenAI},
        {"POST", "/v1/messages", Kind::Proxied, ApiStyle::Anthropic},
        {"GET", "/v1/models", Kind::PassThrough, ApiStyle::OpenAI},
        {"GET", "/healthz", Kind::Health, ApiStyle::OpenAI},
        {"GET", "/metrics", Kind::Stats, ApiStyle::OpenAI},
        {"GET", "/breakwater/stats", Kind::Stats, ApiStyle::OpenAI},
    };
    return table;
}
} // namespace

ProxyServer::ProxyServer(const ProxyConfig &config, const Clock &clock, QObject *parent)
    : QAbstractHttpServer(parent),
      m_config(config),
      m_clock(clock),
      m_cache(clock, config.dedupWindow.count(), config.cacheBytes)
{
    // OpenAI's base includes /v1 already; Anthropic's does not.
    setUpUpstream(m_openai, "openai", config.openaiUpstream, u"/models"_s);
    setUpUpstream(m_anthropic, "anthropic", config.anthropicUpstream, u"/v1/models"_s);
    m_spend = new SpendGuard(clock, config.maxSpendUsd, this);
    m_spend->setSpentToday(config.spentTodayAtStartUsd);
    connect(this, &ProxyServer::breakerChanged, this,
            [this](const BreakerTransition &transition) { m_metrics.recordTransition(transition); });
    m_snapshotTimer.setInterval(defaults::kSnapshotInterval);
    connect(&m_snapshotTimer, &QTimer::timeout, this, [this] { Q_EMIT snapshotReady(snapshot()); });
    m_snapshotTimer.start();
}

int ProxyServer::ridersInFlight() const
{
    int riders = 0;
    for (const Flight *flight : findChildren<Flight *>(QString(), Qt::FindDirectChildrenOnly))
        riders += flight->riderCount();
    return riders;
}

ProxySnapshot ProxyServer::snapshot()
{
    ProxySnapshot snapshot;
    snapshot.atMs = m_clock.wallMs();
    for (const Upstream *upstream : {&m_openai, &m_anthropic}) {
        snapshot.upstreams.append({upstream->name, upstream->breaker->state(),
                                   upstream->pool->running(), upstream->pool->queued(),
                                   upstream->pool->concurrency()});
    }
    snapshot.flightsInProgress = m_flights.size();
    snapshot.cacheEntries = m_cache.count();
    snapshot.cacheBytes = m_cache.bytes();
    snapshot.spentTodayUsd = m_spend->spentToday();
    snapshot.reservedUsd = m_spend->reservedNow();
    snapshot.spendCapUsd = m_spend->cap();
    return snapshot;
}

void ProxyServer::setUpUpstream(Upstream &upstream, const QByteArray &name, const QUrl &baseUrl,
                                const QString &modelsPath)
{
    const QString label = QString::fromLatin1(name);
    upstream.name = name;
    upstream.baseUrl = baseUrl;
    upstream.pool = new UpstreamPool(label, m_config.concurrency, m_config.maxQueued, this);
    upstream.breaker = new CircuitBreaker(label, m_clock, m_config.breakerFailures, m_config.breakerCooldown, this);
    QUrl modelsUrl = baseUrl;
    QString path = modelsUrl.path();
    if (path.endsWith(u'/'))
        path.chop(1);
    modelsUrl.setPath(path + modelsPath);
    const auto probeTimeout = std::min<std::chrono::milliseconds>(m_config.upstreamTimeout, std::chrono::seconds(5));
    upstream.probe = new BreakerProbe(upstream.breaker, modelsUrl, m_config.breakerProbeInterval, probeTimeout, this);
    connect(upstream.breaker, &CircuitBreaker::stateChanged, this, &ProxyServer::breakerChanged);
}

ProxyServer::~ProxyServer()
{
    // Stop the pools first: their jobs post to calls owned by flights, which die with this object.
    delete m_openai.pool;
    delete m_anthropic.pool;
}

ProxyServer::Upstream &ProxyServer::upstreamFor(const Route &route)
{
    return route.style == ApiStyle::Anthropic ? m_anthropic : m_openai;
}

Result ProxyServer::listen()
{
    if (!m_config.priceFile.isEmpty()) {
        if (const Result prices = m_prices.load(m_config.priceFile); !prices.ok())
            return prices;
    }
    m_frontDoor = new FrontDoor({m_config.maxBodyBytes, m_config.maxHeaderBytes,
                                 m_config.requestReadTimeout, m_config.idleTimeout}, this);
    if (!m_frontDoor->listen(m_config.listenAddress, m_config.listenPort))
        return Failure{m_frontDoor->errorString()};
    bind(m_frontDoor);
    return {};
}

quint16 ProxyServer::port() const
{
    return m_frontDoor ? m_frontDoor->serverPort() : 0;
}

QString ProxyServer::baseUrl() const
{
    const QHostAddress address = m_config.listenAddress;
    const QString host = address.protocol() == QAbstractSocket::IPv6Protocol
                             ? u'[' + address.toString() + u']' : address.toString();
    return u"http://%1:%2/v1"_s.arg(host).arg(port());
}

bool ProxyServer::handleRequest(const QHttpServerRequest &qtRequest, QTcpSocket *socket)
{
    IncomingRequest request;
    request.method = methodName(qtRequest.method());
    request.path = qtRequest.url().path(QUrl::FullyEncoded).toUtf8();
    request.query = qtRequest.url().query(QUrl::FullyEncoded).toUtf8();
    request.headers = qtRequest.headers();
    request.body = qtRequest.body();
    request.peer = qtRequest.remoteAddress();
    const bool close = request.header("connection").toLower().contains("close");
    ResponseWriter writer(socket, close);
    // A foreign Host or Origin (DNS rebinding, a web page) is answered by the guard, before any route.
    if (!admitRequest({port(), m_config.allowedOrigins}, request, writer))
        return true;

    const Route *pathMatch = nullptr;
    for (const Route &route : routes()) {
        if (route.path != request.path)
            continue;
        pathMatch = &route;
        if (route.method != request.method)
            continue;
        switch (route.kind) {
        case Route::Kind::Proxied: handleProxied(route, request, std::move(writer)); break;
        case Route::Kind::PassThrough: handlePassThrough(route, request, std::move(writer)); break;
        case Route::Kind::Health:
            writer.writeComplete(200, {{"Content-Type", "application/json"}}, R"({"status":"ok"})");
            break;
        case Route::Kind::Stats: answerStats(request, std::move(writer)); break;
        }
        return true;
    }
    const ApiStyle style = request.path.startsWith("/v1/messages") ? ApiStyle::Anthropic : ApiStyle::OpenAI;
    if (pathMatch) {
        writer.writeError(style, {405, "invalid_request_error", "method_not_allowed",
                                  u"%1 is not allowed on %2; use %3."_s.arg(QString::fromLatin1(request.method),
                                      QString::fromUtf8(request.path), QString::fromLatin1(pathMatch->method))},
                          {{"Allow", pathMatch->method}});
    } else {
        writer.writeError(style, ApiError::notFound(u"Unknown route %1 %2."_s.arg(
                                     QString::fromLatin1(request.method), QString::fromUtf8(request.path))));
    }
    return true;
}

void ProxyServer::missingHandler(const QHttpServerRequest &request, QTcpSocket *socket)
{
    // Not reached: handleRequest answers every request. Kept so nothing is ever left unanswered.
    ResponseWriter(socket).writeError(ApiStyle::OpenAI, ApiError::notFound(
        u"Unknown route %1."_s.arg(request.url().path())));
}

CallRecord ProxyServer::newRecord(const Route &route, const IncomingRequest &request) const
{
    CallRecord record;
    record.requestId = newRequestId();
    record.route = route.path;
    record.upstream = route.style == ApiStyle::Anthropic ? "anthropic" : "openai";
    record.clientAddress = request.peer.toString();
    record.receivedAtMs = m_clock.wallMs();
    const QByteArray credential = credentialOf(request);
    if (!credential.isEmpty())
        record.credentialFingerprint = fingerprint(credential);
    record.breakerState = "closed";
    if (m_config.recordBodies)
        record.requestBody = request.body;
    return record;
}

HeaderList ProxyServer::ownHeaders(const CallRecord &record) const
{
    // The header says how the answer relates to sharing (miss | joined | hit | bypass); refusals and
    // errors of our own were not answered from a shared call, so they are misses there, while the
    // record keeps the finer outcome.
    QByteArray dedup = "miss";
    if (record.outcome == Outcome::Joined || record.outcome == Outcome::Hit || record.outcome == Outcome::Bypass)
        dedup = outcomeName(record.outcome);
    return {{"x-breakwater-dedup", dedup},
            {"x-breakwater-breaker", record.breakerState},
            {"x-request-id", record.requestId}};
}

void ProxyServer::handleProxied(const Route &route, const IncomingRequest &request, ResponseWriter writer)
{
    CallRecord record = newRecord(route, request);

    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(request.body, &parseError);
    if (parseError.error != QJsonParseError::NoError || !document.isObject()) {
        const QString why = parseError.error != QJsonParseError::NoError
            ? u"The request body is not valid JSON: %1 at offset %2."_s.arg(parseError.errorString()).arg(parseError.offset)
            : u"The request body must be a JSON object."_s;
        record.outcome = Outcome::Error;
        answerError(route.style, ApiError::badRequest(why), record, std::move(writer));
        return;
    }
    const QJsonObject body = document.object();
    record.model = body.value(u"model"_s).toString();
    record.stream = body.value(u"stream"_s).toBool();
    Upstream &upstream = upstreamFor(route);

    if (wantsNoSharing(request)) {
        record.outcome = Outcome::Bypass;
        startFlight(route, request, {}, body, record, writer);
        return;
    }
    const QByteArray key = requestKey({route.path, upstream.baseUrl.toEncoded(), credentialOf(request),
                                       request.header("anthropic-version"), request.header("anthropic-beta"),
                                       request.header("openai-organization"), request.header("openai-project"),
                                       body});
    record.keyFingerprint = key.toHex().left(12);

    // Answers that cost no upstream call (a cached answer, a ride on a call already running) are
    // given even while the breaker is open: the breaker guards the provider, not the cache.
    if (std::optional<CachedAnswer> cached = m_cache.find(key)) {
        record.outcome = Outcome::Hit;
        record.breakerState = breakerStateName(upstream.breaker->state());
        answerFromCache(*cached, record, std::move(writer));
        return;
    }
    if (Flight *flight = m_flights.find(key)) {
        record.outcome = Outcome::Joined;
        record.breakerState = breakerStateName(upstream.breaker->state());
        flight->addRider({std::move(writer), record, ownHeaders(record)});
        return;
    }
    record.outcome = Outcome::Miss;
    if (Flight *flight = startFlight(route, request, key, body, record, writer))
        m_flights.insert(key, flight);
}

void ProxyServer::handlePassThrough(const Route &route, const IncomingRequest &request, ResponseWriter writer)
{
    CallRecord record = newRecord(route, request);
    record.outcome = Outcome::Bypass;
    startFlight(route, request, {}, {}, record, writer);
}

Flight *ProxyServer::startFlight(const Route &route, const IncomingRequest &request, const QByteArray &key,
                                 const QJsonObject &body, CallRecord &record, ResponseWriter &writer)
{
    Upstream &upstream = upstreamFor(route);
    Admitted admitted;
    // Spend first, so that a refusal here never uses up the breaker's one trial. The reservation is
    // the most the call can cost (its input and its max_tokens); it is settled from `usage` after.
    if (m_spend->capped() && !body.isEmpty()) {
        const std::optional<double> maxCost = m_prices.maxCost(record.model, estimateInputTokens(request.body),
                                                               requestedMaxTokens(body));
        admitted.estimateUsd = maxCost.value_or(0);
        admitted.reservation = m_spend->reserve(maxCost);
        if (!admitted.reservation) {
            record.outcome = Outcome::SpendRefused;
            answerError(route.style, maxCost ? m_spend->refusal() : m_spend->unpricedRefusal(record.model),
                        record, std::move(writer));
            return nullptr;
        }
    }
    const CircuitBreaker::Admission admission = upstream.breaker->admit();
    record.breakerState = breakerStateName(upstream.breaker->state());
    if (admission.verdict == CircuitBreaker::Admission::Verdict::Refuse) {
        record.outcome = Outcome::BreakerRefused;
        ApiError error{503, "breaker_open_error", "breaker_open",
                       u"Breakwater's circuit breaker for the %1 upstream is %2 after repeated upstream "
                       "failures; not calling it. Try again in %3 s."_s
                           .arg(QString::fromLatin1(upstream.name), QString::fromLatin1(record.breakerState))
                           .arg(admission.retryAfterSeconds)};
        error.retryAfterSeconds = admission.retryAfterSeconds;
        answerError(route.style, error, record, std::move(writer));
        if (admitted.reservation)
            m_spend->release(*admitted.reservation);
        return nullptr;
    }
    admitted.trial = admission.verdict == CircuitBreaker::Admission::Verdict::Trial;
    upstream.probe->rememberCredentials(request.headers);

    QUrl url = upstream.baseUrl;
    // The OpenAI base already ends in /v1 (as the SDKs' base URLs do); Anthropic's does not.
    QByteArray suffix = route.path;
    if (route.style == ApiStyle::OpenAI && url.path().endsWith(u"/v1"_s) && suffix.startsWith("/v1/"))
        suffix = suffix.mid(3);
    QString basePath = url.path();
    if (basePath.endsWith(u'/'))
        basePath.chop(1);
    url.setPath(basePath + QString::fromUtf8(suffix));
    if (!request.query.isEmpty())
        url.setQuery(QString::fromUtf8(request.query), QUrl::StrictMode);

    UpstreamRequest call{request.method, url, forwardHeaders(request), request.body, m_config.upstreamTimeout};
    const double timeoutSeconds = std::chrono::duration<double>(m_config.upstreamTimeout).count();
    auto *flight = new Flight(key, route.style, timeoutSeconds, m_clock, this);
    flight->setModel(record.model);
    flight->setRecordBodies(m_config.recordBodies);
    UpstreamCall *upstreamCall = upstream.pool->submit(call, flight);
    if (!upstreamCall) {
        delete flight;
        if (admitted.trial)
            upstream.breaker->abandonTrial();
        if (admitted.reservation)
            m_spend->release(*admitted.reservation);
        record.outcome = Outcome::Error;
        answerError(route.style, ApiError::queueFull(m_config.maxQueued), record, std::move(writer));
        return nullptr;
    }
    flight->follow(upstreamCall);
    connect(flight, &Flight::upstreamFinished, this, [this, &upstream, admitted](Flight *finished) {
        onFlightFinished(finished, upstream, admitted);
    });
    connect(flight, &Flight::riderFinished, this, &ProxyServer::publish);
    flight->addRider({std::move(writer), record, ownHeaders(record)});
    return flight;
}

void ProxyServer::onFlightFinished(Flight *flight, Upstream &upstream, const Admitted &admitted)
{
    const bool trial = admitted.trial;
    // What the call cost, from the upstream's own `usage` (streams included); unknown stays unknown.
    const Usage usage = flight->status() >= 200 && flight->status() < 300
        ? parseUsage(flight->style(), flight->body(), flight->isStreaming()) : Usage{};
    const std::optional<double> cost = usage.known() ? m_prices.cost(flight->model(), usage) : std::nullopt;
    flight->setUsage(usage, cost);
    if (admitted.reservation) {
        // An answer without usage (a stream without include_usage) is charged its reservation, so
        // the cap cannot be walked around; a call that failed cost nothing.
        const bool answered = flight->status() >= 200 && flight->status() < 300 && !flight->failure();
        m_spend->settle(*admitted.reservation, cost.value_or(answered ? admitted.estimateUsd : 0));
    }

    // The entry leaves the table before the riders are released (Go's singleflight order).
    if (!flight->key().isEmpty()) {
        m_flights.remove(flight->key(), flight);
        if (flight->isCacheable())
            m_cache.store(flight->key(), {flight->status(), flight->headers(), flight->body(),
                                          flight->isStreaming(), cost.value_or(-1), usage.inputTokens,
                                          usage.outputTokens, usage.cachedTokens});
    }
    // The breaker hears each upstream call once, however many riders shared it.
    if (flight->result().failure == UpstreamFailure::Shutdown)
        upstream.breaker->abandonTrial();
    else if (flight->isUpstreamFailure())
        upstream.breaker->recordFailure(flight->failureReason(), trial);
    else if (flight->status() == 429)
        upstream.breaker->abandonTrial();   // a rate limit is shown, but is no verdict on health
    else
        upstream.breaker->recordSuccess(trial);
    flight->release();
    flight->deleteLater();
}

void ProxyServer::answerFromCache(const CachedAnswer &answer, CallRecord record, ResponseWriter writer)
{
    const HeaderList headers = riderHeaders(answer.headers, ownHeaders(record));
    record.status = answer.status;
    if (answer.stream) {
        writer.beginStream(answer.status, headers);   // a cached stream is replayed as a stream
        writer.writeChunk(answer.body);
        writer.endStream();
    } else {
        writer.writeComplete(answer.status, headers, answer.body);
    }
    record.costSavedUsd = answer.costUsd > 0 ? answer.costUsd : 0;
    record.inputTokens = answer.inputTokens;
    record.outputTokens = answer.outputTokens;
    record.cachedTokens = answer.cachedTokens;
    if (m_config.recordBodies)
        record.responseBody = answer.body;
    record.endAtMs = m_clock.wallMs();
    publish(record);
}

void ProxyServer::answerError(ApiStyle style, const ApiError &error, CallRecord record, ResponseWriter writer,
                              const HeaderList &extra)
{
    record.status = error.status;
    record.errorKind = error.code;
    writer.writeError(style, error, ownHeaders(record) + extra);
    record.endAtMs = m_clock.wallMs();
    publish(record);
}

void ProxyServer::publish(CallRecord record)
{
    if (record.endAtMs == 0)
        record.endAtMs = m_clock.wallMs();
    m_metrics.record(record);
    qCDebug(lcProxy) << record.requestId << record.route << outcomeName(record.outcome) << record.status
                     << record.totalMs() << "ms";
    Q_EMIT callCompleted(record);
}

void ProxyServer::answerStats(const IncomingRequest &request, ResponseWriter writer)
{
    if (request.path == "/metrics") {
        writer.writeComplete(200, {{"Content-Type", "text/plain; version=0.0.4; charset=utf-8"}},
                             m_metrics.prometheusText(snapshot()));
    } else {
        writer.writeComplete(200, {{"Content-Type", "application/json"}},
                             QJsonDocument(m_metrics.statsJson(snapshot())).toJson(QJsonDocument::Compact));
    }
}
