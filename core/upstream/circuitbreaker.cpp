#include "upstream/circuitbreaker.h"

#include "clock.h"
#include "proxyconfig.h"

#include <QLoggingCategory>

#include <cmath>

Q_LOGGING_CATEGORY(lcBreaker, "breakwater.breaker", QtInfoMsg)

using namespace Qt::StringLiterals;

QByteArray breakerStateName(BreakerState state)
{
    switch (state) {
    case BreakerState::Closed: return "closed";
    case BreakerState::Open: return "open";
    case BreakerState::HalfOpen: return "half-open";
    }
    return "closed";
}

CircuitBreaker::CircuitBreaker(const QString &upstream, const Clock &clock, int failureThreshold,
                               std::chrono::milliseconds cooldown, QObject *parent)
    : QObject(parent),
      m_upstream(upstream),
      m_clock(clock),
      m_threshold(qMax(1, failureThreshold)),
      m_baseCooldownMs(cooldown.count()),
      m_cooldownMs(cooldown.count())
{
    m_cooldownTimer.setSingleShot(true);
    m_cooldownTimer.setTimerType(Qt::PreciseTimer);
    connect(&m_cooldownTimer, &QTimer::timeout, this, [this] {
        onTimePassed();
        // Woken before the Clock says the cool-down is over (a coarse wake-up, a test's FakeClock):
        // sleep again for the rest. A wake-up that finds the breaker closed or half-open does nothing.
        if (m_state == BreakerState::Open)
            armCooldownTimer();
    });
}

void CircuitBreaker::onTimePassed()
{
    if (m_state == BreakerState::Open && cooldownLeftMs() <= 0)
        //: A breaker's transition, shown on hover in the breaker timeline
        moveTo(BreakerState::HalfOpen, Message(QT_TRANSLATE_NOOP("Message", "cool-down of %1 s passed")).arg(m_cooldownMs / 1000.0));
}

qint64 CircuitBreaker::cooldownLeftMs() const
{
    return m_cooldownMs - (m_clock.steadyMs() - m_openedAtMs);
}

void CircuitBreaker::armCooldownTimer()
{
    m_cooldownTimer.start(std::chrono::milliseconds(qMax<qint64>(cooldownLeftMs(), 1)));
}

CircuitBreaker::Admission CircuitBreaker::admit()
{
    onTimePassed();
    switch (m_state) {
    case BreakerState::Closed:
        return {Admission::Verdict::Allow, 0};
    case BreakerState::HalfOpen:
        if (!m_trialInFlight) {
            m_trialInFlight = true;
            return {Admission::Verdict::Trial, 0};
        }
        return {Admission::Verdict::Refuse, 1};   // the trial decides within one timeout
    case BreakerState::Open: {
        const int seconds = int(std::ceil(double(cooldownLeftMs()) / 1000.0));
        return {Admission::Verdict::Refuse, qBound(1, seconds, defaults::kMaxRetryAfterSeconds)};
    }
    }
    return {};
}

void CircuitBreaker::recordSuccess(bool wasTrial)
{
    m_consecutiveFailures = 0;
    if (wasTrial)
        m_trialInFlight = false;
    if (m_state == BreakerState::HalfOpen && wasTrial) {
        m_cooldownMs = m_baseCooldownMs;
        moveTo(BreakerState::Closed, Message(QT_TRANSLATE_NOOP("Message", "trial request succeeded")));
    }
    Q_EMIT successRecorded();
}

