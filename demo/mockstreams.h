#pragma once

#include <QByteArray>
#include <QJsonObject>
#include <QList>
#include <QString>

#include "http/apierror.h"

// The server-sent-event side of the mock's answers: how one event is framed, how a reply is cut
// into deltas, the pings Anthropic interleaves and the error real providers put inside a 200 stream.
// Each event is one whole SSE event (ending in a blank line) that MockProvider sends as one chunk.
namespace mockanswers {

// `data: {json}` (OpenAI chat and legacy completions).
QByteArray dataEvent(const QJsonObject &object);
// `event: NAME` + `data: {json}` (Anthropic messages, the Responses API).
QByteArray namedEvent(const QByteArray &name, const QJsonObject &object);

// Splits a reply into at least three non-empty pieces at word starts; joined they give the reply.
// A quoted piece of SSE framing ("data: [DONE]", "event: message_stop") stays inside one piece,
// so a stream whose text quotes it really carries it, JSON-escaped, inside one delta.
QList<QString> streamPieces(const QString &reply);

// Anthropic's `event: ping` between every two events of a stream.
QList<QByteArray> withPings(const QList<QByteArray> &events);
QByteArray pingEvent();

// What an overloaded provider says, as an HTTP error (503, 529) or inside a stream that has
// already begun with 200 (529: Anthropic overloaded_error, OpenAI server_error).
ApiError overloadedError(int status = 529);

} // namespace mockanswers
