#pragma once

#include <QByteArray>
#include <QByteArrayView>
#include <QString>

#include "http/eventstream.h"

// What a streamed LLM answer says of its own end, read from its parsed events as they arrive, for
// any of the APIs Breakwater proxies and without knowing which route it came from:
//   complete  `data: [DONE]` (OpenAI chat and completions), Anthropic's `message_stop`, the
//             Responses API's `response.completed`, Gemini's chunk with a candidate's `finishReason`;
//   failed    an `error` event (Anthropic, and the Responses API's bare error), a data chunk whose
//             top-level "error" is an object (OpenAI's error inside a 200 stream), the Responses
//             API's `response.failed` and `response.incomplete`;
//   open      anything else so far, e.g. a stream cut before its end. `ping` and every other
//             event decide nothing.
// The first of those events decides; what follows it changes nothing. Only events decide, never
// the text: a model writing "event: message_stop" writes it inside a JSON string of a data line.
//
// Fed every piece of every stream the proxy relays, so it stays cheap: it parses the JSON of an
// event only when the event is an error or failure, or is a data-only event that could be one.
// Not thread-safe; owned by the flight that reads the stream.

// What the provider said went wrong, as it said it.
struct StreamError
{
    QByteArray event;   // the event that said it: "error", "response.failed", "response.incomplete", "message"
    QByteArray type;    // e.g. "overloaded_error" (Anthropic), "server_error" (OpenAI)
    QByteArray code;    // e.g. "server_is_overloaded", "rate_limit_exceeded"; for response.incomplete its reason
    QString message;

    // The code, else the type, else "unknown": the one word for the log.
    QByteArray what() const;
    // A rate limit (rate_limit_error, rate_limit_exceeded), which like a 429 says nothing of the
    // provider's health.
    bool isRateLimit() const;
    // response.incomplete: the answer stopped at the request's own limit (max_output_tokens) or a
    // content filter; the provider itself is well.
    bool isIncomplete() const { return event == "response.incomplete"; }
};

class StreamVerdict
{
public:
    enum class State { Open, Complete, Failed };

    // Reads the next piece of the stream, split anywhere.
    void feed(QByteArrayView piece);

    State state() const { return m_state; }
    // With Failed: what the provider said.
    const StreamError &error() const { return m_error; }
    // With Failed: the data of the event that said it, as it came (the call log's error body).
    const QByteArray &errorData() const { return m_errorData; }
    qint64 events() const { return m_parser.dispatched(); }
    // An event with content came (a text, tool-call or reasoning delta; not a role or a ping):
    // the model's first token, for the time to first token. Data-only chunks are parsed for it
    // only until the first one.
    bool sawContent() const { return m_sawContent; }

private:
    void judge(const ServerSentEvent &event);
    void judgeNamed(QByteArrayView type, const QByteArray &data);
    void fail(StreamError error);
    static bool isContent(const ServerSentEvent &event);

    EventStreamParser m_parser;
    State m_state = State::Open;
    StreamError m_error;
    QByteArray m_errorData;
    bool m_sawContent = false;
};
