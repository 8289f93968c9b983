#include "http/streamverdict.h"

#include <utility>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

using namespace Qt::StringLiterals;

namespace {

QJsonObject objectOf(const QByteArray &data)
{
    return QJsonDocument::fromJson(data).object();
}

QByteArray utf8(const QJsonValue &value)
{
    return value.isString() ? value.toString().toUtf8() : QByteArray();
}

// An error object in any provider's shape: {type, code, message} (OpenAI, the Responses API's
// response.error and bare error event) or {type, message} (Anthropic).
StreamError errorFrom(const QByteArray &event, const QJsonObject &error)
{
    return {event, utf8(error.value(u"type")), utf8(error.value(u"code")),
            error.value(u"message").toString()};
}

} // namespace

QByteArray StreamError::what() const
{
    if (!code.isEmpty())
        return code;
    return type.isEmpty() ? QByteArrayLiteral("unknown") : type;
}

bool StreamError::isRateLimit() const
{
    return type.contains("rate_limit") || code.contains("rate_limit");
}

void StreamVerdict::feed(QByteArrayView piece)
{
    if (m_state != State::Open)
        return;   // decided: the rest is relayed, never judged
    m_parser.feed(piece, [this](const ServerSentEvent &event) { judge(event); });
}

void StreamVerdict::judge(const ServerSentEvent &event)
{
    if (m_state != State::Open)
        return;   // a piece may hold events after the deciding one
    if (!m_sawContent)
        m_sawContent = isContent(event);
    if (event.type != "message") {
        judgeNamed(event.type, event.data);
        if (m_state == State::Failed)
            m_errorData = event.data;
        return;
    }
    // A data-only event: OpenAI's chunks and its [DONE], or an API that names its events only in
    // their data. Only a chunk that could carry an error or a type is parsed; the others (nearly
    // all, the text deltas) are not.
    if (event.data == "[DONE]") {
        m_state = State::Complete;
        return;
    }
    if (!event.data.contains("\"error\"") && !event.data.contains("\"type\"") && !event.data.contains("\"finishReason\""))
        return;
    const QJsonObject data = objectOf(event.data);
    // Gemini: the chunk whose candidate carries a finishReason is the last.
    for (const QJsonValue &candidate : data.value(u"candidates"_s).toArray()) {
        if (!candidate.toObject().value(u"finishReason"_s).toString().isEmpty()) {
            m_state = State::Complete;
            return;
        }
    }
    if (const QJsonValue error = data.value(u"error"); error.isObject()) {
        fail(errorFrom(event.type, error.toObject()));
        m_errorData = event.data;
        return;
    }
    const QByteArray named = utf8(data.value(u"type"));
    if (!named.isEmpty() && named != "message")
        judgeNamed(named, event.data);
    if (m_state == State::Failed)
        m_errorData = event.data;
}

bool StreamVerdict::isContent(const ServerSentEvent &event)
{
    // Anthropic's content_block_delta and the Responses API's *.delta (text, function-call
    // arguments, reasoning) carry the model's output; their start and ping events do not.
    const auto namedContent = [](QByteArrayView type) {
        return type == "content_block_delta" || type.endsWith(".delta");
    };
    if (event.type != "message")
        return namedContent(event.type);
    if (event.data == "[DONE]")
        return false;
    const QJsonObject data = objectOf(event.data);
    if (const QByteArray named = utf8(data.value(u"type")); !named.isEmpty())
        return namedContent(named);
    // OpenAI chat: a delta with text, a tool call or reasoning (the first chunk has only the role);
    // completions: a choice with text.
    const QJsonObject choice = data.value(u"choices").toArray().at(0).toObject();
    const QJsonObject delta = choice.value(u"delta").toObject();
    return !delta.value(u"content").toString().isEmpty() || !delta.value(u"tool_calls").toArray().isEmpty()
        || !delta.value(u"reasoning_content").toString().isEmpty() || !choice.value(u"text").toString().isEmpty();
}

void StreamVerdict::judgeNamed(QByteArrayView type, const QByteArray &data)
{
    if (type == "message_stop" || type == "response.completed") {
        m_state = State::Complete;
    } else if (type == "error") {
        // Anthropic nests the error ({"type":"error","error":{...}}); the Responses API's bare
        // error event carries code and message at the top, where "type" is the event's.
        const QJsonObject object = objectOf(data);
        const QJsonValue nested = object.value(u"error");
        StreamError error = errorFrom("error", nested.isObject() ? nested.toObject() : object);
        if (!nested.isObject())
            error.type.clear();
        fail(error);
    } else if (type == "response.failed") {
        const QJsonObject response = objectOf(data).value(u"response").toObject();
        fail(errorFrom("response.failed", response.value(u"error").toObject()));
    } else if (type == "response.incomplete") {
        const QJsonObject response = objectOf(data).value(u"response").toObject();
        const QByteArray reason = utf8(response.value(u"incomplete_details").toObject().value(u"reason"));
        fail({"response.incomplete", {}, reason,
              u"The response is incomplete (%1)."_s.arg(QString::fromUtf8(reason.isEmpty() ? "no reason given" : reason))});
    }
}

void StreamVerdict::fail(StreamError error)
{
    m_error = std::move(error);
    m_state = State::Failed;
}