void CircuitBreaker::recordFailure(const Message &reason, bool wasTrial)
{
    ++m_consecutiveFailures;
    m_lastFailure = reason;
    m_lastFailureAtMs = m_clock.wallMs();
    if (wasTrial)
        m_trialInFlight = false;
    if (m_state == BreakerState::HalfOpen && wasTrial) {
        m_cooldownMs = qMin(m_cooldownMs * 2, m_baseCooldownMs * kMaxCooldownFactor);
        //: %1 is why the call failed: "timeout", "HTTP 503", ...
        open(Message(QT_TRANSLATE_NOOP("Message", "trial request failed (%1)")).arg(reason));
    } else if (m_state == BreakerState::Closed && m_consecutiveFailures >= m_threshold) {
        //: %2 is why the last call failed: "timeout", "HTTP 503", ...
        open(Message(QT_TRANSLATE_NOOP("Message", "%1 consecutive failures (last: %2)")).arg(m_consecutiveFailures).arg(reason));
    }
    Q_EMIT failureRecorded();
}

void CircuitBreaker::abandonTrial()
{
    m_trialInFlight = false;
}

void CircuitBreaker::probeSucceeded()
{
    // Only until a trial has failed: then the provider answers the probe's GET /v1/models while its
    // model calls still fail, and a probe that re-opened the door every second would make every
    // second a paid failing trial. The grown cool-down decides from then on, until it closes.
    if (m_state == BreakerState::Open && m_cooldownMs == m_baseCooldownMs)
        moveTo(BreakerState::HalfOpen, Message(QT_TRANSLATE_NOOP("Message", "health probe succeeded")));
}

void CircuitBreaker::setFailureThreshold(int threshold)
{
    m_threshold = qMax(1, threshold);
}

void CircuitBreaker::setCooldown(std::chrono::milliseconds cooldown)
{
    // The cool-down is always the base times 1, 2, 4 or 8 (failed trials double it): keep the factor.
    const qint64 factor = m_baseCooldownMs > 0 ? qMax<qint64>(1, m_cooldownMs / m_baseCooldownMs) : 1;
    m_baseCooldownMs = cooldown.count();
    m_cooldownMs = m_baseCooldownMs * factor;
    if (m_state == BreakerState::Open) {
        onTimePassed();
        if (m_state == BreakerState::Open)
            armCooldownTimer();
    }
}

void CircuitBreaker::forceOpen(const Message &reason)
{
    if (m_state == BreakerState::Open)
        return;
    open(reason, true);
}

void CircuitBreaker::forceClose(const Message &reason)
{
    m_consecutiveFailures = 0;
    m_cooldownMs = m_baseCooldownMs;
    m_cooldownTimer.stop();
    moveTo(BreakerState::Closed, reason);
}

void CircuitBreaker::holdOpenFor(std::chrono::milliseconds left, const Message &reason)
{
    // The cool-down itself stays (its growth factor and the probe's rule read it); the opening time
    // moves so that exactly `left` remains.
    const qint64 openedAt = m_clock.steadyMs() - (m_cooldownMs - left.count());
    if (m_state == BreakerState::Open) {
        if (left.count() > cooldownLeftMs()) {
            m_openedAtMs = openedAt;
            armCooldownTimer();
        }
        return;
    }
    m_openedAtMs = openedAt;
    m_openedByHand = false;
    moveTo(BreakerState::Open, reason);
    armCooldownTimer();
}

void CircuitBreaker::open(const Message &reason, bool byHand)
{
    m_openedAtMs = m_clock.steadyMs();
    m_openedByHand = byHand;   // before the transition: the probe reads it when it hears of it
    moveTo(BreakerState::Open, reason);
    armCooldownTimer();
}

void CircuitBreaker::moveTo(BreakerState to, const Message &reason)
{
    if (to == m_state)
        return;
    const BreakerTransition transition{m_upstream, m_clock.wallMs(), m_state, to, reason};
    m_state = to;
    if (to != BreakerState::HalfOpen)
        m_trialInFlight = false;
    if (to != BreakerState::Open)
        m_openedByHand = false;
    ++m_transitions;
    qCInfo(lcBreaker) << m_upstream << breakerStateName(transition.from) << "->"
                      << breakerStateName(to) << reason.english();
    Q_EMIT stateChanged(transition);
}
