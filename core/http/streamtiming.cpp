#include "http/streamtiming.h"

#include <algorithm>

#include "http/streamverdict.h"

void StreamTiming::observe(const StreamVerdict &verdict, qint64 nowMs)
{
    // Events completed by one piece arrived together: the gap is measured from piece to piece.
    if (verdict.events() > m_events) {
        if (m_events == 0)
            m_firstEventAtMs = nowMs;
        else
            m_maxGapMs = std::max(m_maxGapMs, nowMs - m_lastEventAtMs);
        m_lastEventAtMs = nowMs;
        m_events = verdict.events();
    }
    if (m_firstContentAtMs == 0 && verdict.sawContent())
        m_firstContentAtMs = nowMs;
}

QByteArray StreamTiming::verdictName(const StreamVerdict &verdict, bool ended) const
{
    switch (verdict.state()) {
    case StreamVerdict::State::Failed: return "error_event";
    case StreamVerdict::State::Open: return "cut";
    case StreamVerdict::State::Complete: break;
    }
    if (!ended)
        return "cut";
    return isBurst() ? "buffered" : "complete";
}
