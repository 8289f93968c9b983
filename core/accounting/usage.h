#pragma once

#include <QByteArray>
#include <QJsonDocument>
#include <QJsonObject>

#include "http/apierror.h"

// Token counts of one upstream call, read from the `usage` the provider sends back. The spend guard
// settles with them, the call log stores them, and the price table turns them into dollars.
//
// One meaning for both providers: inputTokens is every prompt token billed (cached ones included),
// cachedTokens the part of it read from the provider's prompt cache, outputTokens every generated
// token (reasoning tokens included). -1 means the provider did not say (a stream without
// include_usage, or one cut before its usage arrived).
struct Usage
{
    qint64 inputTokens = -1;
    qint64 outputTokens = -1;
    qint64 cachedTokens = -1;

    bool known() const { return inputTokens >= 0 && outputTokens >= 0; }
};

// The largest token count believed: 2^53, the last whole number a JSON double holds exactly (and far
// beyond any real call). A larger count from a provider reads as -1, not said; a larger max_tokens
// in a request is reserved as this many.
inline constexpr qint64 kMaxTokenCount = qint64(1) << 53;

// Reads the usage from a complete answer body. For a stream, `body` is the whole event sequence:
// OpenAI sends usage on one chunk near the end (only with stream_options.include_usage), the
// Responses API in the `response` of its response.completed event (usage.input_tokens, ...);
// Anthropic sends input counts in message_start and cumulative output counts in message_delta;
// Gemini sends usageMetadata on every chunk, cumulative (the last one counts).
Usage parseUsage(ApiStyle style, const QByteArray &body, bool stream);
// The same for a non-streamed answer already parsed (the flight parses each answer once).
Usage parseUsage(ApiStyle style, const QJsonDocument &answer);

// The output tokens a request allows in all: max_tokens (chat, completions, Anthropic),
// max_completion_tokens (chat) or max_output_tokens (Responses), or kDefaultMaxOutputTokens when it
// sets none, times the completions it asks for: OpenAI's `n`, or `best_of` (completions), which
// generates and bills that many server-side and returns the best. The spend guard reserves for this
// many. A request without a max may generate more than the default (up to the model's own limit):
// it is charged what it really cost, so spend can pass the cap by that difference.
qint64 requestedMaxTokens(const QJsonObject &body);
inline constexpr qint64 kDefaultMaxOutputTokens = 4096;

// A rough count of a request's input tokens before it is sent: one token per 4 bytes of the JSON
// body, rounded up. English text runs about 4 characters a token and the JSON punctuation pads the
// count, so this errs high for English; dense non-Latin text can exceed it. Good enough to reserve
// spend, never to bill (billing uses the provider's usage).
qint64 estimateInputTokens(const QByteArray &body);
