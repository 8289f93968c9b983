#include "mockprovider.h"

#include <sys/socket.h>

#include <utility>

#include <QHttpServerRequest>
#include <QLoggingCategory>
#include <QMetaObject>
#include <QMutexLocker>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTimer>

#include "http/responsewriter.h"
#include "mockanswers.h"

// Per-request lines would flood benchmarks and the demo: debug is opt-in
// (QT_LOGGING_RULES="breakwater.mock.debug=true").
Q_LOGGING_CATEGORY(lcMock, "breakwater.mock", QtInfoMsg)

using namespace Qt::StringLiterals;
using mockanswers::Answer;
using mockanswers::Route;
using mockanswers::Variant;

namespace {
// 200 concurrent test connections would overflow Qt's default listen backlog of 50 (listenBacklog in
// https://code.qt.io/cgit/qt/qtbase.git/tree/src/network/socket/qtcpserver_p.h?h=v6.4.2), and every
// dropped SYN costs the client a 1 s retransmit.
constexpr int kListenBacklog = 1024;

QByteArray methodName(QHttpServerRequest::Method method)
{
    switch (method) {
    case QHttpServerRequest::Method::Get: return "GET";
    case QHttpServerRequest::Method::Post: return "POST";
    case QHttpServerRequest::Method::Put: return "PUT";
    case QHttpServerRequest::Method::Delete: return "DELETE";
    case QHttpServerRequest::Method::Head: return "HEAD";
    case QHttpServerRequest::Method::Patch: return "PATCH";
    case QHttpServerRequest::Method::Options: return "OPTIONS";
    default: return "OTHER";
    }
}

// The modes that answer 200 and go wrong inside the body.
Variant variantFor(MockProvider::Mode mode)
{
    switch (mode) {
    case MockProvider::Mode::ErrorEventInStream: return Variant::ErrorEvent;
    case MockProvider::Mode::ResponsesErrorEvent: return Variant::BareErrorEvent;
    case MockProvider::Mode::ResponsesIncomplete: return Variant::Incomplete;
    case MockProvider::Mode::Pings: return Variant::Pings;
    default: return Variant::Normal;
    }
}
} // namespace

// One request from its arrival to its last byte (or its client's hang-up). A child of the mock,
// living on the mock's thread; it is the context of its own timers and socket connections, so
// deleting it cancels them. `done` is the single place that says "no longer in flight".
class MockProvider::Exchange final : public QObject
{
    Q_DISABLE_COPY_MOVE(Exchange)
public:
    Exchange(QTcpSocket *socket, QObject *parent) : QObject(parent), writer(socket) { }

    ResponseWriter writer;   // guards every write against a client that went away
    mockanswers::Call call;
    Mode mode = Mode::Ok;
    Answer answer;
    qsizetype nextEvent = 0;
    qsizetype stopAfter = 0;                 // events to send; fewer than all for CutStream
    std::chrono::milliseconds gap{0};        // between stream events
    bool done = false;
};

MockProvider::MockProvider(quint16 port, QObject *parent)
    : QAbstractHttpServer(parent)
{
    auto *server = new QTcpServer(this);
    server->setListenBacklogSize(kListenBacklog);
    server->setMaxPendingConnections(kListenBacklog);
    if (!server->listen(QHostAddress::LocalHost, port)) {
        qCWarning(lcMock) << "cannot listen on port" << port << server->errorString();
        delete server;
        return;
    }
    bind(server);   // parents the server to us
    m_port = server->serverPort();
    qCDebug(lcMock) << "listening on 127.0.0.1 port" << m_port;
}

MockProvider::~MockProvider()
{
    // Open exchanges go first: deleting the sockets (children of our QTcpServer, destroyed after
    // this body) would otherwise call finish() on members that are already gone.
    qDeleteAll(std::exchange(m_exchanges, {}));
    m_heldExchanges.clear();
}

QUrl MockProvider::openaiBaseUrl() const
{
    return QUrl(u"http://127.0.0.1:%1/v1"_s.arg(m_port));
}

QUrl MockProvider::anthropicBaseUrl() const
{
    return QUrl(u"http://127.0.0.1:%1"_s.arg(m_port));
}

void MockProvider::setLatency(std::chrono::milliseconds latency)
{
    QMutexLocker lock(&m_mutex);
    m_latency = latency;
}

