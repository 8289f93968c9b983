#include "sharing/flight.h"

#include <algorithm>

#include <QJsonDocument>
#include <QJsonParseError>
#include <QTcpSocket>

#include "accounting/callinspection.h"
#include "clock.h"
#include "http/protocol.h"

using namespace Qt::StringLiterals;

namespace {

// The record's error kind names the event and the provider's own word for it, e.g.
// "stream_error_event:overloaded_error"; riders never see this error, they have the provider's.
ApiError inStreamError(const StreamError &error)
{
    QByteArray kind = "stream_error_event";
    if (error.event == "response.failed")
        kind = "stream_response_failed";
    else if (error.isIncomplete())
        kind = "stream_response_incomplete";
    const QString message = error.message.isEmpty()
        ? QStringLiteral("The upstream's stream ended with %1.").arg(QString::fromUtf8(error.event))
        : error.message;
    return {502, error.type.isEmpty() ? QByteArrayLiteral("upstream_error") : error.type,
            kind + ':' + error.what(), message};
}

} // namespace

Flight::Flight(const QByteArray &key, ApiStyle style, double timeoutSeconds, const Clock &clock,
               QObject *parent)
    : QObject(parent), m_key(key), m_style(style), m_timeoutSeconds(timeoutSeconds), m_clock(clock)
{
}

void Flight::follow(UpstreamCall *call)
{
    call->setParent(this);
    m_call = call;
    connect(call, &UpstreamCall::started, this, [this](qint64 waited) {
        m_queueWaitMs = waited;
        m_upstreamStartAtMs = m_clock.wallMs();
        m_started = true;
    });
    connect(call, &UpstreamCall::headersReceived, this, &Flight::onHeaders);
    connect(call, &UpstreamCall::bodyReceived, this, &Flight::onBody);
    connect(call, &UpstreamCall::finished, this, &Flight::onFinished);
}

HeaderList riderHeaders(const HeaderList &upstream, const HeaderList &own)
{
    const auto ours = [&own](const QByteArray &name) {
        if (name.compare("x-request-id", Qt::CaseInsensitive) == 0)
            return true;
        return std::any_of(own.cbegin(), own.cend(), [&name](const auto &header) {
            return header.first.compare(name, Qt::CaseInsensitive) == 0;
        });
    };
    HeaderList headers;
    headers.reserve(upstream.size() + own.size());
    for (const auto &[name, value] : upstream) {
        if (!ours(name)) {
            headers.append({name, value});
            continue;
        }
        const QByteArray lower = name.toLower();   // x-request-id -> x-upstream-request-id
        headers.append({"x-upstream-" + (lower.startsWith("x-") ? lower.sliced(2) : lower), value});
    }
    headers += own;
    return headers;
}

void Flight::setPassThrough(bool relay)
{
    m_passThrough = true;
    m_relayAll = relay;
}

void Flight::addRider(Rider rider)
{
    m_riders.append(std::move(rider));
    Rider &added = m_riders.last();
    if (!m_injected.isEmpty()) {
        added.record.injected = m_injected;
        added.extraHeaders.append({"x-breakwater-fault", m_injected.toUtf8()});
    }
    // A rider who hangs up only leaves; when the last one has, Sharing may cancel the call.
    if (QTcpSocket *socket = added.writer.socket())
        connect(socket, &QAbstractSocket::disconnected, this, &Flight::onRiderLeft);
    if (m_relaying)
        beginRiderStream(added);
    if (m_finished)
        finishRider(added);
}

void Flight::beginRiderStream(Rider &rider)
{
    rider.writer.beginStream(m_status, riderHeaders(m_headers, rider.extraHeaders));
    rider.writer.writeChunk(m_body);   // everything received so far, then the live pieces
}

void Flight::onHeaders(int status, const HeaderList &headers)
{
    m_headersReceived = true;
    m_firstByteAtMs = m_clock.wallMs();
    m_status = status;
    m_headers = headers;
    // A pass-through's event stream is another API's (Assistants runs, ...): relayed, not judged.
    m_streaming = !m_passThrough && isEventStream(headers);
    m_relaying = m_streaming || m_relayAll;
    if (m_relaying) {
        for (Rider &rider : m_riders)
            beginRiderStream(rider);
    }
}

void Flight::onBody(const QByteArray &piece)
{
    m_bytesReceived += piece.size();
    if (!m_passThrough)
        m_body += piece;
    else if (m_body.size() < kKeptBytes)
        m_body += piece.left(kKeptBytes - m_body.size());
    if (!m_relaying)
        return;
    if (m_streaming) {
        m_verdict.feed(piece);
        m_timing.observe(m_verdict, m_clock.wallMs());
    }
    for (Rider &rider : m_riders)
        rider.writer.writeChunk(piece);
}

