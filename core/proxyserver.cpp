#include "proxyserver.h"

#include "accounting/callinspection.h"
#include "accounting/callcharge.h"
#include "accounting/spendguard.h"
#include "accounting/usage.h"
#include "attach/eventfeed.h"
#include "controlapi.h"
#include "controlgate.h"
#include "faults/faultinjector.h"
#include "faults/faultroute.h"
#include "fleet/fleetspend.h"
#include "fleet/redislink.h"
#include "fleet/fleetflights.h"
#include "fleet/fleetroster.h"
#include "fleet/sharedanswers.h"
#include "fleet/sharedstate.h"
#include "http/frontdoor.h"
#include "http/hostguard.h"
#include "http/protocol.h"
#include "http/requestmeter.h"
#include "http/responsewriter.h"
#include "http/tlsidentity.h"
#include "proxyroutes.h"
#include "routing/modelsunion.h"
#include "sharing/requestkey.h"
#include "team/membergate.h"
#include "upstream/breakerprobe.h"
#include "upstream/curlengine.h"
#include "upstream/upstreampool.h"

#include <algorithm>

#include <QFile>
#include <QHttpServerRequest>
#include <QJsonDocument>
#include <QJsonParseError>
#include <QLoggingCategory>
#include <QSysInfo>
#include <QTcpSocket>
#include <QThread>

Q_LOGGING_CATEGORY(lcProxy, "breakwater.proxy", QtInfoMsg)

using namespace Qt::StringLiterals;

namespace {

// Only a model call can be the half-open trial. Any other call is refused while the breaker is open
// and otherwise goes through as a plain call, in half-open too, leaving the trial to a model call.
CircuitBreaker::Admission breakerAdmission(CircuitBreaker &breaker, bool modelCall)
{
    using Verdict = CircuitBreaker::Admission::Verdict;
    if (modelCall)
        return breaker.admit();
    breaker.onTimePassed();
    if (breaker.state() != BreakerState::Open)
        return {Verdict::Allow, 0};
    CircuitBreaker::Admission admission = breaker.admit();   // open: a refusal, with its retry-after
    if (admission.verdict == Verdict::Trial) {   // the cool-down ended between the two reads
        breaker.abandonTrial();
        admission.verdict = Verdict::Allow;
    }
    return admission;
}

// The probe asks for a list, not an answer: it need not wait as long as a model call may.
std::chrono::milliseconds probeTimeout(const ProxyConfig &config)
{
    return std::min<std::chrono::milliseconds>(config.upstreamTimeout, std::chrono::seconds(5));
}

// At most one event loop per core, and a few at most: calls are sharded by origin, and a proxy
// has two or three upstreams. One of them is the proxy thread's own (the home loop, for a call
// that finds it idle: curlengine.h), the rest run on the engine's QThreadPool.
std::shared_ptr<UpstreamEngine> newUpstreamEngine(const ProxyConfig &config)
{
    CurlEngine::Options options;
    options.loops = std::clamp(QThread::idealThreadCount() - 1, 1, defaults::kMaxEngineLoops - 1);
    options.homeLoop = true;
    if (!config.caFile.isEmpty()) {
        QFile file(config.caFile);
        if (file.open(QIODevice::ReadOnly))   // checked by the command line (commandline.cpp)
            options.caPem = file.readAll();
        else
            qCWarning(lcProxy) << "cannot read --ca-file" << config.caFile << file.errorString();
    }
    return std::make_shared<CurlEngine>(options);
}

ApiError pausedRefusal()
{
    ApiError error{503, "api_error", "paused",
                   u"Breakwater's admission is paused by hand: no new call is taken until it is resumed "
                   "(in the dashboard, or POST /breakwater/admission/resume)."_s};
    error.retryAfterSeconds = 5;   // a pause has no known end: a short, honest hint
    return error;
}

} // namespace

ProxyServer::ProxyServer(const ProxyConfig &config, const Clock &clock, QObject *parent)
    : QAbstractHttpServer(parent),
      m_config(config),
      m_clock(clock),
      m_cache(clock, config.dedupWindow.count(), config.cacheBytes),
      m_flights(m_cache, clock, std::chrono::duration<double>(config.upstreamTimeout).count(), config.recordBodies)
{
    m_engine = config.upstreamEngine ? config.upstreamEngine : newUpstreamEngine(config);
    // OpenAI's base includes /v1 already; Anthropic's does not.
    setUpUpstream(m_openai, "openai", config.openaiUpstream, ApiStyle::OpenAI);
    setUpUpstream(m_anthropic, "anthropic", config.anthropicUpstream, ApiStyle::Anthropic);
    setUpUpstream(m_gemini, "gemini", config.geminiUpstream, ApiStyle::Gemini);
    // Gemini's lane (snapshot, metrics, dashboard) from the start only when it was chosen; else
    // (the demo's mock, most users) from its first call: a third upstream's breaker tile would not
    // fit a laptop's window beside the two the demo shows.
    m_geminiListed = config.geminiUpstreamChosen
        || std::any_of(config.upstreamRoutes.begin(), config.upstreamRoutes.end(),
                       [](const UpstreamRoute &route) { return route.api == ApiStyle::Gemini; });
    m_routes = UpstreamRoutes(config.upstreamRoutes);
    for (const UpstreamRoute &route : config.upstreamRoutes)
        setUpUpstream(m_routed.emplace_back(), route.name.toUtf8(), route.url, route.api);
    m_spend = new SpendGuard(clock, config.maxSpendUsd, this);
    m_spend->setSpentToday(config.spentTodayAtStartUsd);
    if (config.team.enabled())
        m_members = std::make_unique<MemberGate>(config.team, config.providerKeys, clock);
    m_faults = new FaultInjector(clock, this);
    for (const FaultRule &rule : config.faults)   // --fault
        m_faults->arm(rule);
    m_flights.setAbandonGrace(config.abandonGrace);
    connect(&m_flights, &Sharing::riderFinished, this, &ProxyServer::publish);
    connect(this, &ProxyServer::breakerChanged, this,
            [this](const BreakerTransition &transition) { m_metrics.recordTransition(transition); });
    // Published to whoever watches /breakwater/events, in the order they happen (all on this thread).
    m_events = new EventFeed([this] { return m_metrics.statsJson(snapshot()); }, this);
    connect(this, &ProxyServer::callStarted, m_events, &EventFeed::callStarted);
    connect(this, &ProxyServer::callCompleted, m_events, &EventFeed::callCompleted);
    connect(this, &ProxyServer::breakerChanged, m_events, &EventFeed::breakerChanged);
    m_snapshotTimer.setInterval(defaults::kSnapshotInterval);
    connect(&m_snapshotTimer, &QTimer::timeout, this, [this] {
        m_cache.dropExpired();
        Q_EMIT snapshotReady(snapshot());
    });
    m_snapshotTimer.start();
    if (config.sharedState) {
        m_fleet = new SharedState(*config.sharedState, this);
        for (Upstream *upstream : allUpstreams())
            m_fleet->shareBreaker(*upstream->breaker);
        m_fleet->shareFaults(*m_faults);
        m_flights.setAnswerStored([this](const QByteArray &key, const CachedAnswer &answer) {
            m_fleet->answers().store(key, answer, m_cache.windowMs());
        });
        // The fleet view: this instance's figures ride on its heartbeat, named by where it listens.
        m_fleet->roster().setOwnFigures([this] {
            FleetInstance self;
            self.label = QSysInfo::machineHostName() + u':' + QString::number(m_port);
            self.calls = m_metrics.upstreamCallsMade();
            self.requests = m_metrics.requestsWithOutcome();
            self.joined = m_metrics.requestsWithOutcome("joined");
            self.misses = m_metrics.requestsWithOutcome("miss");
            self.hits = m_metrics.requestsWithOutcome("hit");
            return self;
        });
        m_fleet->start();
    }
}