void MockProvider::setChunkInterval(std::chrono::milliseconds interval)
{
    QMutexLocker lock(&m_mutex);
    m_chunkInterval = interval;
}

void MockProvider::setStreamEndDelay(std::chrono::milliseconds delay)
{
    QMutexLocker lock(&m_mutex);
    m_streamEndDelay = delay;
}

void MockProvider::setSlowGap(std::chrono::milliseconds gap)
{
    QMutexLocker lock(&m_mutex);
    m_slowGap = gap;
}

void MockProvider::setExtraHeaders(const HeaderList &headers)
{
    QMutexLocker lock(&m_mutex);
    m_extraHeaders = headers;
}

HeaderList MockProvider::realProviderHeaders()
{
    return {{"Set-Cookie", "__cf_bm=mock0cf0bm0aBcDeF.0123456789-1700000000-1.0.1.1-mockmockmock; path=/; "
                           "expires=Tue, 14-Nov-23 22:43:20 GMT; domain=.api.openai.com; HttpOnly; Secure; "
                           "SameSite=None"},
            {"Set-Cookie", "_cfuvid=mock0cfuvid0aBcDeF.0123456789-1700000000000-0.0.1.1-604800000; path=/; "
                           "domain=.api.openai.com; HttpOnly; Secure; SameSite=None"},
            {"x-ratelimit-limit-requests", "10000"},
            {"x-ratelimit-remaining-requests", "9999"},
            {"x-ratelimit-reset-requests", "6ms"},
            {"openai-processing-ms", "42"},
            {"x-request-id", "req_mock0123456789abcdef"}};
}

void MockProvider::setMode(Mode mode)
{
    QMutexLocker lock(&m_mutex);
    m_mode = mode;
    m_schedule.clear();
    ++m_scheduleGeneration;
}

void MockProvider::setSchedule(const QList<Phase> &phases)
{
    quint64 generation = 0;
    bool drop = false;
    {
        QMutexLocker lock(&m_mutex);
        m_schedule = phases;
        m_scheduleClock.start();
        generation = ++m_scheduleGeneration;
        drop = m_dropHung;
    }
    if (drop)   // the timers belong to the mock's thread
        QMetaObject::invokeMethod(this, [this, generation] { dropHungAtPhaseEnds(generation); });
}

void MockProvider::setDropHungWhenPhaseEnds(bool drop)
{
    QMutexLocker lock(&m_mutex);
    m_dropHung = drop;
}

void MockProvider::dropHungAtPhaseEnds(quint64 generation)
{
    QList<qint64> ends;   // ms after the schedule's start
    qint64 elapsed = 0;
    {
        QMutexLocker lock(&m_mutex);
        if (generation != m_scheduleGeneration)
            return;
        qint64 at = 0;
        for (const Phase &phase : std::as_const(m_schedule)) {
            at += phase.duration.count();
            if (phase.mode == Mode::Hang)
                ends.append(at);
        }
        elapsed = m_scheduleClock.elapsed();
    }
    for (const qint64 end : ends) {
        QTimer::singleShot(std::chrono::milliseconds(std::max<qint64>(end - elapsed, 0)), Qt::PreciseTimer, this,
                           [this, generation] {
            {
                QMutexLocker lock(&m_mutex);
                if (generation != m_scheduleGeneration)
                    return;
            }
            const QList<Exchange *> open = m_exchanges;
            for (Exchange *exchange : open) {
                if (exchange->mode == Mode::Hang && !exchange->done) {
                    exchange->writer.abort();
                    finish(exchange);
                }
            }
        });
    }
}

MockProvider::Mode MockProvider::currentMode() const
{
    return modeForArrival();
}

MockProvider::Mode MockProvider::modeForArrival() const
{
    QMutexLocker lock(&m_mutex);
    if (m_schedule.isEmpty())
        return m_mode;
    const std::chrono::milliseconds elapsed(m_scheduleClock.elapsed());
    std::chrono::milliseconds phaseEnd{0};
    for (const Phase &phase : m_schedule) {
        phaseEnd += phase.duration;
        if (elapsed < phaseEnd)
            return phase.mode;
    }
    return m_schedule.constLast().mode;
}

void MockProvider::setHoldAnswers(bool hold)
{
    m_hold.store(hold);
    if (!hold)
        releaseHeld();
}

void MockProvider::releaseHeld()
{
    // Held exchanges belong to the mock's thread: run there (directly when already on it).
    QMetaObject::invokeMethod(this, [this] { releaseHeldNow(); });
}

