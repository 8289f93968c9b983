#pragma once

#include <QByteArray>
#include <QList>
#include <QPair>
#include <QString>

#include "message.h"

// Errors are values at boundaries: every error Breakwater itself answers is described by an ApiError
// and rendered in the shape of the API the route belongs to, so the official SDKs parse it.

enum class ApiStyle { OpenAI, Anthropic, Gemini };

using HeaderList = QList<QPair<QByteArray, QByteArray>>;

struct ApiError
{
    int status = 500;
    QByteArray type;    // OpenAI error.type, e.g. "invalid_request_error"
    QByteArray code;    // OpenAI error.code, e.g. "breaker_open"; empty renders as null
    Message message;    // a QString converts: a plain message
    int retryAfterSeconds = -1;  // >= 0 adds a retry-after header

    static ApiError badRequest(const QString &message);
    static ApiError notFound(const QString &message);
    static ApiError bodyTooLarge(qint64 limit);
    static ApiError headersTooLarge(qint64 limit);
    static ApiError upstreamUnreachable(const QString &detail);
    static ApiError upstreamTimeout(double seconds);
    static ApiError upstreamCut(const QString &detail);
    static ApiError queueFull(int limit);
};

// The error body in the route's own shape (OpenAI: {"error":{message,type,param,code}}, and when
// the message is one of Breakwater's own sentences, "breakwater_message": Message::toJson(), which
// a window attached to this Breakwater shows in its own language;
// Anthropic: {"type":"error","error":{type,message},"request_id":null}; Gemini:
// {"error":{code,message,status}}, code the HTTP status and status Google's word for it).
QByteArray errorBody(ApiStyle style, const ApiError &error);
// Where an OpenAI-shaped error body keeps its sentence (read back with messageIn).
inline const QString kSentenceField = QStringLiteral("breakwater_message");

// A streamed error event in the route's own shape, so an SDK reading a stream throws instead of
// taking a cut stream for a clean end.
QByteArray errorEvent(ApiStyle style, const ApiError &error);

// Headers every error Breakwater itself makes carries: never let an SDK retry what we refused.
HeaderList errorHeaders(const ApiError &error);

// Anthropic's error type for a status (invalid_request_error, overloaded_error, ...).
QByteArray anthropicErrorType(int status);
// Gemini's (google.rpc) status for an HTTP status (INVALID_ARGUMENT, RESOURCE_EXHAUSTED, UNAVAILABLE, ...).
QByteArray geminiErrorStatus(int status);