ProxySnapshot ProxyServer::snapshot()
{
    ProxySnapshot snapshot;
    snapshot.atMs = m_clock.wallMs();
    for (const Upstream *upstream : upstreams()) {
        const CircuitBreaker *breaker = upstream->breaker;
        snapshot.upstreams.append({upstream->name, breaker->state(), upstream->pool->running(),
                                   upstream->pool->queued(), upstream->pool->concurrency(),
                                   breaker->consecutiveFailures(), breaker->failureThreshold(),
                                   breaker->state() == BreakerState::Open ? std::max<qint64>(breaker->cooldownLeftMs(), 0) : 0,
                                   breaker->lastFailure(), breaker->lastFailureAtMs()});
        UpstreamSnapshot &health = snapshot.upstreams.last();
        health.protocol = upstream->pool->protocol();
        health.url = upstream->baseUrl.toString(QUrl::RemoveUserInfo);
        health.lastProbeAtMs = upstream->probe->lastProbeAtMs();
        health.lastProbeResult = upstream->probe->lastProbeResult();
        health.lastProbeAlive = upstream->probe->lastProbeAlive();
    }
    snapshot.flightsInProgress = m_flights.size();
    snapshot.cacheEntries = m_cache.count();
    snapshot.cacheBytes = m_cache.bytes();
    snapshot.spentTodayUsd = m_spend->spentToday();
    snapshot.reservedUsd = m_spend->reservedNow();
    snapshot.spendCapUsd = m_spend->cap();
    snapshot.settings = liveSettings();
    snapshot.admissionPaused = m_admissionPaused;
    if (m_fleet) {
        snapshot.sharedState = m_fleet->isShared() ? "shared" : "degraded";
        snapshot.sharedStateDegradations = m_fleet->link().degradedCount();
        snapshot.fleet = m_fleet->roster().view();
    }
    snapshot.steadyMs = m_clock.steadyMs();
    snapshot.faults = m_faults->rules();
    snapshot.faultsInjected = m_faults->injected();
    const QList<Flight *> flights = m_flights.inProgressFlights();
    snapshot.flights = InFlight::list(flights, snapshot.atMs);
    snapshot.flightsOmitted = int(flights.size() - snapshot.flights.size());
    return snapshot;
}

void ProxyServer::setUpUpstream(Upstream &upstream, const QByteArray &name, const QUrl &baseUrl, ApiStyle style)
{
    const QString label = QString::fromLatin1(name);
    upstream.name = name;
    upstream.baseUrl = baseUrl;
    upstream.style = style;
    upstream.pool = new UpstreamPool(label, m_config.concurrency, m_config.maxQueued, m_engine, this);
    upstream.breaker = new CircuitBreaker(label, m_clock, m_config.breakerFailures, m_config.breakerCooldown, this);
    // The probe asks the models list, where a client's GET /v1/models (Gemini: /v1beta/models) would go.
    const QUrl modelsUrl = upstreamUrl(baseUrl, style, style == ApiStyle::Gemini ? "/v1beta/models" : "/v1/models", {});
    upstream.probe = new BreakerProbe(upstream.breaker, upstream.pool, modelsUrl, m_config.breakerProbeInterval, probeTimeout(m_config), this);
    connect(upstream.breaker, &CircuitBreaker::stateChanged, this, &ProxyServer::breakerChanged);
}

ProxyServer::~ProxyServer()
{
    // Stop the pools first: their jobs post to calls owned by flights, which die with this object.
    m_geminiListed = true;
    for (Upstream *upstream : allUpstreams())
        delete upstream->pool;
}

ProxyServer::Upstream &ProxyServer::upstreamFor(ApiStyle style, const QString &model)
{
    if (const std::optional<qsizetype> routed = m_routes.routeFor(style, model))
        return m_routed[std::size_t(*routed)];
    switch (style) {
    case ApiStyle::Anthropic: return m_anthropic;
    case ApiStyle::Gemini: return m_gemini;
    case ApiStyle::OpenAI: break;
    }
    return m_openai;
}

QList<ProxyServer::Upstream *> ProxyServer::allUpstreams()
{
    QList<Upstream *> all{&m_openai, &m_anthropic};
    if (m_geminiListed)
        all.append(&m_gemini);
    for (Upstream &upstream : m_routed)
        all.append(&upstream);
    return all;
}

ProxyServer::Upstream &ProxyServer::upstreamOf(const CallRecord &record)
{
    for (Upstream *upstream : allUpstreams()) {
        if (upstream->name == record.upstream)
            return *upstream;
    }
    if (record.upstream == m_gemini.name)
        return m_gemini;
    return record.upstream == m_anthropic.name ? m_anthropic : m_openai;
}

ProxyServer::Upstream *ProxyServer::namedFallback(const Upstream &upstream)
{
    const std::optional<qsizetype> index = m_routes.indexOf(QString::fromUtf8(upstream.name));
    if (!index || m_routes.all()[*index].fallback.isEmpty())
        return nullptr;
    const std::optional<qsizetype> fallback = m_routes.indexOf(m_routes.all()[*index].fallback);
    return fallback ? &m_routed[std::size_t(*fallback)] : nullptr;
}

ProxyServer::Upstream *ProxyServer::fallbackFor(const Upstream &upstream)
{
    const CircuitBreaker &breaker = *upstream.breaker;
    // A breaker whose cool-down is over takes the call as its trial: that is how it learns.
    if (breaker.state() != BreakerState::Open || (!breaker.openedByHand() && breaker.cooldownLeftMs() <= 0))
        return nullptr;
    return namedFallback(upstream);
}