void MockProvider::releaseHeldNow()
{
    const QList<Exchange *> held = std::exchange(m_heldExchanges, {});
    m_held.store(0);
    qCDebug(lcMock) << "releasing" << held.size() << "held answers";
    for (Exchange *exchange : held)
        start(exchange);
}

int MockProvider::callCount(const QString &path) const
{
    QMutexLocker lock(&m_mutex);
    return m_callsPerPath.value(path);
}

void MockProvider::resetCounters()
{
    QMutexLocker lock(&m_mutex);
    m_callsPerPath.clear();
    m_calls.store(0);
    m_maxInFlight.store(m_inFlight.load());
}

HeaderList MockProvider::lastRequestHeaders() const
{
    QMutexLocker lock(&m_mutex);
    return m_lastHeaders;
}

QByteArray MockProvider::lastRequestBody() const
{
    QMutexLocker lock(&m_mutex);
    return m_lastBody;
}

QByteArray MockProvider::lastRequestQuery() const
{
    QMutexLocker lock(&m_mutex);
    return m_lastQuery;
}

bool MockProvider::handleRequest(const QHttpServerRequest &request, QTcpSocket *socket)
{
    // Copy what we need now: in Qt 6.4 the request belongs to the connection and is reused
    // (https://code.qt.io/cgit/qt/qthttpserver.git/tree/src/httpserver/qabstracthttpserver.cpp?h=v6.4.2#n42).
    const QString path = request.url().path();
    const HeaderList headers = request.headers();
    const Route route = mockanswers::routeFor(methodName(request.method()), path, headers);
    const Mode mode = modeForArrival();
    {
        // Recorded before the counters move, so a test that saw the count also sees the request.
        QMutexLocker lock(&m_mutex);
        ++m_callsPerPath[path];
        m_lastHeaders = headers;
        m_lastBody = request.body();
        m_lastQuery = request.url().query(QUrl::FullyEncoded).toUtf8();
    }
    m_calls.fetch_add(1);
    const int open = m_inFlight.fetch_add(1) + 1;
    int highest = m_maxInFlight.load();
    while (open > highest && !m_maxInFlight.compare_exchange_weak(highest, open)) { }
    qCDebug(lcMock) << methodName(request.method()) << path << mode;

    auto *exchange = new Exchange(socket, this);
    exchange->call.route = route;
    exchange->call.path = path;
    exchange->call.headers = headers;
    exchange->call.body = request.body();
    exchange->mode = mode;
    m_exchanges.append(exchange);

    // A hang-up ends the exchange whatever it was doing (held, hung, delayed or streaming).
    socket->setSocketOption(QAbstractSocket::LowDelayOption, 1);
    connect(socket, &QAbstractSocket::disconnected, exchange, [this, exchange] { finish(exchange); });
    connect(socket, &QObject::destroyed, exchange, [this, exchange] { finish(exchange); });
    if (socket->state() != QAbstractSocket::ConnectedState) {
        finish(exchange);
        return true;
    }

    if (m_hold.load()) {
        m_heldExchanges.append(exchange);
        m_held.store(int(m_heldExchanges.size()));
        return true;
    }
    start(exchange);
    return true;
}

void MockProvider::missingHandler(const QHttpServerRequest &, QTcpSocket *socket)
{
    // Not reached (handleRequest takes everything), but every path must answer.
    const Answer answer = mockanswers::normalAnswer({});
    ResponseWriter(socket).writeComplete(answer.status, answer.headers, answer.body);
}

void MockProvider::start(Exchange *exchange)
{
    if (exchange->done || exchange->mode == Mode::Hang)
        return;   // a hung request stays in flight until its client hangs up
    std::chrono::milliseconds latency;
    {
        QMutexLocker lock(&m_mutex);
        latency = m_latency;
    }
    if (latency.count() > 0)
        QTimer::singleShot(latency, Qt::PreciseTimer, exchange, [this, exchange] { answer(exchange); });
    else
        answer(exchange);
}