void Flight::onFinished(const UpstreamResult &result)
{
    m_result = result;
    m_finished = true;
    // Qt reports a chunked answer whose connection closed mid-way as a clean finish, so a stream is
    // judged by its content: complete only with its API's final event.
    if (result.failure == UpstreamFailure::None && m_streaming && isSuccess(m_status) && !hasFinalEvent()) {
        m_result.failure = UpstreamFailure::Cut;
        m_result.detail = QStringLiteral("the upstream closed the stream before its final event");
    }
    if (result.failure == UpstreamFailure::None && !m_streaming && !m_passThrough && isSuccess(m_status)) {
        QJsonParseError error;
        const QJsonDocument answer = QJsonDocument::fromJson(m_body, &error);
        m_garbage = error.error != QJsonParseError::NoError;
        m_answerUsage = parseUsage(m_style, answer);
    }
    Q_EMIT upstreamFinished(this);
}

Usage Flight::reportedUsage() const
{
    return m_answerUsage ? *m_answerUsage : parseUsage(m_style, m_body, m_streaming);
}

// Its API's last word, a clean end or an error event, from the parsed events: never from text
// in the body, which the model may have written "event: message_stop" into.
bool Flight::hasFinalEvent() const
{
    return m_verdict.state() != StreamVerdict::State::Open;
}

// A 200 stream that carried the provider's error (or a Responses failure) and then ended.
bool Flight::failedInStream() const
{
    return m_result.failure == UpstreamFailure::None && m_streaming && isSuccess(m_status)
        && m_verdict.state() == StreamVerdict::State::Failed;
}

bool Flight::isAbandoned() const
{
    return std::none_of(m_riders.begin(), m_riders.end(), [](const Rider &rider) { return rider.writer.isConnected(); });
}

int Flight::hungUpCount() const
{
    return int(std::count_if(m_riders.begin(), m_riders.end(), [](const Rider &rider) { return !rider.writer.isConnected(); }));
}

void Flight::onRiderLeft()
{
    if (!m_finished && !isCancelled() && isAbandoned()) {
        ++m_abandonments;
        Q_EMIT abandoned(this);
    }
}

bool Flight::hasFailedEarly() const
{
    return m_streaming && m_verdict.state() == StreamVerdict::State::Failed;
}

bool Flight::refusedBeforeAnswering() const
{
    if (m_relaying)
        return false;
    switch (m_result.failure) {
    case UpstreamFailure::Unreachable: return true;
    case UpstreamFailure::Timeout: return !m_headersReceived;
    case UpstreamFailure::None: return m_status == 429 || m_status >= 500;
    default: return false;
    }
}

QList<Flight::Rider> Flight::takeRiders()
{
    for (const Rider &rider : std::as_const(m_riders)) {
        if (QTcpSocket *socket = rider.writer.socket())
            disconnect(socket, nullptr, this, nullptr);
    }
    return std::exchange(m_riders, {});
}

CallRecord Flight::attemptRecord(CallRecord record) const
{
    record.upstreamStartAtMs = m_upstreamStartAtMs;
    record.firstByteAtMs = m_firstByteAtMs;
    record.queueWaitMs = m_queueWaitMs;
    record.costUsd = m_costUsd.value_or(-1);
    const std::optional<ApiError> error = failure();
    record.status = error ? error->status : m_status;
    record.errorKind = error ? error->code : QByteArray();
    if (m_status >= 400)
        record.errorBody = CallInspection::recordErrorBody(m_body);
    if (m_recordBodies)
        record.responseBody = m_body;
    record.endAtMs = m_clock.wallMs();
    return record;
}

void Flight::cancel()
{
    if (m_call && !m_finished)
        m_call->cancel();
}

std::optional<ApiError> Flight::failure() const
{
    switch (m_result.failure) {
    case UpstreamFailure::None:
        break;
    case UpstreamFailure::Timeout:
        return ApiError::upstreamTimeout(m_timeoutSeconds);
    case UpstreamFailure::Cut:
        return ApiError::upstreamCut(m_result.detail);
    case UpstreamFailure::Unreachable:
        return ApiError::upstreamUnreachable(m_result.detail);
    case UpstreamFailure::Shutdown:
        return ApiError{503, "upstream_error", "shutting_down", QStringLiteral("Breakwater is shutting down.")};
    case UpstreamFailure::Cancelled:
        // Nobody hears it (every rider had gone); 499 is nginx's "client closed request", for the log.
        return ApiError{499, "upstream_error", "cancelled",
                        QStringLiteral("Every caller hung up; Breakwater cancelled the upstream call.")};
    }
    if (m_garbage)
        return ApiError{502, "upstream_error", "invalid_upstream_answer",
                        QStringLiteral("The upstream answered 2xx with a body that is not valid JSON.")};
    if (failedInStream())
        return inStreamError(m_verdict.error());
    return std::nullopt;
}