void ProxyServer::redirect(const Upstream &fallback, CallRecord &record, IncomingRequest &request,
                           QJsonObject &body) const
{
    qCInfo(lcProxy).noquote() << record.requestId << "fallback:" << record.upstream << "->" << fallback.name;
    record.fallbackFrom = record.upstream;
    record.upstream = fallback.name;
    const QHash<QString, QString> &renames = m_routes.all()[*m_routes.indexOf(QString::fromUtf8(fallback.name))].modelsMap;
    if (const QString renamed = renames.value(record.model, record.model); renamed != record.model) {
        record.model = renamed;
        if (fallback.style == ApiStyle::Gemini) {   // Gemini names the model in the path
            const GeminiCall call = geminiCall(request.path);
            request.path = "/v1beta/models/" + QUrl::toPercentEncoding(renamed, "/") + ':' + call.method;
        } else {
            body.insert(u"model"_s, renamed);
            request.body = QJsonDocument(body).toJson(QJsonDocument::Compact);
        }
    }
}

QList<const ProxyServer::Upstream *> ProxyServer::upstreams() const
{
    QList<const Upstream *> all;
    for (const Upstream *upstream : const_cast<ProxyServer *>(this)->allUpstreams())
        all.append(upstream);
    return all;
}

const ProxyServer::Upstream *ProxyServer::upstreamNamed(const QByteArray &name) const
{
    for (const Upstream *upstream : upstreams()) {
        if (upstream->name == name)
            return upstream;
    }
    return nullptr;
}

Result ProxyServer::listen()
{
    if (!m_config.priceFile.isEmpty()) {
        if (const Result prices = m_prices.load(m_config.priceFile); !prices.ok())
            return prices;
    }
    m_frontDoor = new FrontDoor({m_config.maxBodyBytes, m_config.maxHeaderBytes,
                                 m_config.requestReadTimeout, m_config.idleTimeout}, this);
    if (!m_config.tlsCertFile.isEmpty() || !m_config.tlsKeyFile.isEmpty()) {
        const Expected<QSslConfiguration> tls = loadTlsIdentity(m_config.tlsCertFile, m_config.tlsKeyFile);
        if (!tls.ok())
            return Failure{tls.error()};
        m_frontDoor->setTls(tls.value());
    }
    if (!m_frontDoor->listen(m_config.listenAddress, m_config.listenPort)) {
        // Never another port instead: the user's apps are pointed at this one, and whatever listens
        // there now (another Breakwater, another user's program) would get their calls and keys.
        if (m_frontDoor->serverError() == QAbstractSocket::AddressInUseError)
            return Failure{u"the address is already in use: another Breakwater or another program listens "
                           "there (stop it, or choose another address with --listen HOST:PORT)"_s};
        return Failure{m_frontDoor->errorString()};
    }
    bind(m_frontDoor);
    m_port = m_frontDoor->serverPort();   // kept: the Host check still needs it once a drain closed the door
    return {};
}

quint16 ProxyServer::port() const
{
    return m_port;
}

QString ProxyServer::baseUrl() const
{
    const QHostAddress address = m_config.listenAddress;
    const QString host = address.protocol() == QAbstractSocket::IPv6Protocol
                             ? u'[' + address.toString() + u']' : address.toString();
    const bool tls = !m_config.tlsCertFile.isEmpty();
    return u"%1://%2:%3/v1"_s.arg(tls ? u"https"_s : u"http"_s, host).arg(port());
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
    // Answers go out in the order of the requests, however long each takes (pipelining): the
    // connection's meter runs this one when the ones before it have been answered. Every socket
    // comes through the front door, which gave it a meter.
    RequestMeter *meter = RequestMeter::of(socket);
    if (!meter) {
        answer(request, socket);
        return true;
    }
    qint64 bytes = request.body.size() + request.path.size() + request.query.size();
    for (const auto &[name, value] : std::as_const(request.headers))
        bytes += name.size() + value.size();
    meter->answerInTurn(bytes, [this, request = std::move(request), socket] { answer(request, socket); });
    return true;
}

void ProxyServer::answer(const IncomingRequest &incoming, QTcpSocket *socket)
{
    IncomingRequest request = incoming;   // implicitly shared: a member's admission rewrites its headers
    // Qt disconnects an upgrade's socket after the answer anyway (see missingHandler).
    const bool upgrade = isWebSocketUpgrade(request);
    const bool close = upgrade || request.header("connection").toLower().contains("close");
    ResponseWriter writer(socket, close);
    // A foreign Host or Origin (DNS rebinding, a web page) is answered by the guard, before any route.
    if (!admitRequest({port(), m_config.allowedOrigins, m_config.publicNames, m_config.listenAddress}, request, writer))
        return;
    // Routing first (a pure function), so that every error below is in the shape of the API the
    // call is for: Anthropic's when it carries Anthropic's headers or is on Anthropic's own paths.
    const RouteMatch match = findRoute(request);
    const ApiStyle style = match.errorStyle;
    if (m_draining) {
        ResponseWriter(socket, true).writeError(style, {503, "api_error", "shutting_down", u"Breakwater is shutting down."_s});
        return;
    }
    if (upgrade) {
        writer.writeError(style, webSocketRefusal());
        return;
    }
    // Breakwater's own routes answer only their owner, before the route table says anything.
    if (isControlPath(request.path) && !admitControl(m_config.controlToken, request, writer))
        return;

    if (match.found) {
        const Route &route = match.route;
        const bool apiCall = route.kind == Route::Kind::Proxied || route.kind == Route::Kind::PassThrough;
        if (apiCall && m_members && !admitMember(route, request, writer))
            return;
        switch (route.kind) {
        case Route::Kind::Proxied: handleProxied(route, request, std::move(writer)); break;
        case Route::Kind::PassThrough: handlePassThrough(route, request, std::move(writer)); break;
        case Route::Kind::Health:
            answerHealth(*m_faults, m_admissionPaused, writer, m_fleet ? m_fleet->healthJson() : QJsonObject());
            break;
        case Route::Kind::Stats: answerStats(request, std::move(writer)); break;
        case Route::Kind::Control: answerControl(*this, request, std::move(writer)); break;
        case Route::Kind::Faults: answerFaults(*m_faults, request, writer, m_fleet ? m_fleet->faults() : nullptr); break;
        case Route::Kind::Events:
            m_events->watch(std::move(writer), m_callHistory ? m_callHistory(kEventHistoryRows) : QList<CallRecord>());
            break;
        }
        return;
    }
    if (match.refusal) {
        writer.writeError(style, *match.refusal);
    } else if (!match.allowedMethod.isEmpty()) {
        writer.writeError(style, {405, "invalid_request_error", "method_not_allowed",
                                  u"%1 is not allowed on %2; use %3."_s.arg(QString::fromLatin1(request.method),
                                      QString::fromUtf8(request.path), QString::fromLatin1(match.allowedMethod))},
                          {{"Allow", match.allowedMethod}});
    } else {
        writer.writeError(style, ApiError::notFound(u"Unknown route %1 %2."_s.arg(
                                     QString::fromLatin1(request.method), QString::fromUtf8(request.path))));
    }
}

