#include "fieldtest.h"

#include "benchloads.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QElapsedTimer>
#include <QTimer>

#include <algorithm>
#include <memory>
#include <vector>

#include "accounting/callending.h"
#include "apptraffic.h"
#include "mockprovider.h"
#include "proxyharness.h"
#include "servicethread.h"

using namespace Qt::StringLiterals;
using namespace std::chrono_literals;

namespace fieldtest {

namespace {

constexpr auto kSlowProvider = 1500ms;       // herd and burst: the field test's 1.5 s provider
constexpr int kHerdSize = 200;
constexpr int kBurstSize = 20;
constexpr double kSteadyEvery = 2;           // outage and hang: a new prompt every 2 s ...
constexpr double kSteadyFor = 150;           // ... for 150 s; the provider fails from 15 s to 75 s
constexpr double kHealthyBefore = 15;
constexpr double kFaultFor = 60;
constexpr auto kSdkTimeout = 600s;           // the official SDKs' own timeout per attempt (10 min)
const QByteArray kChatPath = "/v1/chat/completions";

qint64 now()
{
    return QDateTime::currentMSecsSinceEpoch();
}

// Runs the event loop until `done` or `limit`.
void waitUntil(const std::function<bool()> &done, std::chrono::milliseconds limit)
{
    QElapsedTimer timer;
    timer.start();
    while (!done() && timer.elapsed() < limit.count())
        QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
}

// What one target needs for one scenario: its provider, and between the app and that provider
// nothing (direct), a new Breakwater, or the peer proxy.
struct Stage
{
    Target target;
    std::unique_ptr<ServiceThread<MockProvider>> ownMock;   // direct
    std::unique_ptr<ProxyHarness> harness;                  // Breakwater
    MockProvider *mock = nullptr;
    quint16 port = 0;
    QByteArray path = kChatPath;
    std::unique_ptr<AppTraffic> traffic;
    int callsAtFaultStart = -1;
    int callsAtFaultEnd = -1;
};

std::unique_ptr<Stage> makeStage(const Target &target, Scenario scenario, const Settings &settings)
{
    auto stage = std::make_unique<Stage>();
    stage->target = target;
    switch (target.kind) {
    case Target::Kind::Direct:
        stage->ownMock = std::make_unique<ServiceThread<MockProvider>>(u"mock"_s, [] { return new MockProvider; });
        stage->mock = stage->ownMock->service();
        stage->port = stage->mock->port();
        break;
    case Target::Kind::Breakwater:
        stage->harness = std::make_unique<ProxyHarness>([scenario, &settings](ProxyConfig &c) {
            if (hasFault(scenario)) {
                c.breakerCooldown = std::max<std::chrono::milliseconds>(1ms, settings.scaled(60));
                c.breakerProbeInterval = std::max<std::chrono::milliseconds>(100ms, settings.scaled(1));
            }
            if (scenario == Scenario::Hang)
                c.upstreamTimeout = std::max<std::chrono::milliseconds>(1ms, settings.scaled(settings.timeoutSeconds));
            if (scenario == Scenario::Burst && settings.concurrency > 0)
                c.concurrency = settings.concurrency;
            c.sharedState = settings.sharedState;
        });
        stage->mock = stage->harness->mock();
        stage->port = stage->harness->port();
        break;
    case Target::Kind::Peer:
        stage->mock = settings.peerMock;
        stage->port = quint16(target.peer.port());
        stage->path = target.peer.path().toUtf8() + "/chat/completions";
        break;
    }
    stage->mock->setMode(MockProvider::Mode::Ok);
    stage->mock->setLatency(0ms);
    stage->mock->setDropHungWhenPhaseEnds(true);
    return stage;
}

// A call before the scenario, so the target is in its steady state (a pool thread and a connection
// to the provider exist: the first call on a new thread pays tens of ms for them); then the
// counters start afresh.
void warmUp(Stage &stage, Scenario scenario, const Settings &settings)
{
    const QByteArray body = chatBody(u"warm-up before the %1 (%2)"_s.arg(name(scenario), settings.nonce));
    (void)fetch(stage.port, "POST", stage.path, kOpenAiAuth, body, 30s);
    if (stage.harness) {
        waitUntil([&] { return !stage.harness->records.isEmpty(); }, 5s);
        stage.harness->records.clear();
        stage.harness->transitions.clear();
    }
    stage.mock->resetCounters();
}

QList<AppTraffic::Planned> planFor(Scenario scenario, const Settings &settings)
{
    QList<AppTraffic::Planned> plan;
    switch (scenario) {
    case Scenario::Herd:
        for (int i = 0; i < kHerdSize; ++i)
            plan.append({0, chatBody(u"the same prompt (%1)"_s.arg(settings.nonce))});
        break;
    case Scenario::Burst:
        for (int i = 0; i < kBurstSize; ++i)
            plan.append({0, chatBody(u"different prompt %1 (%2)"_s.arg(i).arg(settings.nonce))});
        break;
    case Scenario::Outage:
    case Scenario::Hang: {
        const qint64 every = settings.scaled(kSteadyEvery).count();
        const int count = int(kSteadyFor / kSteadyEvery);
        for (int i = 0; i < count; ++i)
            plan.append({i * every, chatBody(u"prompt number %1 of the %2 (%3)"_s.arg(i).arg(name(scenario), settings.nonce))});
        break;
    }
    }
    return plan;
}

// How long a scenario's traffic may take in all before the calls left are given up: the plan,
// then the retries and timeouts of the last calls.
std::chrono::milliseconds limitFor(Scenario scenario, const Settings &settings)
{
    if (!hasFault(scenario))
        return 60s;
    return settings.scaled(kSteadyFor) + settings.scaled(30) + 20s;
}

// Plays the scenario on `stages` at once and fills `runs` (index-aligned).
void play(const QList<Stage *> &stages, QList<TargetRun> &runs, Scenario scenario, const Settings &settings,
          const std::function<void(double)> &progress, double doneBefore, double share)
{
    QObject owner;
    const QList<AppTraffic::Planned> plan = planFor(scenario, settings);
    for (Stage *stage : stages)
        stage->traffic = std::make_unique<AppTraffic>(stage->port, stage->path, plan, kSdkTimeout);
    const QList<MockProvider::Phase> schedule{
        {settings.scaled(kHealthyBefore), MockProvider::Mode::Ok},
        {settings.scaled(kFaultFor), scenario == Scenario::Outage ? MockProvider::Mode::Error503 : MockProvider::Mode::Hang},
        {settings.scaled(1), MockProvider::Mode::Ok}};
    if (scenario == Scenario::Herd || scenario == Scenario::Burst) {
        for (Stage *stage : stages)
            stage->mock->setLatency(kSlowProvider);
    }
    const qint64 startedAtMs = now();
    for (Stage *stage : stages) {
        if (hasFault(scenario)) {
            stage->mock->setSchedule(schedule);
            QTimer::singleShot(settings.scaled(kHealthyBefore), Qt::PreciseTimer, &owner,
                               [stage] { stage->callsAtFaultStart = stage->mock->callCount(QString::fromLatin1(kChatPath)); });
            QTimer::singleShot(settings.scaled(kHealthyBefore + kFaultFor), Qt::PreciseTimer, &owner,
                               [stage] { stage->callsAtFaultEnd = stage->mock->callCount(QString::fromLatin1(kChatPath)); });
        }
        stage->traffic->start();
    }
    const auto limit = limitFor(scenario, settings);
    const double expected = std::max(1.0, expectedSeconds(scenario, 1, settings)) * 1000;
    QElapsedTimer clock;
    clock.start();
    qint64 reported = 0;
    const auto allDone = [&stages] {
        return std::all_of(stages.begin(), stages.end(), [](const Stage *s) { return s->traffic->isDone(); });
    };
    while (!allDone() && clock.elapsed() < limit.count()) {
        QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
        if (progress && clock.elapsed() - reported >= 500) {
            reported = clock.elapsed();
            progress(doneBefore + share * std::min(0.99, double(clock.elapsed()) / expected));
        }
    }
    const qint64 endedAtMs = now();

    for (qsizetype i = 0; i < stages.size(); ++i) {
        Stage &stage = *stages[i];
        TargetRun &run = runs[i];
        run.target = stage.target;
        run.scenario = scenario;
        run.startedAtMs = startedAtMs;
        run.endedAtMs = endedAtMs;
        if (hasFault(scenario)) {
            run.faultFromMs = startedAtMs + settings.scaled(kHealthyBefore).count();
            run.faultToMs = startedAtMs + settings.scaled(kHealthyBefore + kFaultFor).count();
            if (stage.callsAtFaultStart >= 0 && stage.callsAtFaultEnd >= 0)
                run.upstreamCallsInFault = stage.callsAtFaultEnd - stage.callsAtFaultStart;
        }
        qsizetype requests = 0;
        for (const SdkLikeClient *call : stage.traffic->calls()) {
            AppCall app;
            app.startedAtMs = call->startedAtMs();
            app.finished = call->isFinished();
            app.waitedMs = app.finished ? call->waitedMs() : endedAtMs - app.startedAtMs;
            app.status = app.finished ? call->response().status : 0;
            app.attempts = call->attemptLog();
            requests += app.attempts.size();
            run.calls.append(app);
        }
        run.upstreamCalls = stage.mock->callCount(QString::fromLatin1(kChatPath));
        run.mostAtOnce = stage.mock->maxInFlight();
        if (stage.harness) {
            // Every request is recorded once its response is over; the last arrive queued.
            waitUntil([&] { return stage.harness->records.size() >= requests; }, 10s);
            run.proxyRecords = stage.harness->records;
            run.transitions = stage.harness->transitions;
        }
        stage.traffic.reset();   // gives up what is still open (a call that never got its answer)
        stage.mock->setLatency(0ms);
        stage.mock->setMode(MockProvider::Mode::Ok);
    }
}

} // namespace

const QList<Scenario> &scenarios()
{
    static const QList<Scenario> all{Scenario::Herd, Scenario::Outage, Scenario::Hang, Scenario::Burst};
    return all;
}

QString name(Scenario scenario)
{
    switch (scenario) {
    case Scenario::Herd: return u"herd"_s;
    case Scenario::Outage: return u"outage"_s;
    case Scenario::Hang: return u"hang"_s;
    case Scenario::Burst: return u"burst"_s;
    }
    return {};
}

QString title(Scenario scenario)
{
    switch (scenario) {
    case Scenario::Herd: return u"200 identical requests at once, provider latency 1.5 s"_s;
    case Scenario::Outage: return u"a new prompt every 2 s for 150 s, provider 503 from 15 s to 75 s"_s;
    case Scenario::Hang: return u"a new prompt every 2 s for 150 s, provider hangs from 15 s to 75 s, Breakwater --timeout 5"_s;
    case Scenario::Burst: return u"20 different prompts at once, provider latency 1.5 s"_s;
    }
    return {};
}

bool hasFault(Scenario scenario)
{
    return scenario == Scenario::Outage || scenario == Scenario::Hang;
}

QString Target::name() const
{
    switch (kind) {
    case Kind::Direct: return u"direct"_s;
    case Kind::Breakwater: return u"breakwater"_s;
    case Kind::Peer: return u"peer"_s;
    }
    return {};
}

QString Target::title() const
{
    switch (kind) {
    case Kind::Direct: return u"direct"_s;
    case Kind::Breakwater: return u"Breakwater"_s;
    case Kind::Peer: return u"peer (%1)"_s.arg(peer.toString());
    }
    return {};
}

const CallRecord *TargetRun::recordOf(const SdkLikeClient::Attempt &attempt) const
{
    if (attempt.requestId.isEmpty())
        return nullptr;
    for (const CallRecord &record : proxyRecords) {
        if (record.requestId == attempt.requestId)
            return &record;
    }
    return nullptr;
}

Figures TargetRun::figures() const
{
    Figures f;
    f.calls = int(calls.size());
    f.upstreamCalls = upstreamCalls;
    f.upstreamCallsInFault = upstreamCallsInFault;
    QList<qint64> waits;
    qint64 firstBack = -1;
    for (const AppCall &call : calls) {
        waits.append(call.waitedMs);
        f.answered += call.status == 200;
        if (faultToMs > 0 && call.status == 200 && call.finishedAtMs() > faultToMs
            && (firstBack < 0 || call.finishedAtMs() < firstBack))
            firstBack = call.finishedAtMs();
    }
    f.slowestMs = waits.isEmpty() ? 0 : *std::max_element(waits.begin(), waits.end());
    f.p95Ms = qint64(percentile(waits, 0.95));
    f.recoverMs = firstBack < 0 ? -1 : firstBack - faultToMs;
    const qint64 from = faultFromMs > 0 ? faultFromMs : startedAtMs;
    switch (target.kind) {
    case Target::Kind::Direct:
        f.breaker = BreakerSeen::None;
        break;
    case Target::Kind::Breakwater: {
        f.breaker = BreakerSeen::NotOpened;
        const auto opened = std::find_if(transitions.begin(), transitions.end(),
                                         [](const BreakerTransition &t) { return t.to == BreakerState::Open; });
        if (opened != transitions.end()) {
            f.breaker = BreakerSeen::Opened;
            f.breakerOpenedMs = opened->atMs - from;
        }
        break;
    }
    case Target::Kind::Peer: {
        // A peer tells only what its answers say: a Breakwater's x-breakwater-breaker, if it sends one.
        f.breaker = BreakerSeen::Unknown;
        qint64 firstOpen = -1;
        for (const AppCall &call : calls) {
            for (const SdkLikeClient::Attempt &a : call.attempts) {
                if (!a.breaker.isEmpty() && f.breaker == BreakerSeen::Unknown)
                    f.breaker = BreakerSeen::NotOpened;
                if (a.breaker == "open" && (firstOpen < 0 || a.sentAtMs < firstOpen))
                    firstOpen = a.sentAtMs;
            }
        }
        if (firstOpen >= 0) {
            f.breaker = BreakerSeen::Opened;
            f.breakerOpenedMs = firstOpen - from;
        }
        break;
    }
    }
    return f;
}

QList<CallRecord> TargetRun::records() const
{
    if (target.kind == Target::Kind::Breakwater)
        return proxyRecords;
    QList<CallRecord> records;
    for (qsizetype i = 0; i < calls.size(); ++i) {
        for (const SdkLikeClient::Attempt &a : calls[i].attempts) {
            CallRecord r;
            r.requestId = "call-" + QByteArray::number(i + 1) + '-' + QByteArray::number(a.retryCount + 1);
            r.route = kChatPath;
            r.upstream = "openai";
            r.model = u"gpt-4o-mini"_s;
            r.receivedAtMs = a.sentAtMs;
            r.firstByteAtMs = a.firstByteAtMs;
            r.endAtMs = a.endAtMs > 0 ? a.endAtMs : endedAtMs;
            r.status = a.status;
            r.retryAttempt = a.retryCount;
            r.breakerState = a.breaker;
            if (a.status == 0)
                r.errorKind = "upstream_unreachable";   // no answer: the connection was dropped
            if (target.kind == Target::Kind::Direct) {
                r.outcome = Outcome::Miss;              // every request is a provider call
                r.upstreamStartAtMs = a.sentAtMs;
            } else if (a.dedup.isEmpty()) {
                r.outcome = Outcome::Miss;
            } else if (a.dedup == "refused") {
                r.outcome = a.breaker == "open" ? Outcome::BreakerRefused : Outcome::Error;
            } else {
                r.outcome = outcomeFromName(a.dedup);
            }
            records.append(r);
        }
    }
    return records;
}

double expectedSeconds(Scenario scenario, int targets, const Settings &settings)
{
    if (hasFault(scenario))   // the targets play it at the same time
        return settings.scale * (kSteadyFor + 2) + 1;
    return targets * (kSlowProvider.count() / 1000.0 + 0.5);
}

QList<TargetRun> run(Scenario scenario, const QList<Target> &targets, const Settings &settings,
                     const std::function<void(double)> &progress)
{
    std::vector<std::unique_ptr<Stage>> stages;
    for (const Target &target : targets) {
        stages.push_back(makeStage(target, scenario, settings));
        warmUp(*stages.back(), scenario, settings);
    }
    QList<TargetRun> runs(targets.size());
    if (hasFault(scenario)) {
        QList<Stage *> all;
        for (const auto &stage : stages)
            all.append(stage.get());
        play(all, runs, scenario, settings, progress, 0, 1);
    } else {
        for (size_t i = 0; i < stages.size(); ++i) {
            QList<TargetRun> one(1);
            play({stages[i].get()}, one, scenario, settings, progress, double(i) / double(stages.size()),
                 1.0 / double(stages.size()));
            runs[qsizetype(i)] = one.first();
        }
    }
    if (progress)
        progress(1.0);
    return runs;
}

} // namespace fieldtest
