#pragma once

#include <QDateTime>
#include <QElapsedTimer>

// Time is a dependency: the breaker, the answer cache and the spend guard read it through a Clock,
// so tests move time forward instead of sleeping (tests/support/fakeclock.h).
class Clock
{
public:
    virtual ~Clock() = default;
    // Monotonic milliseconds, for durations and windows.
    virtual qint64 steadyMs() const = 0;
    // Wall-clock milliseconds since the epoch, for records and calendar days.
    virtual qint64 wallMs() const = 0;
};

class SystemClock final : public Clock
{
public:
    SystemClock() { m_started.start(); }
    qint64 steadyMs() const override { return m_started.elapsed(); }
    qint64 wallMs() const override { return QDateTime::currentMSecsSinceEpoch(); }

private:
    QElapsedTimer m_started;
};