void ProxyServer::missingHandler(const QHttpServerRequest &request, QTcpSocket *socket)
{
    // Qt 6.4.2 calls this for a WebSocket upgrade that no WebSocket server took over, after
    // handleRequest, although that answered it (426, or the Host/Origin guard's refusal), and then
    // disconnects the socket (QAbstractHttpServerPrivate::handleReadyRead,
    // https://code.qt.io/cgit/qt/qthttpserver.git/tree/src/httpserver/qabstracthttpserver.cpp?h=v6.4.2#n82):
    // writing here would put a second response on the wire. No other request gets here, since
    // handleRequest answers every one; this is kept so that nothing is ever left unanswered.
    IncomingRequest asked;
    asked.headers = request.headers();
    if (isWebSocketUpgrade(asked))
        return;
    ResponseWriter(socket).writeError(ApiStyle::OpenAI, ApiError::notFound(
        u"Unknown route %1."_s.arg(request.url().path())));
}

CallRecord ProxyServer::newRecord(const Route &route, const IncomingRequest &request) const
{
    CallRecord record;
    record.requestId = newRequestId();
    record.route = route.path;
    record.upstream = route.style == ApiStyle::Anthropic ? "anthropic" : route.style == ApiStyle::Gemini ? "gemini" : "openai";
    record.clientAddress = request.peer.toString();
    record.member = request.member;
    record.receivedAtMs = m_clock.wallMs();
    const QByteArray credential = credentialOf(request);
    if (!credential.isEmpty())
        record.credentialFingerprint = fingerprint(credential);
    record.breakerState = "closed";
    if (m_config.recordBodies)
        record.requestBody = request.body;
    record.method = request.method;
    // The query's keys (?key=) are recorded as REDACTED: the record never holds a secret.
    record.target = CallInspection::redactTarget(request.query.isEmpty() ? request.path
                                                                          : request.path + '?' + request.query);
    record.requestHeaders = CallInspection::recordHeaders(request.headers);
    // The SDKs number their attempts (0 = the first try); no SDK sends an idempotency key, so the
    // attempts of one logical call are grouped by key and credential (accounting/retrygroups.h).
    bool counted = false;
    const int attempt = request.header("x-stainless-retry-count").trimmed().toInt(&counted);
    if (counted && attempt >= 0)
        record.retryAttempt = attempt;
    return record;
}

void ProxyServer::handleProxied(const Route &route, const IncomingRequest &request, ResponseWriter writer)
{
    CallRecord record = newRecord(route, request);
    m_geminiListed = m_geminiListed || route.style == ApiStyle::Gemini;   // its lane from its first call

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
    if (route.style == ApiStyle::Gemini) {   // models/{model}:method: the model and the stream are in the path
        const GeminiCall call = geminiCall(request.path);
        record.model = call.model;
        record.stream = call.method == "streamGenerateContent";
    }
    IncomingRequest sent = request;   // what goes upstream: the fallback's model, if it renames it
    QJsonObject sentBody = body;
    const Upstream &chosen = upstreamFor(route.style, record.model);
    record.upstream = chosen.name;
    const Upstream *fallback = fallbackFor(chosen);
    if (fallback)
        redirect(*fallback, record, sent, sentBody);
    const QByteArray key = keyFor(route, fallback ? *fallback : chosen, sent, sentBody, record);
    if (fallback)
        record.keyInputs += "fallback: from " + record.fallbackFrom + " (its breaker is open)\n";
    share(route, key, sent, sentBody, std::move(record), std::move(writer));
}

QByteArray ProxyServer::keyFor(const Route &route, const Upstream &upstream, const IncomingRequest &request,
                               const QJsonObject &body, CallRecord &record) const
{
    if (wantsNoSharing(request) || changesServerState(route, body)) {
        record.outcome = Outcome::Bypass;
        record.keyInputs = wantsNoSharing(request) ? "no key: the request asked for no sharing (Cache-Control)\n"
                                                   : "no key: the call changes state on the server\n";
        return {};
    }
    // Gemini's model is in the path, not the body: its path is keyed as it came.
    RequestKeyInput input = RequestKeyInput::from(route.style == ApiStyle::Gemini ? request.path : route.path,
                                                  upstream.baseUrl, request, body);
    // Members share answers among their own calls only, unless the team shares ("share": "team"):
    // with provider keys held by Breakwater, every member's calls carry the same credential.
    if (!request.member.isEmpty() && !m_members->sharesAcrossMembers())
        input.credentials.append({QByteArray("breakwater member"), request.member.toUtf8()});
    DescribedKey described = describedKey(input);
    record.keyFingerprint = described.key.toHex().left(12);
    record.keyInputs = std::move(described.description);
    return described.key;
}

void ProxyServer::fallBack(const Route &route, const IncomingRequest &request, const QJsonObject &body,
                           Flight &refused, Upstream &to)
{
    const QByteArray why = refused.status() > 0 ? "it answered HTTP " + QByteArray::number(refused.status())
                         : refused.result().failure == UpstreamFailure::Timeout ? QByteArray("it timed out")
                                                                                : QByteArray("it was unreachable");
    QList<Flight::Rider> riders = refused.takeRiders();
    if (!riders.isEmpty()) {
        // The refused call gets a row of its own (an upstream call that answered nobody), by its
        // first rider's request id; the answer's row, the one request, follows from the fallback.
        CallRecord attempt = refused.attemptRecord(riders.first().record);
        attempt.outcome = Outcome::FellBack;
        attempt.fallbackTo = to.name;
        attempt.keyInputs += "fallback: to " + to.name + " (" + why + " before any byte)\n";
        publish(std::move(attempt));
    }
    for (Flight::Rider &rider : riders) {
        rider.record.injected.clear();   // the fault fired for the refused call, not for the fallback's
        // Each rider as a request of its own to the fallback: the first makes the call, the others
        // (the same key) ride on it.
        IncomingRequest sent = request;
        QJsonObject sentBody = body;
        redirect(to, rider.record, sent, sentBody);
        const QByteArray key = keyFor(route, to, sent, sentBody, rider.record);
        rider.record.keyInputs += "fallback: from " + rider.record.fallbackFrom + " (" + why + " before any byte)\n";
        m_flights.share(key, route.style, *to.breaker, std::move(rider),
                        [&](Flight &flight, Flight::Rider &first) { return takeOff(route, sent, sentBody, flight, first); });
    }
}

