#include "faults/faultcall.h"

#include <algorithm>
#include <utility>

#include <QLoggingCategory>

#include "faults/faultanswers.h"
#include "http/protocol.h"
#include "upstream/upstreampool.h"

Q_LOGGING_CATEGORY(lcFaultCall, "breakwater.faults.call", QtInfoMsg)

using namespace std::chrono_literals;
using Kind = FaultRule::Kind;

namespace {

constexpr auto kPollInterval = 100ms;   // as the pool's stop poll

} // namespace

UpstreamCall *FaultCall::play(const FaultRule &rule, const Context &context, const UpstreamRequest &request,
                              UpstreamPool &pool, QObject *owner)
{
    UpstreamCall *inner = nullptr;
    if (rule.shapesRealCall()) {
        inner = pool.submit(request, nullptr);
        if (!inner)
            return nullptr;
    }
    auto *outer = new UpstreamCall(owner);
    auto *player = new FaultCall(rule, context, request.timeout, pool, outer);
    if (inner)
        player->follow(inner);
    else
        QTimer::singleShot(0, player, &FaultCall::startScripted);   // once the flight follows the call
    return outer;
}

FaultCall::FaultCall(const FaultRule &rule, const Context &context, std::chrono::milliseconds timeout,
                     UpstreamPool &pool, UpstreamCall *outer)
    : QObject(outer), m_rule(rule), m_context(context), m_timeout(timeout), m_pool(&pool), m_outer(outer)
{
    m_timer.setSingleShot(true);
    m_timer.setTimerType(Qt::PreciseTimer);   // a coarse timer may fire 5 % early: a delay is at least its D
    m_poll.setInterval(kPollInterval);
    connect(&m_poll, &QTimer::timeout, this, &FaultCall::poll);
    m_poll.start();
}

void FaultCall::startScripted()
{
    if (m_pool && m_pool->isStopping())
        return finish({UpstreamFailure::Shutdown, {}, 0});
    if (m_outer->isCancelled())
        return finish({UpstreamFailure::Cancelled, {}, 0});
    Q_EMIT m_outer->started(0);
    switch (m_rule.kind) {
    case Kind::Status:
    case Kind::Garbage: {
        const FaultAnswer answer = m_rule.kind == Kind::Status
            ? statusAnswer(m_rule, m_context.style, m_context.wallMs) : garbageAnswer(m_context.passThrough);
        Q_EMIT m_outer->headersReceived(answer.status, answer.headers);
        Q_EMIT m_outer->bodyReceived(answer.body);
        finish({UpstreamFailure::None, {}, answer.status});
        break;
    }
    case Kind::Reset:
        finish({UpstreamFailure::Unreachable, QStringLiteral("Connection reset by peer (fault injected by Breakwater)"), 0});
        break;
    case Kind::Hang:
        // Nothing comes; the request's timeout is our --timeout, as the pool's gap timer has it.
        connect(&m_timer, &QTimer::timeout, this, [this] { finish({UpstreamFailure::Timeout, {}, 0}); });
        m_timer.start(m_timeout);
        break;
    default:
        break;
    }
}

void FaultCall::follow(UpstreamCall *inner)
{
    inner->setParent(this);
    m_inner = inner;
    connect(inner, &UpstreamCall::started, this, [this](qint64 waited) {
        if (!m_finished)
            Q_EMIT m_outer->started(waited);
        if (m_rule.kind != Kind::Delay)
            return;
        // A first byte later than the timeout is a timeout, as it would be from the provider.
        m_gateOpen = false;
        if (m_rule.duration >= m_timeout) {
            connect(&m_timer, &QTimer::timeout, this, [this] { endEarly({UpstreamFailure::Timeout, {}, 0}); });
            m_timer.start(m_timeout);
        } else {
            connect(&m_timer, &QTimer::timeout, this, &FaultCall::openGate);
            m_timer.start(m_rule.duration);
        }
    });
    connect(inner, &UpstreamCall::headersReceived, this, &FaultCall::onHeaders);
    connect(inner, &UpstreamCall::bodyReceived, this, &FaultCall::onBody);
    connect(inner, &UpstreamCall::finished, this, &FaultCall::onInnerFinished);
    if (m_rule.kind == Kind::SlowStream)
        connect(&m_timer, &QTimer::timeout, this, &FaultCall::step);
}

void FaultCall::onHeaders(int status, const HeaderList &headers)
{
    if (m_stopped || m_finished)
        return;
    m_status = status;
    m_eventStream = isEventStream(headers);
    if (!m_gateOpen) {
        m_heldHeaders = {status, headers};
        return;
    }
    Q_EMIT m_outer->headersReceived(status, headers);
    if (m_eventStream && m_rule.events == 0 && (m_rule.kind == Kind::Cut || m_rule.kind == Kind::ErrorEvent))
        relayEvent({});   // "after 0 events": at once
}

void FaultCall::onBody(const QByteArray &piece)
{
    if (m_stopped || m_finished)
        return;
    if (!m_gateOpen) {
        m_heldBody += piece;
        return;
    }
    if (!m_eventStream || m_rule.kind == Kind::Delay) {
        Q_EMIT m_outer->bodyReceived(piece);
        return;
    }
    for (const QByteArray &event : completeEvents(piece)) {
        if (m_stopped)
            break;
        if (m_rule.kind == Kind::SlowStream) {
            m_heldEvents.append(event);
            if (!m_timer.isActive())
                m_timer.start(std::min(m_rule.duration, m_timeout));
        } else {
            relayEvent(event);
        }
    }
}

