#pragma once

#include <QByteArray>
#include <QJsonObject>
#include <QJsonValue>
#include <QList>
#include <QString>

#include "loopbackclient.h"

// Reading what a server wrote, for tests that check the wire: a stream's SSE events (one per chunk,
// as Breakwater and the mock send them), their names and text, and a response's header block
// byte for byte. Also the body of a Responses API request, beside chatBody() and messagesBody().

// One chunk of a stream as one SSE event: its `event:` name (empty for data-only events), its data
// line and that data parsed (empty when it is not a JSON object, as `[DONE]` is not).
struct SseEvent
{
    QByteArray name;
    QByteArray data;
    QJsonObject json;
};

QList<SseEvent> sseEvents(const LoopbackResponse &response);

// Event names in order, each run of one name (the deltas) collapsed to one entry; pings left out
// unless asked for.
QList<QByteArray> eventNames(const QList<SseEvent> &events, bool withPings = true);

// The text of a stream's deltas, whatever the API (chat chunks, Anthropic content_block_delta,
// Responses response.output_text.delta).
QString streamedText(const QList<SseEvent> &events);

// A request with a JSON body, written by hand for rawHead().
QByteArray rawRequest(const QByteArray &method, const QByteArray &path, const QByteArray &body);
// Sends `request` on its own connection and returns the status line and header block exactly as
// the server wrote them (through the blank line). Blocks this thread, so the server must run on
// another (as the mock and the proxy do in the tests).
QByteArray rawHead(quint16 port, const QByteArray &request);

// Every value of a header in a list (case-insensitive name), in the order they came.
QList<QByteArray> headerValues(const HeaderList &headers, const QByteArray &name);

// The error type of an error body in the API's own shape: Anthropic's `error.type` when the body
// is {"type":"error","error":{...}}, OpenAI's `error.type` when its error has all four keys
// (message, type, param, code); empty otherwise.
QString errorTypeOf(const QByteArray &body, ApiStyle style);

// POST /v1/responses: `input` a string or a list of items; `body` adds fields.
QByteArray responsesBody(const QJsonValue &input, bool stream = false, QJsonObject body = {});