bool ProxyServer::admitMember(const Route &route, IncomingRequest &request, ResponseWriter &writer)
{
    const MemberGate::Admission admission = m_members->admit(request, route.style);
    if (!admission.refusal)
        return true;
    CallRecord record = newRecord(route, request);
    record.member = admission.member;
    record.outcome = admission.refusal->status == 429 ? Outcome::SpendRefused : Outcome::Error;
    HeaderList extra;
    if (admission.refusal->status == 401)
        extra.append({QByteArray("WWW-Authenticate"), QByteArray(R"(Bearer realm="breakwater")")});
    answerError(route.style, *admission.refusal, std::move(record), std::move(writer), extra);
    return false;
}

void ProxyServer::handlePassThrough(const Route &route, const IncomingRequest &request, ResponseWriter writer)
{
    m_geminiListed = m_geminiListed || route.style == ApiStyle::Gemini;
    const bool routedOpenAi = std::any_of(m_routed.begin(), m_routed.end(),
                                          [](const Upstream &upstream) { return upstream.style == ApiStyle::OpenAI; });
    if (routedOpenAi && route.style == ApiStyle::OpenAI && request.method == "GET" && request.path == "/v1/models"
        && !m_admissionPaused) {
        answerModelsUnion(route, request, std::move(writer));
        return;
    }
    CallRecord record = newRecord(route, request);
    record.outcome = Outcome::Bypass;
    record.keyInputs = "no key: a pass-through route, never shared\n";
    share(route, {}, request, {}, std::move(record), std::move(writer));
}

void ProxyServer::share(const Route &route, const QByteArray &key, const IncomingRequest &request,
                        const QJsonObject &body, CallRecord record, ResponseWriter writer)
{
    if (m_admissionPaused) {
        record.outcome = Outcome::Error;
        answerError(route.style, pausedRefusal(), std::move(record), std::move(writer));
        return;
    }
    Q_EMIT callStarted(record);
    if (m_fleet && askFleetFirst(route, key, request, body, record, writer))
        return;
    Upstream &upstream = upstreamOf(record);
    m_flights.share(key, route.style, *upstream.breaker, {std::move(writer), std::move(record), {}},
                    [&](Flight &flight, Flight::Rider &rider) { return takeOff(route, request, body, flight, rider); });
}

void ProxyServer::answerModelsUnion(const Route &route, const IncomingRequest &request, ResponseWriter writer)
{
    CallRecord record = newRecord(route, request);
    record.outcome = Outcome::Bypass;
    record.keyInputs = "no key: the models lists of every OpenAI-API upstream, merged\n";
    Q_EMIT callStarted(record);
    auto *models = new ModelsUnion(this);
    for (Upstream *upstream : allUpstreams()) {
        if (upstream->style != ApiStyle::OpenAI)
            continue;
        if (upstream->breaker->state() == BreakerState::Open) {
            models->ask(upstream->name, nullptr, u"its breaker is open"_s);
            continue;
        }
        const UpstreamRequest call{"GET", upstreamUrl(upstream->baseUrl, ApiStyle::OpenAI, request.path, request.query),
                                   forwardHeaders(request), {}, m_config.upstreamTimeout};
        models->ask(upstream->name, upstream->pool->submit(call, models), u"its queue is full"_s);
    }
    connect(models, &ModelsUnion::done, this, [this, models, record = std::move(record), writer = std::move(writer)]() mutable {
        models->deleteLater();
        HeaderList missing;   // who is left out of the list
        if (const QStringList names = models->missing(); !names.isEmpty()) {
            qCWarning(lcProxy).noquote() << record.requestId << "models list without" << names.join(u", "_s);
            missing.append({"x-breakwater-models-missing", names.join(u", "_s).toUtf8()});
        }
        const HeaderList own = ownHeaders(record) + missing;
        if (models->anyListed()) {
            record.status = 200;
            writer.writeComplete(200, HeaderList{{"Content-Type", "application/json"}} + own,
                                 QJsonDocument(models->list()).toJson(QJsonDocument::Compact));
        } else if (models->firstStatus() > 0) {
            // Nobody listed: the default upstream's own answer (a 401 for a wrong key), as passed through.
            record.status = models->firstStatus();
            writer.writeComplete(record.status, HeaderList{{"Content-Type", "application/json"}} + own, models->firstBody());
        } else {
            answerError(ApiStyle::OpenAI, ApiError::upstreamUnreachable(u"no upstream answered the models list"_s),
                        std::move(record), std::move(writer), missing);
            return;
        }
        record.responseHeaders = CallInspection::recordHeaders(writer.sentHeaders());
        publish(record);
    });
    models->start();
}

