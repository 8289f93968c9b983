#pragma once

#include <QList>
#include <QMap>
#include <QString>
#include <QStringList>

#include "accounting/callrecord.h"
#include "drill/faulttimeline.h"

// The windows of a drill: each timeline entry from the moment it was armed to the moment it
// stopped applying to new calls, and what the app's calls in it came to. `breakwater exec` prints
// them in its summary and writes one JUnit test case per window (drill/junitreport.h).
//
// A call is in a window when it arrived while the rule was armed. It ended in an error when its
// ending (accounting/callending.h) is anything but ok: an error status, a refusal, a timeout, a cut
// stream, an error event, the app hanging up. Such an error is recovered when a later request for
// the same thing (the same dedup key and credential fingerprint: the same route, model, messages
// and parameters, so an SDK's own retry and an app's retry of the same call alike) arrived after it
// and ended ok, inside the window or after it, before COMMAND ended. A window fails when one of its
// errors was never recovered: the app gave up, or showed its user an error.
struct FaultWindow
{
    TimelineEntry entry;
    QString label;       // "#1 529:for=20s" as armed (FaultRule::label); empty: never armed
    qint64 fromMs = 0;   // wall clock, when it was armed
    qint64 toMs = 0;     // when it stopped applying to new calls (FaultWindows::close)

    bool armed() const { return !label.isEmpty(); }
};

struct WindowVerdict
{
    enum class State { Passed, Failed, NotArmed, NoCalls };
    State state = State::NoCalls;
    QString title;       // "entry 1 at 5s: #1 529:for=20s", the JUnit test case's name
    double seconds = 0;  // how long the window was
    int calls = 0;       // requests that arrived in the window
    int errors = 0;      // of them, ended in an error
    int recovered = 0;   // of those, recovered by a later request
    int injected = 0;    // of the calls, answered by this window's rule
    QMap<QString, int> unrecovered;   // by what the app saw ("529", "503 breaker_refused", "timeout")
    QStringList unrecoveredCalls;     // one line each: when, route, what it saw, request id

    int unrecoveredCount() const { return errors - recovered; }
    // "9 calls, 4 errors, 2 recovered; not recovered: 529 x2", or why there is nothing to judge.
    QString outcomeText() const;
};

namespace FaultWindows {

// Sets each armed window's end: its for= expiry; for a count= rule that fired its count, the
// arrival of the last call its label answered; else (and never later than) `commandEndMs`.
void close(QList<FaultWindow> &windows, const QList<CallRecord> &records, qint64 commandEndMs);
WindowVerdict judge(const FaultWindow &window, const QList<CallRecord> &records);

// The call ended in an error, and a later request for the same thing ended ok (above).
bool endedInError(const CallRecord &record);
bool recovered(const CallRecord &failed, const QList<CallRecord> &records);
// What the app saw, in a word or two: "529", "503 breaker_refused", "504 timeout", "200 cut".
QString seen(const CallRecord &record);
// The rule in an injected record's label ("#3 503:count=2"), or nullopt when there is none.
std::optional<FaultRule> injectedRule(const CallRecord &record);
// The call reached the provider (what it bills): a miss or a bypass, unless a fault rule of a kind
// that makes no upstream call (status, hang, reset, garbage) answered it instead.
bool reachedProvider(const CallRecord &record);

} // namespace FaultWindows
