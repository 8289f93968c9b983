#include "sharing/flight.h"

#include "clock.h"
#include "http/protocol.h"

#include <QJsonDocument>
#include <QJsonParseError>

Flight::Flight(const QByteArray &key, ApiStyle style, double timeoutSeconds, const Clock &clock,
               QObject *parent)
    : QObject(parent), m_key(key), m_style(style), m_timeoutSeconds(timeoutSeconds), m_clock(clock)
{
}

void Flight::follow(UpstreamCall *call)
{
    call->setParent(this);
    connect(call, &UpstreamCall::started, this, [this](qint64 waited) {
        m_queueWaitMs = waited;
        m_upstreamStartAtMs = m_clock.wallMs();
    });
    connect(call, &UpstreamCall::headersReceived, this, &Flight::onHeaders);
    connect(call, &UpstreamCall::bodyReceived, this, &Flight::onBody);
    connect(call, &UpstreamCall::finished, this, &Flight::onFinished);
}

HeaderList riderHeaders(const HeaderList &upstream, const HeaderList &own)
{
    HeaderList headers;
    headers.reserve(upstream.size() + own.size());
    for (const auto &[name, value] : upstream) {
        if (name.compare("x-request-id", Qt::CaseInsensitive) == 0)
            headers.append({"x-upstream-request-id", value});
        else
            headers.append({name, value});
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
    for (const auto &[name, value] : headers) {
        // A pass-through's event stream is another API's (Assistants runs, ...): relayed, not judged.
        if (name.compare("content-type", Qt::CaseInsensitive) == 0)
            m_streaming = !m_passThrough && value.contains("text/event-stream");
    }
    m_relaying = m_streaming || m_relayAll;
    if (m_relaying) {
        for (Rider &rider : m_riders)
            beginRiderStream(rider);
    }
}

void Flight::onBody(const QByteArray &piece)
{
    if (!m_passThrough)
        m_body += piece;
    else if (m_body.size() < kKeptBytes)
        m_body += piece.left(kKeptBytes - m_body.size());
    if (!m_relaying)
        return;
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
        QJsonDocument::fromJson(m_body, &error);
        m_garbage = error.error != QJsonParseError::NoError;
    }
    Q_EMIT upstreamFinished(this);
}

bool Flight::hasFinalEvent() const
{
    if (m_style == ApiStyle::Anthropic)
        return m_body.contains("event: message_stop") || m_body.contains("event: error");
    const QByteArray tail = m_body.right(64).trimmed();
    // A Responses stream ends at response.completed, with no [DONE] (until the event parser).
    return tail.endsWith("data: [DONE]") || tail.endsWith("data:[DONE]") || m_body.contains("event: response.completed");
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
    }
    if (m_garbage)
        return ApiError{502, "upstream_error", "invalid_upstream_answer",
                        QStringLiteral("The upstream answered 2xx with a body that is not valid JSON.")};
    return std::nullopt;
}

BreakerVerdict Flight::breakerVerdict() const
{
    using Kind = BreakerVerdict::Kind;
    switch (m_result.failure) {
    case UpstreamFailure::Timeout: return {Kind::Failure, QStringLiteral("timeout")};
    case UpstreamFailure::Cut: return {Kind::Failure, QStringLiteral("stream cut")};
    case UpstreamFailure::Unreachable: return {Kind::Failure, QStringLiteral("unreachable")};
    case UpstreamFailure::Shutdown: return {};
    case UpstreamFailure::None: break;
    }
    if (m_garbage)
        return {Kind::Failure, QStringLiteral("invalid answer")};
    if (m_status >= 500)
        return {Kind::Failure, QStringLiteral("HTTP %1").arg(m_status)};
    if (m_status == 429)
        return {};   // a rate limit is passed on to the riders, but is no verdict on health
    return {Kind::Success, {}};
}

bool Flight::isCacheable() const
{
    return m_result.failure == UpstreamFailure::None && isSuccess(m_status) && !m_garbage;
}

void Flight::setUsage(const Usage &usage, std::optional<double> costUsd)
{
    m_usage = usage;
    m_costUsd = costUsd;
}

void Flight::release()
{
    for (Rider &rider : m_riders)
        finishRider(rider);
    m_riders.clear();
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
            // Never a clean end the SDK would take for success: an error event first.
            if (!m_body.endsWith("\n\n"))
                rider.writer.writeChunk("\n\n");
            rider.writer.writeChunk(errorEvent(m_style, *error));
            rider.writer.endStream();
            record.status = m_status;
        } else {
            rider.writer.writeError(m_style, *error, rider.extraHeaders);
        }
    }
    if (!rider.writer.isConnected() && rider.writer.bytesWritten() == 0)
        record.errorKind = "client_closed";
    record.endAtMs = m_clock.wallMs();
    Q_EMIT riderFinished(record);
}