bool ProxyServer::askFleetFirst(const Route &route, const QByteArray &key, const IncomingRequest &request,
                                const QJsonObject &body, CallRecord &record, ResponseWriter &writer)
{
    // Answered or joined here already: the fleet has nothing to add.
    if (!m_fleet->isShared() || (!key.isEmpty() && (m_flights.isFlying(key) || m_cache.find(key))))
        return false;
    const bool askAnswers = !key.isEmpty() && m_cache.enabled();
    // The fleet's budget is asked as the local one is (admit): for a model call, its most expensive outcome.
    std::optional<double> estimate;
    if (route.isModelCall() && m_spend->capped() && !body.isEmpty())
        estimate = m_prices.maxCost(record.model, estimateInputTokens(request.body), requestedMaxTokens(body));
    if (key.isEmpty() && !estimate)
        return false;
    // Held here, not on any stack: the answers come back from the event loop.
    struct Waiting
    {
        Route route;
        QByteArray key;
        IncomingRequest request;
        QJsonObject body;
        CallRecord record;
        ResponseWriter writer;
    };
    auto waiting = std::make_shared<Waiting>(Waiting{route, key, request, body, std::move(record), std::move(writer)});
    // Last: shared here as usual, with the fleet's reservation (if any) for takeOff to claim. With
    // `leader`, another instance's flight: its stream stands in for the upstream call.
    const auto shareHere = [this, waiting](const QByteArray &fleetReservation, const QByteArray &leader) {
        Waiting &w = *waiting;
        m_fleetReservation = fleetReservation;
        m_flights.share(w.key, w.route.style, *upstreamOf(w.record).breaker,
                        {std::move(w.writer), std::move(w.record), {}},
                        [&](Flight &flight, Flight::Rider &rider) {
            return leader.isEmpty() ? takeOff(w.route, w.request, w.body, flight, rider)
                                    : followFleet(w.route, w.request, leader, flight, rider);
        });
        // Not claimed (a hit, a join, a refusal before admission): nothing flew on it.
        if (!std::exchange(m_fleetReservation, {}).isEmpty())
            m_fleet->spend().settle(m_spend->today(), fleetReservation, 0);
    };
    // For a key: one instance of the fleet flies, the others follow it (fleet/fleetflights.h).
    const auto claimThenShare = [this, waiting, shareHere](const QByteArray &fleetReservation) {
        const QByteArray &key = waiting->key;
        if (key.isEmpty() || !m_fleet->isShared() || m_flights.isFlying(key) || m_cache.find(key)) {
            shareHere(fleetReservation, {});
            return;
        }
        m_fleet->flights().claim(key, this, [this, waiting, shareHere, fleetReservation](const FleetFlights::Claim &claim) {
            if (claim.answer && !m_cache.find(waiting->key))
                m_cache.store(waiting->key, claim.answer->answer, m_cache.windowMs() - claim.answer->leftMs);
            shareHere(fleetReservation, claim.role == FleetFlights::Claim::Role::Follow ? claim.token : QByteArray());
        });
    };
    const auto reserveThenShare = [this, waiting, estimate, claimThenShare] {
        if (!estimate || !m_fleet->isShared()) {
            claimThenShare({});
            return;
        }
        m_fleet->spend().reserve(m_spend->today(), m_spend->cap(), *estimate, this,
                                 [this, waiting, claimThenShare](FleetSpend::Verdict verdict, const QByteArray &reservation) {
            if (verdict == FleetSpend::Verdict::Refused) {
                waiting->record.outcome = Outcome::SpendRefused;
                answerError(waiting->route.style, m_spend->refusal(), std::move(waiting->record), std::move(waiting->writer));
                return;
            }
            claimThenShare(reservation);   // Unavailable: the local guard alone decides
        });
    };
    // Without a reservation to make, the claim alone asks: it finds a stored answer too (one round trip).
    if (!askAnswers || !estimate) {
        reserveThenShare();
        return true;
    }
    m_fleet->answers().find(key, this, [this, waiting, reserveThenShare, shareHere](std::optional<SharedAnswers::Found> found) {
        if (!found) {
            reserveThenShare();
            return;
        }
        // Into the first level for what is left of its window: the sharing then answers it as a hit.
        if (!m_cache.find(waiting->key))
            m_cache.store(waiting->key, found->answer, m_cache.windowMs() - found->leftMs);
        shareHere({}, {});
    });
    return true;
}

// A new flight on this instance that joins another instance's call for the same key: no admission
// (it costs no upstream call), and the leader's instance tells its breaker and its spend. Should
// the leader go before anything reached a client, the fresh call made here is admitted to this
// instance's spend guard then (refused past the cap, like any call) and landed as ours; its cost
// is added to the fleet's day as well, since no fleet reservation was made for it.
Sharing::Takeoff ProxyServer::followFleet(const Route &route, const IncomingRequest &request, const QByteArray &leader,
                                          Flight &flight, Flight::Rider &rider)
{
    Upstream &upstream = upstreamOf(rider.record);
    rider.record.outcome = Outcome::Joined;
    rider.record.breakerState = breakerStateName(upstream.breaker->state());
    auto takeover = std::make_shared<std::optional<Admitted>>();
    const FaultInjector::Target target{upstream.name, route.path, rider.record.model, rider.record.stream,
                                       flight.style(), false};
    auto relaunch = [this, &upstream, route, request, target, takeover,
                     model = rider.record.model](QObject *owner) -> UpstreamCall * {
        Admitted admitted;
        admitted.modelCall = route.isModelCall();
        const QJsonObject body = QJsonDocument::fromJson(request.body).object();
        if (admitted.modelCall && !body.isEmpty()) {
            reserveSpend(admitted, model, request.body, body);
            if (!admitted.reservation)
                return nullptr;   // past the cap here: the follower says it could not call in its place
        }
        const QUrl url = upstreamUrl(upstream.baseUrl, route.style, request.path, request.query);
        UpstreamRequest call{request.method, url, forwardHeaders(request), request.body, m_config.upstreamTimeout};
        *takeover = admitted;
        return m_faults->submit(*upstream.pool, call, target, owner).call;
    };
    UpstreamCall *call = m_fleet->flights().follow(flight.key(), leader, std::move(relaunch), &flight);
    return {call, [this, &upstream, takeover](Flight &landed) {
        if (!*takeover)
            return;
        land(landed, upstream, **takeover, landed.hasStarted());
        if (m_fleet)
            m_fleet->spend().charge(m_spend->today(), landed.costUsd().value_or(0));
    }, /*fallback: the leader's instance falls back, its followers get what it got*/ {}};
}

// Only for a new flight: admits its upstream call and submits it to the upstream's pool.
Sharing::Takeoff ProxyServer::takeOff(const Route &route, const IncomingRequest &request, const QJsonObject &body,
                                      Flight &flight, Flight::Rider &rider)
{
    Upstream &upstream = upstreamOf(rider.record);
    const std::optional<Admitted> admitted = admit(upstream, route, request, body, rider);
    if (!admitted)
        return {};
    upstream.probe->rememberCredentials(request.headers);
    // A HEAD answer has no body to relay; it is answered whole, with Content-Length 0.
    if (route.kind == Route::Kind::PassThrough)
        flight.setPassThrough(request.method != "HEAD");

    const QUrl url = upstreamUrl(upstream.baseUrl, flight.style(), request.path, request.query);
    UpstreamRequest call{request.method, url, forwardHeaders(request), request.body, m_config.upstreamTimeout};
    // Where an armed fault rule may stand in for the provider (faults/faultinjector.h).
    const FaultInjector::Submitted submitted = m_faults->submit(
        *upstream.pool, call, {upstream.name, route.path, rider.record.model, rider.record.stream, flight.style(),
                                     route.kind == Route::Kind::PassThrough}, &flight);
    UpstreamCall *upstreamCall = submitted.call;
    if (upstreamCall && !submitted.fault.isEmpty())
        flight.setInjected(submitted.fault);
    if (upstreamCall && m_fleet)
        m_fleet->flights().lead(flight.key(), upstreamCall);   // published for the fleet, if it leads
    m_flightUpstream.insert(&flight, &upstream);
    if (!upstreamCall) {
        m_flightUpstream.remove(&flight);
        settle(upstream, *admitted, nullptr);
        rider.record.outcome = Outcome::Error;
        answerError(flight.style(), ApiError::queueFull(m_config.maxQueued), rider.record, std::move(rider.writer));
        return {};
    }
    // A streamed trial is decided by its first byte: a 2xx stream that has begun shows the provider
    // is back, and holding every other request at 503 for as long as the stream runs (minutes, for a
    // long answer) would prolong the outage. If the stream fails later, that counts as a failure
    // like any other, in the closed state.
    auto decidedEarly = std::make_shared<bool>(false);
    flight.setTrial(admitted->trial);
    if (admitted->trial) {
        connect(upstreamCall, &UpstreamCall::headersReceived, &flight,
                [&upstream, &flight, decidedEarly](int status, const HeaderList &headers) {
            if (isSuccess(status) && isEventStream(headers) && !*decidedEarly) {
                *decidedEarly = true;
                flight.setTrial(false);
                upstream.breaker->recordSuccess(true);
            }
        });
    }
    Sharing::Takeoff takeoff{upstreamCall, [this, &upstream, admitted = *admitted, decidedEarly,
                                            reachesProvider = submitted.reachesProvider](Flight &landed) {
        Admitted settled = admitted;
        settled.trial = admitted.trial && !*decidedEarly;
        land(landed, upstream, settled, reachesProvider && landed.hasStarted());
    }, {}};
    // A model call refused before its first byte goes to the fallback, once: never a fallback's.
    Upstream *fallback = route.kind == Route::Kind::Proxied && rider.record.fallbackFrom.isEmpty()
        ? namedFallback(upstream) : nullptr;
    if (fallback) {
        takeoff.fallback = [this, route, request, body, fallback](Flight &refused) {
            fallBack(route, request, body, refused, *fallback);
        };
    }
    return takeoff;
}

