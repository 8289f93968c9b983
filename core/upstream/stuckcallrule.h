#pragma once

#include <QList>
#include <QtGlobal>

#include <optional>

// When a call still in flight counts as stuck, once a timeout has proved its upstream can hang
// (ProxyServer::countStuckCalls). Only calls that are really stuck count:
//   - a streamed call with no first byte for half the timeout (a stream's headers come at once
//     from a provider that is well);
//   - a non-streamed call, which has no byte until it is done, only once it has run twice as long
//     as the slowest of the upstream's recent healthy non-streamed calls (and at least half the
//     timeout). Before any healthy call was seen nobody knows what the model needs: it is not counted.
// So a healthy slow model (every answer 4.9 s under --timeout 5) never opens the breaker, and a
// fast one that hangs is still caught half a timeout in. Touched only on the proxy thread.
class StuckCallRule
{
public:
    static constexpr int kRemembered = 32;   // recent healthy non-streamed calls

    // A non-streamed call answered well in `durationMs`.
    void recordHealthy(qint64 durationMs)
    {
        m_recent.append(qMax<qint64>(0, durationMs));
        if (m_recent.size() > kRemembered)
            m_recent.removeFirst();
    }

    // The slowest recent healthy non-streamed call; nullopt before the first.
    std::optional<qint64> slowestHealthyMs() const
    {
        if (m_recent.isEmpty())
            return std::nullopt;
        qint64 slowest = 0;
        for (qint64 ms : m_recent)
            slowest = qMax(slowest, ms);
        return slowest;
    }

    bool isStuck(bool streamed, bool hasFirstByte, qint64 runningMs, qint64 timeoutMs) const
    {
        if (hasFirstByte)
            return false;   // it has begun answering
        const qint64 halfTimeout = timeoutMs / 2;
        if (streamed)
            return runningMs >= halfTimeout;
        const std::optional<qint64> slowest = slowestHealthyMs();
        return slowest && runningMs >= qMax(halfTimeout, 2 * *slowest);
    }

private:
    QList<qint64> m_recent;
};
