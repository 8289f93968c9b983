#include "accounting/callending.h"

Served servedOf(Outcome outcome)
{
    switch (outcome) {
    case Outcome::Miss: return Served::Miss;
    case Outcome::Joined: return Served::Joined;
    case Outcome::Hit: return Served::Hit;
    case Outcome::Bypass: return Served::Bypass;
    case Outcome::FellBack: return Served::Miss;   // it made the upstream call (that refused)
    case Outcome::BreakerRefused:
    case Outcome::SpendRefused:
    case Outcome::Error: return Served::Refused;   // Error is only set before a call is made
    }
    return Served::Refused;
}

Ending endingOf(const CallRecord &record)
{
    const QByteArray &kind = record.errorKind;
    switch (record.outcome) {
    case Outcome::BreakerRefused: return Ending::BreakerRefused;
    case Outcome::SpendRefused: return Ending::SpendRefused;
    case Outcome::Error:
        return kind == "queue_full" ? Ending::QueueFull : kind == "paused" ? Ending::Paused : Ending::BadRequest;
    default: break;
    }
    // The kinds are the error codes the proxy answers with (ApiError::code), and client_closed.
    if (kind.isEmpty())
        return record.status >= 400 ? Ending::UpstreamError : Ending::Ok;   // the upstream's own errors
    if (kind == "client_closed" || kind == "cancelled")   // cancelled: every caller had hung up
        return Ending::ClientClosed;
    if (kind == "upstream_timeout")
        return Ending::Timeout;
    if (kind == "upstream_unreachable")
        return Ending::Unreachable;
    if (kind == "stream_cut" || kind == "shutting_down")
        return Ending::Cut;
    if (kind == "queue_full")
        return Ending::QueueFull;
    // Any other kind is an error the upstream reported: as a status, or (the status stayed 2xx
    // because the stream had begun) as an error event inside the stream.
    return record.status >= 400 ? Ending::UpstreamError : Ending::ErrorEvent;
}

QByteArray servedName(Served served)
{
    switch (served) {
    case Served::Miss: return "miss";
    case Served::Joined: return "joined";
    case Served::Hit: return "hit";
    case Served::Bypass: return "bypass";
    case Served::Refused: return "refused";
    }
    return "refused";
}

QByteArray endingName(Ending ending)
{
    switch (ending) {
    case Ending::Ok: return "ok";
    case Ending::UpstreamError: return "upstream_error";
    case Ending::Timeout: return "timeout";
    case Ending::Unreachable: return "unreachable";
    case Ending::Cut: return "cut";
    case Ending::ErrorEvent: return "error_event";
    case Ending::BreakerRefused: return "breaker_refused";
    case Ending::SpendRefused: return "spend_refused";
    case Ending::QueueFull: return "queue_full";
    case Ending::BadRequest: return "bad_request";
    case Ending::ClientClosed: return "client_closed";
    case Ending::Paused: return "paused";
    }
    return "ok";
}

bool isRefusal(Ending ending)
{
    return ending == Ending::BreakerRefused || ending == Ending::SpendRefused || ending == Ending::QueueFull
           || ending == Ending::BadRequest || ending == Ending::Paused;
}

Outcome outcomeFromName(const QByteArray &name)
{
    for (Outcome o : {Outcome::Miss, Outcome::Joined, Outcome::Hit, Outcome::Bypass,
                      Outcome::BreakerRefused, Outcome::SpendRefused, Outcome::Error, Outcome::FellBack}) {
        if (outcomeName(o) == name)
            return o;
    }
    return Outcome::Error;
}