// Spend first, so that a refusal there never uses up the breaker's one trial. A refusal is answered
// here, and whatever was held for the call is let go.
std::optional<ProxyServer::Admitted> ProxyServer::admit(Upstream &upstream, const Route &route,
                                                        const IncomingRequest &request, const QJsonObject &body,
                                                        Flight::Rider &rider)
{
    const ApiStyle style = route.style;
    CallRecord &record = rider.record;
    Admitted admitted;
    admitted.modelCall = route.isModelCall();
    // The reservation is the most the call can cost (its input and its max_tokens); `settle` charges
    // it from `usage` after. Spend is counted with or without a cap, so a cap turned on mid-day caps
    // what is left. Only model calls are priced: count_tokens is free, and a pass-through call is not
    // counted (README, known limits).
    if (admitted.modelCall && !body.isEmpty()) {
        const std::optional<double> maxCost = reserveSpend(admitted, record.model, request.body, body);
        if (!admitted.reservation) {
            record.outcome = Outcome::SpendRefused;
            answerError(style, maxCost ? m_spend->refusal() : m_spend->unpricedRefusal(record.model), record,
                        std::move(rider.writer));
            return std::nullopt;
        }
    }
    // The fleet's reservation for this call (askFleetFirst), once the local guard admitted it too.
    if (!m_fleetReservation.isEmpty() && (admitted.reservation || !m_spend->capped()))
        admitted.fleetReservation = std::exchange(m_fleetReservation, {});
    const CircuitBreaker::Admission admission = breakerAdmission(*upstream.breaker, admitted.modelCall);
    record.breakerState = breakerStateName(upstream.breaker->state());
    if (admission.verdict == CircuitBreaker::Admission::Verdict::Refuse) {
        record.outcome = Outcome::BreakerRefused;
        const QString why = upstream.breaker->openedByHand()
            ? u"was opened by hand"_s
            : u"is %1 after repeated upstream failures"_s.arg(QString::fromLatin1(record.breakerState));
        ApiError error{503, "breaker_open_error", "breaker_open",
                       u"Breakwater's circuit breaker for the %1 upstream %2; not calling it. Try again in %3 s."_s
                           .arg(QString::fromLatin1(upstream.name), why).arg(admission.retryAfterSeconds)};
        error.retryAfterSeconds = admission.retryAfterSeconds;
        answerError(style, error, record, std::move(rider.writer));
        settle(upstream, admitted, nullptr);
        return std::nullopt;
    }
    admitted.trial = admission.verdict == CircuitBreaker::Admission::Verdict::Trial;
    return admitted;
}

std::optional<double> ProxyServer::reserveSpend(Admitted &admitted, const QString &model, const QByteArray &rawBody,
                                                const QJsonObject &body)
{
    admitted.inputTokensEstimate = estimateInputTokens(rawBody);
    const std::optional<double> maxCost = m_prices.maxCost(model, admitted.inputTokensEstimate, requestedMaxTokens(body));
    admitted.estimateUsd = maxCost.value_or(0);
    admitted.reservation = m_spend->reserve(maxCost);
    return maxCost;
}

void ProxyServer::land(Flight &flight, Upstream &upstream, const Admitted &admitted, bool reachedProvider)
{
    m_flightUpstream.remove(&flight);
    // What the call cost, from the upstream's own `usage` (streams included) where it said it, else
    // by the rule of accounting/callcharge.h. It is logged at what it was charged, so the day's
    // spend read back from the log after a restart is what was counted.
    const Usage usage = isSuccess(flight.status()) ? flight.reportedUsage() : Usage{};
    CallOutcomeForCharge outcome;
    outcome.reachedProvider = reachedProvider;
    outcome.usageUsd = usage.known() ? m_prices.cost(flight.model(), usage) : std::nullopt;
    outcome.complete = flight.isCacheable();
    outcome.streamBegan = flight.isStreaming() && isSuccess(flight.status());
    outcome.cancelled = flight.isCancelled();
    outcome.eventsSeen = flight.eventsReceived();
    const ChargeBasis basis{admitted.inputTokensEstimate, admitted.estimateUsd};
    std::optional<double> cost = admitted.modelCall
        ? callCharge(outcome, basis, [&](qint64 input, qint64 output) {
              return m_prices.cost(flight.model(), Usage{input, output, 0});
          })
        : outcome.usageUsd;
    flight.setUsage(usage, cost);
    settle(upstream, admitted, &flight);
}

