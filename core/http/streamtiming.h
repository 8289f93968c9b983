#pragma once

#include <QByteArray>

class StreamVerdict;

// How a streamed answer arrived, event by event, for the details of its call: when the first event
// with content came (the time to first token, which a first byte of headers or a role-only chunk
// is not), the largest gap between two events, how many events came, and one word for the whole:
//   complete     the stream's final event came, spread out as a live stream is;
//   buffered     complete, but every event arrived in one burst (within kBurstMs): something on
//                the way (the provider, a gateway, an antivirus proxy) held the stream and let it go
//                at once, so the app saw no streaming at all;
//   cut          it ended without its final event (closed, timed out, cancelled);
//   error_event  the provider's error came inside the 200 stream.
// Fed by the flight after each piece its StreamVerdict has read. Not thread-safe.
class StreamTiming
{
public:
    // After `verdict` read the next piece of the stream, at wall-clock `nowMs`.
    void observe(const StreamVerdict &verdict, qint64 nowMs);

    qint64 events() const { return m_events; }
    qint64 firstContentAtMs() const { return m_firstContentAtMs; }   // 0: no content came
    qint64 maxGapMs() const { return m_events > 1 ? m_maxGapMs : -1; }
    // At least two events, all within kBurstMs of the first.
    bool isBurst() const { return m_events > 1 && m_lastEventAtMs - m_firstEventAtMs <= kBurstMs; }
    // The word for the stream; `ended` is false when the transport failed (cut, timeout, cancel).
    QByteArray verdictName(const StreamVerdict &verdict, bool ended) const;

    static constexpr qint64 kBurstMs = 10;

private:
    qint64 m_events = 0;
    qint64 m_firstEventAtMs = 0;
    qint64 m_lastEventAtMs = 0;
    qint64 m_firstContentAtMs = 0;
    qint64 m_maxGapMs = 0;
};
