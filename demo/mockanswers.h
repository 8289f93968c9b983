#pragma once

#include <QByteArray>
#include <QList>
#include <QString>

#include "http/apierror.h"

// The bodies and stream events MockProvider answers with, built from the request alone so that the
// same request always gets the same text ("echo: <last user message>") and different prompts get
// different answers. Only ids and `created` vary between calls, so a test can tell a cached or
// shared answer (same id) from a fresh upstream call. No sockets, no timing: that is MockProvider's.
// The Responses API is in mockresponses.h, the other routes in mockextras.h.
namespace mockanswers {

class ResponseStore;

enum class Route {
    // OpenAI
    ChatCompletions, Completions, Embeddings, Models, Model,
    Responses, ResponseGet, ResponseDelete, ResponseInputItems, ResponseCancel,
    Files, ImageEdits, AudioTranscriptions,   // uploads: the answer describes the bytes received
    FileList, Moderations, ImageGenerations, BatchCreate, BatchList, BatchGet,
    // Anthropic
    Messages, CountTokens, AnthropicModels, AnthropicModel,
    MessageBatchCreate, MessageBatchList, MessageBatchGet,
    AnthropicFiles, AnthropicFileList,   // the Files API (beta): an upload and the list
    // Gemini (mockgemini.h)
    GeminiGenerate, GeminiStream, GeminiCountTokens, GeminiModels, GeminiModel,
    Unknown
};

// A method mismatch on a known path is Unknown too (404, as Qt's own router does). GET /v1/models
// (and /v1/models/{id}) and /v1/files (POST upload, GET list) are Anthropic's when the request
// carries `anthropic-version`.
Route routeFor(const QByteArray &method, const QString &path, const HeaderList &headers = {});
ApiStyle styleFor(Route route);

// One request as the answers see it.
struct Call
{
    Route route = Route::Unknown;
    QString path;            // without the query
    HeaderList headers;
    QByteArray body;
    quint64 sequence = 0;    // makes ids unique
};

// The ways a 200 goes wrong inside its body, as real providers' do. ErrorEvent: a stream begins and
// then carries an error (Anthropic `event: error`, an OpenAI `{"error":...}` chunk, Responses
// `response.failed`). BareErrorEvent: the same, but a Responses stream ends in `event: error`
// (code server_is_overloaded). Incomplete: a Responses answer stops at max_output_tokens
// (`response.incomplete`, status "incomplete"). Pings: an Anthropic stream has `event: ping`
// between every two events. A variant that does not apply to a route leaves its answer normal.
enum class Variant { Normal, ErrorEvent, BareErrorEvent, Incomplete, Pings };

struct Answer
{
    int status = 200;
    HeaderList headers;           // Content-Type and friends; never Content-Length or framing
    QByteArray body;              // a complete answer (empty when streaming)
    QList<QByteArray> events;     // a stream: each entry is one whole SSE event, sent as one chunk

    bool isStream() const { return !events.isEmpty(); }
};

// What a healthy provider answers: JSON or an SSE stream; 400 for a body that is not a JSON object,
// 404 for an unknown route. Responses are remembered in (and looked up from) `store`.
Answer normalAnswer(const Call &call, ResponseStore *store = nullptr, Variant variant = Variant::Normal);

// An error in the route's shape: 503 or 529 (OpenAI server_error / Anthropic overloaded_error) or
// 429 (rate limit, with retry-after: 1).
Answer errorAnswer(Route route, int status);

// A 429 as OpenAI sends it: retry-after-ms 1500 (and retry-after 2) with the rate-limit headers of
// the route's API (x-ratelimit-* or anthropic-ratelimit-*) saying none are left.
Answer rateLimitedMsAnswer(Route route);

// A 200 that claims JSON but is not.
Answer garbageAnswer();

} // namespace mockanswers
