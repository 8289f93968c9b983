#pragma once

#include <QByteArray>

#include "http/apierror.h"

struct FaultRule;

// What an injected fault sends in the provider's place: core's own small answers in each
// provider's wire shape (the demo's mock provider has its own; core never links the demo). A status
// answer is the provider's error body and headers, never Breakwater's: no x-should-retry, the
// provider's request id header, and for a 429 retry-after, retry-after-ms and the provider's
// rate-limit headers. Pure functions.
struct FaultAnswer
{
    int status = 200;
    HeaderList headers;
    QByteArray body;
};

// The rule's status error (429, 500, 502, 503, 529) as `style`'s provider answers it; `wallMs` is
// now, for Anthropic's rate-limit reset time.
FaultAnswer statusAnswer(const FaultRule &rule, ApiStyle style, qint64 wallMs);
// A 200 that claims JSON and is not; on a pass-through route (judged by its status alone) the
// broken gateway's 502 page.
FaultAnswer garbageAnswer(bool passThrough);
// The provider's error inside a 200 stream, for the route: Anthropic's `event: error`
// (overloaded_error), the Responses API's `response.failed`, else OpenAI's `data: {"error":...}`
// chunk. `sequence` is the Responses event's sequence_number (the events before it).
QByteArray streamErrorEvent(ApiStyle style, const QByteArray &route, qint64 sequence);