void MockProvider::answer(Exchange *exchange)
{
    if (exchange->done)
        return;
    ResponseWriter &writer = exchange->writer;
    const Route route = exchange->call.route;
    Answer answer;
    switch (exchange->mode) {
    case Mode::Reset:
        // SO_LINGER {1, 0} makes close() send a TCP RST instead of a FIN.
        if (QTcpSocket *socket = writer.socket(); socket && socket->socketDescriptor() != -1) {
            const linger hard{1, 0};
            ::setsockopt(int(socket->socketDescriptor()), SOL_SOCKET, SO_LINGER, &hard, sizeof hard);
        }
        writer.abort();
        finish(exchange);
        return;
    case Mode::Error503:
        answer = mockanswers::errorAnswer(route, 503);
        break;
    case Mode::RateLimited429:
        answer = mockanswers::errorAnswer(route, 429);
        break;
    case Mode::Overloaded529:
        answer = mockanswers::errorAnswer(route, 529);
        break;
    case Mode::RateLimitedMs429:
        answer = mockanswers::rateLimitedMsAnswer(route);
        break;
    case Mode::Garbage:
        answer = mockanswers::garbageAnswer();
        break;
    default:
        exchange->call.sequence = ++m_sequence;
        answer = mockanswers::normalAnswer(exchange->call, &m_responses, variantFor(exchange->mode));
        break;
    }
    {
        QMutexLocker lock(&m_mutex);
        answer.headers += m_extraHeaders;
    }

    if (!answer.isStream()) {
        if (exchange->mode == Mode::CutStream && writer.isConnected()) {
            // ResponseWriter always tells the truth about Content-Length, so the lie is written by
            // hand: promise the whole body, send half, and drop the connection.
            QByteArray head = "HTTP/1.1 " + QByteArray::number(answer.status) + ' '
                              + reasonPhrase(answer.status) + "\r\n";
            for (const auto &[name, value] : std::as_const(answer.headers))
                head += name + ": " + value + "\r\n";
            head += "Content-Length: " + QByteArray::number(answer.body.size()) + "\r\n\r\n";
            writer.socket()->write(head + answer.body.left(answer.body.size() / 2));
            writer.socket()->flush();
            writer.abort();
        } else {
            writer.writeComplete(answer.status, answer.headers, answer.body);
        }
        finish(exchange);
        return;
    }

    {
        QMutexLocker lock(&m_mutex);
        exchange->gap = exchange->mode == Mode::SlowStream ? m_slowGap : m_chunkInterval;
    }
    const qsizetype count = answer.events.size();
    exchange->stopAfter = exchange->mode == Mode::CutStream ? qMax<qsizetype>(1, count / 2) : count;
    exchange->answer = std::move(answer);
    writer.beginStream(exchange->answer.status, exchange->answer.headers);
    writeNextEvent(exchange);
}

void MockProvider::writeNextEvent(Exchange *exchange)
{
    if (exchange->done)
        return;
    ResponseWriter &writer = exchange->writer;
    if (!writer.isConnected()) {
        finish(exchange);
        return;
    }
    writer.writeChunk(exchange->answer.events.at(exchange->nextEvent++));
    if (exchange->nextEvent == exchange->stopAfter) {
        if (exchange->nextEvent < exchange->answer.events.size()) {
            // CutStream: what was written goes out, then the connection drops without the 0-chunk.
            if (QTcpSocket *socket = writer.socket())
                socket->flush();
            writer.abort();
            finish(exchange);
        } else {
            endStream(exchange);
        }
        return;
    }
    QTimer::singleShot(exchange->gap, Qt::PreciseTimer, exchange,
                       [this, exchange] { writeNextEvent(exchange); });
}

void MockProvider::endStream(Exchange *exchange)
{
    std::chrono::milliseconds delay;
    {
        QMutexLocker lock(&m_mutex);
        delay = m_streamEndDelay;
    }
    const auto end = [this, exchange] {
        exchange->writer.endStream();
        finish(exchange);
    };
    if (delay.count() <= 0)
        end();
    else
        QTimer::singleShot(delay, Qt::PreciseTimer, exchange, end);
}

void MockProvider::finish(Exchange *exchange)
{
    if (exchange->done)
        return;   // answered and hung up, or hung up twice (disconnected, then destroyed)
    exchange->done = true;
    // No more hang-up signals for it: the socket may outlive the mock's own destructor.
    if (QTcpSocket *socket = exchange->writer.socket())
        socket->disconnect(exchange);
    if (m_heldExchanges.removeOne(exchange))
        m_held.store(int(m_heldExchanges.size()));
    m_exchanges.removeOne(exchange);
    m_inFlight.fetch_sub(1);
    exchange->deleteLater();
}