// Cut and error-event: the event goes out, and after the rule's number of them the stream ends.
// The stream's final event ([DONE], message_stop, response.completed) never goes out before the
// fault: a rule whose count reaches it or goes past it fires in its place, so no error follows a
// complete stream (and none sits in a cached answer).
void FaultCall::relayEvent(const QByteArray &event)
{
    if (!event.isEmpty()) {
        StreamVerdict after = m_relayed;
        after.feed(event);
        if (after.state() == StreamVerdict::State::Complete && m_relayed.state() == StreamVerdict::State::Open)
            return fire();
        m_relayed = after;
        Q_EMIT m_outer->bodyReceived(event);
        ++m_eventsOut;
    }
    if (m_eventsOut < m_rule.events)
        return;
    fire();
}

void FaultCall::fire()
{
    if (m_rule.kind == Kind::Cut) {
        endEarly({UpstreamFailure::Cut,
                  QStringLiteral("the connection dropped after %1 event(s) (fault injected by Breakwater)").arg(m_eventsOut),
                  m_status});
    } else {
        Q_EMIT m_outer->bodyReceived(streamErrorEvent(m_context.style, m_context.route, m_eventsOut));
        endEarly({UpstreamFailure::None, {}, m_status});
    }
}

// Nothing more of the real answer goes out: the real call is cancelled, and this one ends as
// `result` once the real one has ended.
void FaultCall::endEarly(UpstreamResult result)
{
    if (m_stopped || m_finished)
        return;
    m_stopped = true;
    m_endWith = std::move(result);
    m_heldEvents.clear();
    m_timer.stop();
    if (m_innerResult)
        finish(*m_endWith);
    else if (UpstreamCall *inner = m_inner.data())   // read once: GCC 12 saw a store through a null re-read
        inner->cancel();
}

void FaultCall::onInnerFinished(const UpstreamResult &result)
{
    m_innerResult = result;
    if (m_endWith)
        return finish(*m_endWith);
    if (!m_gateOpen || !m_heldEvents.isEmpty())
        return;   // the rest goes out when the gate opens or the last held event is out
    if (!m_partial.isEmpty() && !m_stopped)
        Q_EMIT m_outer->bodyReceived(std::exchange(m_partial, {}));
    finish(result);
}

void FaultCall::openGate()
{
    m_gateOpen = true;
    if (m_heldHeaders)
        Q_EMIT m_outer->headersReceived(m_heldHeaders->first, m_heldHeaders->second);
    if (!m_heldBody.isEmpty())
        Q_EMIT m_outer->bodyReceived(std::exchange(m_heldBody, {}));
    if (m_innerResult)
        finish(*m_innerResult);
}

// Slow-stream: one held event goes out per gap; a gap as long as the timeout is a timeout.
void FaultCall::step()
{
    if (m_rule.duration >= m_timeout)
        return endEarly({UpstreamFailure::Timeout, {}, m_status});
    if (!m_heldEvents.isEmpty())
        Q_EMIT m_outer->bodyReceived(m_heldEvents.takeFirst());
    if (!m_heldEvents.isEmpty()) {
        m_timer.start(m_rule.duration);
        return;
    }
    if (m_innerResult) {
        if (!m_partial.isEmpty())
            Q_EMIT m_outer->bodyReceived(std::exchange(m_partial, {}));
        finish(*m_innerResult);
    }
}

void FaultCall::poll()
{
    if (m_finished)
        return;
    const bool stopping = m_pool && m_pool->isStopping();
    if (!m_outer->isCancelled() && !stopping)
        return;
    const UpstreamResult result{stopping ? UpstreamFailure::Shutdown : UpstreamFailure::Cancelled, {}, 0};
    if (!m_inner || m_innerResult)
        finish(result);     // nothing real runs (or it is over): end now
    else
        endEarly(result);   // the real call is ended too, and this one after it
}

void FaultCall::finish(const UpstreamResult &result)
{
    if (m_finished)
        return;
    m_finished = true;
    m_timer.stop();
    m_poll.stop();
    qCDebug(lcFaultCall) << m_rule.label() << "ended" << int(result.failure) << result.status;
    Q_EMIT m_outer->finished(result);
}

// The event-stream bytes of `piece` cut into whole events (each with the bytes before it that
// dispatched nothing, comments and pings without data); the start of an event whose end has not
// come yet waits in m_partial. The standard's parser decides where an event ends.
QList<QByteArray> FaultCall::completeEvents(const QByteArray &piece)
{
    QList<QByteArray> events;
    qsizetype from = 0;
    const auto take = [&](qsizetype end) {
        const QByteArrayView bytes(piece.constData() + from, end - from);
        const qint64 before = m_parser.dispatched();
        m_parser.feed(bytes, [](const ServerSentEvent &) {});
        m_partial += bytes;
        from = end;
        if (m_parser.dispatched() != before)
            events.append(std::exchange(m_partial, {}));
    };
    for (qsizetype i = 0; i < piece.size(); ++i) {
        if (piece[i] == '\n' || piece[i] == '\r')
            take(i + 1);
    }
    take(piece.size());
    return events;
}
