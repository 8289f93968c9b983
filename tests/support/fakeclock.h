#pragma once

#include "clock.h"

#include <atomic>

// A clock the test moves by hand (KeePassXC's MockClock). Safe to read from the proxy thread while
// the test thread advances it.
class FakeClock final : public Clock
{
public:
    qint64 steadyMs() const override { return m_steadyMs.load(); }
    qint64 wallMs() const override { return kEpochMs + m_steadyMs.load(); }
    void advance(qint64 ms) { m_steadyMs.fetch_add(ms); }

    static constexpr qint64 kEpochMs = 1'800'000'000'000;   // a fixed wall-clock start

private:
    std::atomic<qint64> m_steadyMs{1000};
};
