#pragma once

#include <QByteArray>
#include <QList>
#include <QString>

#include "http/apierror.h"

// The bodies and stream events MockProvider answers with, built from the request alone so that the
// same request always gets the same text ("echo: <last user message>") and different prompts get
// different answers. Only ids and `created` vary between calls, so a test can tell a cached or
// shared answer (same id) from a fresh upstream call. No sockets, no timing: that is MockProvider's.
namespace mockanswers {

enum class Route { ChatCompletions, Completions, Embeddings, Messages, Models, Unknown };

// A method mismatch on a known path is Unknown too (404, as Qt's own router does).
Route routeFor(const QByteArray &method, const QString &path);
ApiStyle styleFor(Route route);

struct Answer
{
    int status = 200;
    HeaderList headers;           // Content-Type and friends; never Content-Length or framing
    QByteArray body;              // a complete answer (empty when streaming)
    QList<QByteArray> events;     // a stream: each entry is one whole SSE event, sent as one chunk

    bool isStream() const { return !events.isEmpty(); }
};

// What a healthy provider answers: JSON or an SSE stream; 400 for a body that is not a JSON object,
// 404 for an unknown route. `sequence` makes the response id unique.
Answer normalAnswer(Route route, const QByteArray &body, quint64 sequence);

// An error in the route's shape: 503 (OpenAI server_error / Anthropic overloaded_error) or
// 429 (rate limit, with retry-after: 1).
Answer errorAnswer(Route route, int status);

// A 200 that claims JSON but is not.
Answer garbageAnswer();

} // namespace mockanswers
