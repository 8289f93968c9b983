#pragma once

#include "http/apierror.h"

#include <QByteArray>
#include <QHash>

#include <list>
#include <map>
#include <optional>

class Clock;

// Finished answers, reused for a short window (--dedup-window) so an identical request that arrives
// just after a call completed costs nothing. Bounded by bytes (--cache-size), least recently used
// evicted first. Only complete 2xx answers are stored: errors, timeouts and cut streams never are.
// Touched only on the proxy thread.
struct CachedAnswer
{
    int status = 200;
    HeaderList headers;
    QByteArray body;       // a streamed answer is its whole event sequence
    bool stream = false;
    double costUsd = -1;   // what the original call cost: a hit saves this much
    qint64 inputTokens = -1;
    qint64 outputTokens = -1;
    qint64 cachedTokens = -1;
};

class AnswerCache final
{
public:
    AnswerCache(const Clock &clock, qint64 windowMs, qint64 maxBytes);

    std::optional<CachedAnswer> find(const QByteArray &key);
    // `ageMs`: how much of its window the answer has used already (one another instance of the
    // fleet stored: fleet/sharedanswers.h), so it is reused for the rest of its window only.
    void store(const QByteArray &key, const CachedAnswer &answer, qint64 ageMs = 0);
    // Frees every answer whose window has passed (they would miss anyway); store() does it too, and
    // the proxy calls it with its snapshots, so memory follows the traffic of the last window only.
    void dropExpired();

    // Live settings. A new window judges the answers already kept too (a shorter one drops the
    // older ones at once); a smaller size evicts the least recently used down to it at once.
    void setWindow(qint64 windowMs);
    void setMaxBytes(qint64 maxBytes);

    qint64 bytes() const { return m_bytes; }
    qint64 maxBytes() const { return m_maxBytes; }
    qint64 windowMs() const { return m_windowMs; }
    int count() const { return int(m_index.size()); }
    bool enabled() const { return m_windowMs > 0 && m_maxBytes > 0; }

private:
    // Every entry by when it was stored, so expired answers are found without a scan (the window
    // runs from the store, not the last hit). An entry leaves it when it leaves the cache, however
    // it goes (expired, replaced, evicted): what the cache holds stays within its bound.
    using Expiry = std::multimap<qint64, QByteArray>;
    struct Entry
    {
        QByteArray key;
        CachedAnswer answer;
        qint64 storedAtMs = 0;
        qint64 size = 0;
        Expiry::iterator expiry;
    };
    using List = std::list<Entry>;   // most recently used first
    void erase(List::iterator it);
    void evictTo(qint64 bytes);
    static qint64 sizeOf(const QByteArray &key, const CachedAnswer &answer);

    const Clock &m_clock;
    qint64 m_windowMs;
    qint64 m_maxBytes;
    qint64 m_bytes = 0;
    List m_entries;
    QHash<QByteArray, List::iterator> m_index;
    Expiry m_expiry;
};