BreakerVerdict Flight::breakerVerdict() const
{
    using Kind = BreakerVerdict::Kind;
    switch (m_result.failure) {
    // Why a call counted against the breaker, in its timeline's reasons (message.h).
    case UpstreamFailure::Timeout: return {Kind::Failure, Message(QT_TRANSLATE_NOOP("Message", "timeout"))};
    case UpstreamFailure::Cut: return {Kind::Failure, Message(QT_TRANSLATE_NOOP("Message", "stream cut"))};
    case UpstreamFailure::Unreachable: return {Kind::Failure, Message(QT_TRANSLATE_NOOP("Message", "unreachable"))};
    case UpstreamFailure::Shutdown: return {};
    case UpstreamFailure::Cancelled: return {};
    case UpstreamFailure::None: break;
    }
    if (m_garbage)
        return {Kind::Failure, Message(QT_TRANSLATE_NOOP("Message", "invalid answer"))};
    if (failedInStream()) {
        const StreamError &error = m_verdict.error();
        if (error.isRateLimit())
            return {};   // the streamed form of a 429
        if (error.isIncomplete())
            return {Kind::Success, {}};   // stopped at the request's own limit: the provider is well
        const QString what = QString::fromUtf8(error.what());
        //: %1 is what the provider said in its stream ("overloaded_error: Overloaded")
        if (error.event == "message")
            return {Kind::Failure, Message(QT_TRANSLATE_NOOP("Message", "error chunk: %1")).arg(what)};
        //: %1 is what the provider said in its stream ("overloaded_error: Overloaded")
        if (error.event == "error")
            return {Kind::Failure, Message(QT_TRANSLATE_NOOP("Message", "error event: %1")).arg(what)};
        return {Kind::Failure, QString(QString::fromUtf8(error.event) + u": "_s + what)};
    }
    if (m_status >= 500)
        return {Kind::Failure, QStringLiteral("HTTP %1").arg(m_status)};   // the wire's words: not translated
    if (m_status == 429)
        return {};   // a rate limit is passed on to the riders, but is no verdict on health
    return {Kind::Success, {}};
}

bool Flight::isCacheable() const
{
    return m_result.failure == UpstreamFailure::None && isSuccess(m_status) && !m_garbage && !failedInStream();
}

void Flight::setUsage(const Usage &usage, std::optional<double> costUsd)
{
    m_usage = usage;
    m_costUsd = costUsd;
}

void Flight::release()
{
    m_released = true;
    for (Rider &rider : m_riders)
        finishRider(rider);
    m_riders.clear();
}

// What the record keeps of the inside of the call, without --log-bodies too: the headers sent, the
// stream's timing and verdict, and the upstream's own error (its body, or its event in a stream).
void Flight::recordInside(CallRecord &record, const ResponseWriter &writer) const
{
    record.responseHeaders = CallInspection::recordHeaders(writer.sentHeaders());
    if (m_streaming) {
        record.eventCount = m_timing.events();
        record.maxEventGapMs = m_timing.maxGapMs();
        record.firstTokenAtMs = m_timing.firstContentAtMs();
        record.streamVerdict = m_timing.verdictName(m_verdict, m_result.failure == UpstreamFailure::None);
    }
    if (m_verdict.state() == StreamVerdict::State::Failed)
        record.errorBody = CallInspection::recordErrorBody(m_verdict.errorData());
    else if (m_status >= 400)
        record.errorBody = CallInspection::recordErrorBody(m_body);
}

void Flight::finishRider(Rider &rider)
{
    CallRecord &record = rider.record;
    record.upstreamStartAtMs = m_upstreamStartAtMs;
    record.firstByteAtMs = m_firstByteAtMs;
    record.queueWaitMs = m_queueWaitMs;
    record.inputTokens = m_usage.inputTokens;
    record.outputTokens = m_usage.outputTokens;
    record.cachedTokens = m_usage.cachedTokens;
    if (m_recordBodies)
        record.responseBody = m_body;
    if (record.outcome == Outcome::Joined)
        record.costSavedUsd = m_costUsd.value_or(0);
    else
        record.costUsd = m_costUsd.value_or(-1);
    const std::optional<ApiError> error = failure();
    if (!error) {
        record.status = m_status;
        if (m_relaying)
            rider.writer.endStream();
        else
            rider.writer.writeComplete(m_status, riderHeaders(m_headers, rider.extraHeaders), m_body);
    } else {
        record.status = error->status;
        record.errorKind = error->code;
        if (rider.writer.isStreaming() && !m_streaming) {
            // A relayed download cut midway: an event inside it would corrupt the file, so the
            // connection is dropped and the client sees a truncated transfer, never a clean end.
            rider.writer.abort();
            record.status = m_status;
        } else if (rider.writer.isStreaming()) {
            // Never a clean end the SDK would take for success: an error event first, unless the
            // stream already carries the provider's own (a second would only confuse the SDK).
            if (m_verdict.state() != StreamVerdict::State::Failed) {
                if (!m_body.endsWith("\n\n"))
                    rider.writer.writeChunk("\n\n");
                rider.writer.writeChunk(errorEvent(m_style, *error));
            }
            rider.writer.endStream();
            record.status = m_status;
        } else {
            rider.writer.writeError(m_style, *error, rider.extraHeaders);
        }
    }
    if (!rider.writer.isConnected() && rider.writer.bytesWritten() == 0)
        record.errorKind = "client_closed";
    recordInside(record, rider.writer);
    record.endAtMs = m_clock.wallMs();
    Q_EMIT riderFinished(record);
}
