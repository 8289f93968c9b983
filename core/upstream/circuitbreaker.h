#pragma once

#include <QMetaType>
#include <QObject>
#include <QString>
#include <QTimer>

#include <chrono>

#include "message.h"

class Clock;

// Guards one upstream. Closed: calls go through and consecutive failures are counted. After
// `failureThreshold` in a row it opens: calls are refused inside the proxy, at once, until a probe
// sees the provider answer again or the cool-down ends. Half-open: exactly one real request goes
// through as the trial; success closes the breaker, failure re-opens it with a longer cool-down.
//
// Failures are upstream faults only (5xx, unreachable, our own timeout, a cut stream, a garbage
// answer); 4xx caused by the request and clients hanging up are not. Touched only on the proxy thread.
//
// Where transitions happen: the reports (recordSuccess, recordFailure, probeSucceeded) move the
// breaker at once; the one move time alone causes (open -> half-open when the cool-down has passed)
// happens only in onTimePassed(). The breaker runs that itself, from admit() (the only moment the
// cool-down decides anything for a caller) and from its own cool-down timer, so the dashboard, the
// tray and the probe see half-open at the end of the cool-down without waiting for traffic. Reading
// (state(), /metrics, the snapshots) never moves it. The timer is only a wake-up: whether the
// cool-down has passed is always asked of the Clock, so with a FakeClock a test calls
// onTimePassed() where the timer would have fired.
enum class BreakerState : quint8 { Closed, Open, HalfOpen };
QByteArray breakerStateName(BreakerState state);   // closed, open, half-open

struct BreakerTransition
{
    QString upstream;
    qint64 atMs = 0;            // wall clock
    BreakerState from = BreakerState::Closed;
    BreakerState to = BreakerState::Closed;
    Message reason;             // "5 consecutive failures (last: timeout)", "probe succeeded", ...
};
Q_DECLARE_METATYPE(BreakerTransition)

class CircuitBreaker final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(CircuitBreaker)
public:
    CircuitBreaker(const QString &upstream, const Clock &clock, int failureThreshold,
                   std::chrono::milliseconds cooldown, QObject *parent = nullptr);

    struct Admission
    {
        enum class Verdict { Allow, Trial, Refuse } verdict = Verdict::Allow;
        int retryAfterSeconds = 0;   // with Refuse: whole seconds, 1..60
    };
    // Asks to start one upstream call. A Trial must be reported with `wasTrial` set.
    Admission admit();

    void recordSuccess(bool wasTrial);
    void recordFailure(const Message &reason, bool wasTrial);
    // A trial that ended without telling us anything (e.g. Breakwater shutting down).
    void abandonTrial();
    // A cheap health probe saw the provider answer: move to half-open without waiting.
    void probeSucceeded();

    // The clock moved on: makes the time-driven move (open -> half-open once the cool-down is over).
    void onTimePassed();

    // Live settings. A new threshold applies from the next failure: one that finds the failures in
    // a row already at or past a lowered threshold opens the breaker then, never the change itself.
    // A new cool-down applies at once, also to an open breaker (counted from when it opened, and
    // grown as far as failed trials had grown the old one); onTimePassed() then decides.
    void setFailureThreshold(int threshold);
    void setCooldown(std::chrono::milliseconds cooldown);
    // The breaker buttons. Open now: refuses at once for one cool-down, then a trial as usual; the
    // health probe leaves it alone (it would undo the button within a second), unless asked to
    // probe now. Close now: closed with no failures counted and the base cool-down, from any state.
    // Each is a transition with `reason`, so the timeline shows it; nothing when already there.
    void forceOpen(const Message &reason);
    void forceClose(const Message &reason);
    bool openedByHand() const { return m_openedByHand; }   // open, by forceOpen
    // The fleet's breaker is open elsewhere (fleet/fleetbreaker.h): open here until the same
    // deadline, `left` from now. Already open, it only ever lengthens the cool-down left.
    void holdOpenFor(std::chrono::milliseconds left, const Message &reason);

    BreakerState state() const { return m_state; }   // a pure read: see onTimePassed()
    QString upstream() const { return m_upstream; }
    int consecutiveFailures() const { return m_consecutiveFailures; }
    int failureThreshold() const { return m_threshold; }
    qint64 currentCooldownMs() const { return m_cooldownMs; }
    // While open: how long until the cool-down ends (0 or less once it has); a pure read.
    qint64 cooldownLeftMs() const;
    // The newest failure reported ("timeout", "503", ...) and when (wall ms); empty/0 before any.
    const Message &lastFailure() const { return m_lastFailure; }
    qint64 lastFailureAtMs() const { return m_lastFailureAtMs; }
    int transitions() const { return m_transitions; }
    const Clock &clock() const { return m_clock; }   // for the probe's timestamps

    static constexpr int kMaxCooldownFactor = 8;   // re-opens grow the cool-down up to 8x

Q_SIGNALS:
    void stateChanged(const BreakerTransition &transition);
    // Each report, for whoever counts them beyond this instance (fleet/fleetbreaker.h).
    void failureRecorded();
    void successRecorded();

private:
    void moveTo(BreakerState to, const Message &reason);
    void open(const Message &reason, bool byHand = false);
    void armCooldownTimer();

    QString m_upstream;
    const Clock &m_clock;
    int m_threshold;
    qint64 m_baseCooldownMs;
    qint64 m_cooldownMs;
    BreakerState m_state = BreakerState::Closed;
    int m_consecutiveFailures = 0;
    qint64 m_openedAtMs = 0;
    bool m_trialInFlight = false;
    Message m_lastFailure;
    qint64 m_lastFailureAtMs = 0;
    int m_transitions = 0;
    bool m_openedByHand = false;
    QTimer m_cooldownTimer;      // single shot, armed on opening
};