// The one end of every admission, whether its call flew (`landed`) or was refused before it did.
void ProxyServer::settle(Upstream &upstream, const Admitted &admitted, const Flight *landed)
{
    if (admitted.reservation) {
        if (!landed) {
            m_spend->release(*admitted.reservation);
        } else {
            // What `land` charged (accounting/callcharge.h); unknown (a model without a price, no
            // cap) counts nothing.
            m_spend->settle(*admitted.reservation, landed->costUsd().value_or(0));
        }
    }
    if (!admitted.fleetReservation.isEmpty()) {   // the fleet's budget hears the same charge
        const double charged = landed && (landed->isCacheable() || landed->isCancelled()) ? admitted.estimateUsd : 0;
        m_fleet->spend().settle(m_spend->today(), admitted.fleetReservation,
                                landed ? landed->costUsd().value_or(charged) : 0);
    }
    // The breaker hears each upstream call once, however many riders shared it.
    BreakerVerdict verdict = landed ? landed->breakerVerdict() : BreakerVerdict{};
    if (verdict.kind == BreakerVerdict::Kind::Success) {
        // A 4xx is the request's own fault: it says nothing of the provider's health, so a trial
        // answered 4xx leaves the breaker half-open for the next one. Only a model call vouches for
        // the provider: a pass-through or count_tokens call reports its failures, never a success.
        const bool clientError = landed->status() >= 400 && landed->status() < 500;
        if (clientError || !admitted.modelCall)
            verdict.kind = BreakerVerdict::Kind::None;
    }
    switch (verdict.kind) {
    case BreakerVerdict::Kind::Success:
        upstream.breaker->recordSuccess(admitted.trial);
        if (!landed->isStreaming() && landed->upstreamStartAtMs() > 0)
            upstream.stuck.recordHealthy(m_clock.wallMs() - landed->upstreamStartAtMs());
        break;
    case BreakerVerdict::Kind::Failure:
        if (!landed->countedAsStuck())
            upstream.breaker->recordFailure(verdict.reason, admitted.trial);
        if (landed->result().failure == UpstreamFailure::Timeout)
            countStuckCalls(upstream, landed);
        break;
    case BreakerVerdict::Kind::None:
        if (admitted.trial)
            upstream.breaker->abandonTrial();
        break;
    }
}

// A timeout proves this upstream can hang; a call to it that is stuck as well (StuckCallRule: a
// stream with no first byte for half the timeout, a non-streamed call past twice what the model
// needed lately) counts as a failure now rather than when its own timeout expires. In the field
// test's hang (a prompt every 2 s, --timeout 5) the breaker opens one prompt interval sooner.
void ProxyServer::countStuckCalls(Upstream &upstream, const Flight *timedOut)
{
    const qint64 timeoutMs = m_config.upstreamTimeout.count();
    const qint64 now = m_clock.wallMs();
    for (Flight *flight : m_flights.inProgressFlights()) {
        if (upstream.breaker->state() != BreakerState::Closed)
            return;
        if (flight == timedOut || m_flightUpstream.value(flight) != &upstream || flight->countedAsStuck()
            || flight->upstreamStartAtMs() == 0 || flight->riderCount() == 0)
            continue;
        const qint64 runningMs = now - flight->upstreamStartAtMs();
        if (!upstream.stuck.isStuck(flight->leaderRecord().stream, flight->hasHeaders(), runningMs, timeoutMs))
            continue;
        flight->setCountedAsStuck();
        upstream.breaker->recordFailure(
            Message(QT_TRANSLATE_NOOP("Message", "stuck: no byte for %1 s after a timeout")).arg(runningMs / 1000.0), false);
    }
}

void ProxyServer::answerError(ApiStyle style, const ApiError &error, CallRecord record, ResponseWriter writer,
                              const HeaderList &extra)
{
    record.status = error.status;
    record.errorKind = error.code;
    writer.writeError(style, error, ownHeaders(record) + extra);
    record.responseHeaders = CallInspection::recordHeaders(writer.sentHeaders());
    record.endAtMs = m_clock.wallMs();
    publish(record);
}

void ProxyServer::publish(CallRecord record)
{
    if (record.endAtMs == 0)
        record.endAtMs = m_clock.wallMs();
    m_metrics.record(record);
    if (m_members)
        m_members->charge(record);
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

void ProxyServer::applyLiveSettings(const LiveSettings &settings)
{
    // Every unit that copied a value at start gets it here; the upstream timeout itself is read
    // from m_config by each new UpstreamRequest (takeOff), so calls in flight keep theirs.
    settings.applyTo(m_config);
    m_flights.setTimeoutSeconds(std::chrono::duration<double>(settings.timeout).count());
    for (Upstream *upstream : allUpstreams()) {
        upstream->pool->setConcurrency(settings.concurrency);
        upstream->breaker->setFailureThreshold(settings.breakerFailures);
        upstream->breaker->setCooldown(settings.breakerCooldown);
        upstream->probe->setTimeout(probeTimeout(m_config));
    }
    m_cache.setWindow(settings.dedupWindow.count());
    m_cache.setMaxBytes(settings.cacheBytes);
    m_spend->setCap(settings.maxSpendUsd);
    qCInfo(lcProxy).noquote() << "live settings:" << QJsonDocument(settings.toJson()).toJson(QJsonDocument::Compact);
}

std::optional<bool> ProxyServer::actOnBreaker(const QByteArray &name, BreakerAction action)
{
    Upstream *upstream = const_cast<Upstream *>(upstreamNamed(name));
    if (!upstream)
        return std::nullopt;
    CircuitBreaker *breaker = upstream->breaker;
    const int before = breaker->transitions();
    switch (action) {
    case BreakerAction::Open: breaker->forceOpen(Message(QT_TRANSLATE_NOOP("Message", "opened by hand"))); break;
    case BreakerAction::Close: breaker->forceClose(Message(QT_TRANSLATE_NOOP("Message", "closed by hand"))); break;
    case BreakerAction::Probe: return upstream->probe->probeNow();
    }
    return breaker->transitions() != before;
}

void ProxyServer::setAdmissionPaused(bool paused)
{
    if (paused != m_admissionPaused)
        qCInfo(lcProxy) << (paused ? "admission paused by hand" : "admission resumed");
    m_admissionPaused = paused;
}

int ProxyServer::eventWatchers() const
{
    return m_events->watchers();
}

void ProxyServer::drain(std::chrono::milliseconds grace)
{
    const QDeadlineTimer deadline(grace);
    if (!m_draining || deadline < m_drainDeadline)
        m_drainDeadline = deadline;
    if (m_draining)
        return;
    m_draining = true;
    m_events->endAll();   // the watchers see the stream end, and an attached dashboard says so
    if (m_frontDoor)
        m_frontDoor->close();   // no new connections; the open ones are answered 503 from now on
    const int inFlight = m_flights.inProgress();
    qCInfo(lcProxy).nospace() << "draining: " << inFlight << " call(s) in flight, up to " << grace.count() << " ms";
    m_drainCheck.setInterval(20);
    connect(&m_drainCheck, &QTimer::timeout, this, [this] {
        if (m_flights.inProgress() == 0) {
            m_drainCheck.stop();
            Q_EMIT drained();
            return;
        }
        if (m_drainDeadline.hasExpired() && !m_drainEnding) {
            // Each running exchange aborts within its stop poll and lands as UpstreamFailure::Shutdown:
            // its riders get the error (a stream an error event) and their records are published.
            m_drainEnding = true;
            qCInfo(lcProxy).nospace() << "drain time is up: ending " << m_flights.inProgress() << " call(s)";
            for (Upstream *upstream : allUpstreams())
                upstream->pool->stop();
        }
    });
    m_drainCheck.start();
}
