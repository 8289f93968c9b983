#pragma once

#include <optional>

#include <QtGlobal>

// What one upstream call is charged to today's spend (and logged as its cost_usd). The rule, from
// what is known best to least (README, "What a call costs"):
//   - a call that never reached the provider (cancelled while queued for a slot, refused, a
//     scripted fault such as an injected hang) costs 0;
//   - a call whose answer reports `usage` costs what that usage is priced at;
//   - a complete answer without usage (a stream without include_usage) costs its reservation;
//   - a stream that began and ended early (cut, stalled, an error chunk, cancelled, drained) costs
//     its input estimate plus one output token per event seen, never more than its reservation;
//   - a call cancelled after it reached the provider, with no answer begun, costs its reservation:
//     nothing can be known of what the provider generated;
//   - any other failure (an error status, a timeout with no byte, unreachable) costs 0.
struct CallOutcomeForCharge
{
    bool reachedProvider = false;     // the pool sent it (not queued, not a scripted fault)
    std::optional<double> usageUsd;   // priced from the answer's own usage
    bool complete = false;            // a whole 2xx answer (Flight::isCacheable)
    bool streamBegan = false;         // a 2xx event stream whose headers came
    bool cancelled = false;           // every rider hung up and the call was ended
    qint64 eventsSeen = 0;            // stream events relayed before it ended
};

struct ChargeBasis
{
    qint64 inputTokensEstimate = 0;   // estimateInputTokens of the request
    double reservationUsd = 0;        // the most the call could cost (PriceTable::maxCost)
};

// `price(input, output)` prices a token count for the call's model (nullopt: no price).
template <typename Price>
std::optional<double> callCharge(const CallOutcomeForCharge &call, const ChargeBasis &basis, Price price)
{
    if (!call.reachedProvider)
        return 0.0;
    if (call.usageUsd)
        return call.usageUsd;
    const std::optional<double> reservation =
        basis.reservationUsd > 0 ? std::optional<double>(basis.reservationUsd) : std::nullopt;
    if (call.complete)
        return reservation;
    if (call.streamBegan) {
        const std::optional<double> seen = price(basis.inputTokensEstimate, call.eventsSeen);
        if (!seen)
            return reservation;
        return reservation ? qMin(*seen, *reservation) : *seen;
    }
    if (call.cancelled)
        return reservation;
    return 0.0;
}
