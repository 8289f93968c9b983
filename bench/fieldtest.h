#pragma once

#include "fleet/redistarget.h"

#include <optional>

#include <QList>
#include <QString>
#include <QUrl>

#include <chrono>
#include <functional>
#include <optional>

#include "accounting/callrecord.h"
#include "sdklikeclient.h"
#include "upstream/circuitbreaker.h"

class MockProvider;

// The published field test's four scenarios (shared/reference/field-results.md), replayed by
// breakwater-bench: the app is an SDK-like client (retries and all, demo/sdklikeclient.h), the
// provider is the mock (demo/mockprovider.h), and the target between them is the provider itself
// (direct), a Breakwater in this process, or a peer proxy at a URL. `breakwater-bench report`
// runs all four on every target and writes them up (benchreport.h); `breakwater-bench herd`,
// `burst`, `outage` and `hang` run one and print it. One implementation serves both.
namespace fieldtest {

enum class Scenario { Herd, Outage, Hang, Burst };
const QList<Scenario> &scenarios();    // in the report's order
QString name(Scenario scenario);        // herd, outage, hang, burst: files and table rows
QString title(Scenario scenario);       // what it does, in one line
bool hasFault(Scenario scenario);       // outage and hang: the provider fails for a while

struct Settings
{
    double scale = 1.0;          // multiplies the steady traffic's times, the outage, the timeout and the cool-down
    int concurrency = 0;         // the burst's Breakwater --concurrency; 0: its default (64)
    double timeoutSeconds = 5;   // the hang's Breakwater --timeout (the field test's)
    QString nonce;               // in every prompt, so a peer's cache never answers one from an earlier run
    MockProvider *peerMock = nullptr;   // the provider behind the peer (a fixed port the peer was pointed at)
    std::optional<RedisTarget> sharedState;   // --shared-state: Breakwater's fleet Redis (none: off)

    std::chrono::milliseconds scaled(double seconds) const
    {
        return std::chrono::milliseconds(qint64(seconds * 1000 * scale));
    }
};

struct Target
{
    enum class Kind { Direct, Breakwater, Peer };
    Kind kind = Kind::Breakwater;
    QUrl peer;                   // Peer: its base URL, http://127.0.0.1:PORT/v1

    QString name() const;        // direct, breakwater, peer: files
    QString title() const;       // column headings: "direct", "Breakwater", "peer (URL)"
};

// One call of the app: each of its attempts, and what it came to.
struct AppCall
{
    qint64 startedAtMs = 0;     // wall clock
    qint64 waitedMs = 0;        // until its final answer (or the end of the run when it had none)
    bool finished = false;
    int status = 0;             // its final answer's; 0 = none
    QList<SdkLikeClient::Attempt> attempts;
    qint64 finishedAtMs() const { return startedAtMs + waitedMs; }
};

// What a breaker did in a run, for the table.
enum class BreakerSeen { None, NotOpened, Opened, Unknown };

struct Figures
{
    int calls = 0;                  // the app's calls
    int answered = 0;               // of them, answered 200 in the end
    int upstreamCalls = 0;          // chat calls that reached the provider (what it bills)
    int upstreamCallsInFault = -1;  // of them, while it was failing; -1 = no fault
    qint64 slowestMs = 0;           // the longest an app's call waited, retries included
    qint64 p95Ms = 0;
    qint64 recoverMs = -1;          // the first call answered 200 after the fault ended, from its end; -1 = none or no fault
    BreakerSeen breaker = BreakerSeen::None;
    qint64 breakerOpenedMs = -1;    // after the fault began (Unknown: the first refusal the app saw)
};

struct TargetRun
{
    Target target;
    Scenario scenario = Scenario::Herd;
    qint64 startedAtMs = 0;     // wall clock: the app's traffic began ...
    qint64 endedAtMs = 0;       // ... and ended
    qint64 faultFromMs = 0;     // the provider failed in [from, to); 0 = never
    qint64 faultToMs = 0;
    QList<AppCall> calls;
    int upstreamCalls = 0;
    int upstreamCallsInFault = -1;
    int mostAtOnce = 0;                       // the provider's most calls in flight at once
    QList<CallRecord> proxyRecords;           // Breakwater: what it recorded of each request
    QList<BreakerTransition> transitions;     // Breakwater: its breakers

    Figures figures() const;
    // One record per request, as the dashboard draws them: Breakwater's own, or for another target
    // made from what the app saw (each request a provider call when direct).
    QList<CallRecord> records() const;
    // The proxy's record of an attempt (by its x-request-id), or nullptr.
    const CallRecord *recordOf(const SdkLikeClient::Attempt &attempt) const;
};

// Runs `scenario` on each target: at the same time for the outage and the hang (light, long
// traffic; both targets see the same machine), one after another for the herd and the burst
// (their figures are about load). `progress` hears the share of the scenario done, now and then.
QList<TargetRun> run(Scenario scenario, const QList<Target> &targets, const Settings &settings,
                     const std::function<void(double)> &progress = {});
// About how long run() takes, for the progress line.
double expectedSeconds(Scenario scenario, int targets, const Settings &settings);

} // namespace fieldtest
