#pragma once

#include <QList>

struct CallRecord;

// Which records are attempts of one logical call, to show retry amplification (how many requests
// one call of the app became). No SDK sends an idempotency key, and the official ones give every
// attempt of a call the same body and headers but for X-Stainless-Retry-Count and
// X-Stainless-Timeout (shared/reference/clients-and-wire.md), which the dedup key leaves out. So an
// attempt belongs to the logical call before it when it has the same key fingerprint and credential
// fingerprint, its retry count is higher than that call's last attempt's, and it arrived within
// kWindowMs of that attempt's end (the longest server-given delay every SDK honours is 60 s). A
// first try (count 0), a request without the header, and one without a key (no sharing, a
// pass-through route) start a logical call of their own: identical prompts sent on purpose are
// never folded together.

struct RetryPlace
{
    int group = -1;      // the logical call: the index (in the input) of its first attempt
    int attempt = 1;     // 1 = the first try
    int attempts = 1;    // how many attempts the logical call has among the records
};

namespace RetryGroups {

constexpr qint64 kWindowMs = 70'000;

// Places for `records`, in any order; the result is index-aligned with the input.
QList<RetryPlace> group(const QList<const CallRecord *> &records);

} // namespace RetryGroups
