#include "sharing/answercache.h"

#include "clock.h"

AnswerCache::AnswerCache(const Clock &clock, qint64 windowMs, qint64 maxBytes)
    : m_clock(clock), m_windowMs(windowMs), m_maxBytes(maxBytes)
{
}

qint64 AnswerCache::sizeOf(const QByteArray &key, const CachedAnswer &answer)
{
    qint64 size = key.size() + answer.body.size() + 64;  // 64: bookkeeping per entry
    for (const auto &[name, value] : answer.headers)
        size += name.size() + value.size();
    return size;
}

std::optional<CachedAnswer> AnswerCache::find(const QByteArray &key)
{
    const auto found = m_index.constFind(key);
    if (found == m_index.constEnd())
        return std::nullopt;
    const List::iterator it = *found;
    if (m_clock.steadyMs() - it->storedAtMs >= m_windowMs) {
        erase(it);
        return std::nullopt;
    }
    m_entries.splice(m_entries.begin(), m_entries, it);
    return it->answer;
}

void AnswerCache::store(const QByteArray &key, const CachedAnswer &answer)
{
    if (!enabled())
        return;
    const qint64 size = sizeOf(key, answer);
    if (size > m_maxBytes)
        return;
    dropExpired();
    if (const auto found = m_index.constFind(key); found != m_index.constEnd())
        erase(*found);
    evictTo(m_maxBytes - size);
    const qint64 now = m_clock.steadyMs();
    m_entries.push_front(Entry{key, answer, now, size});
    m_index.insert(key, m_entries.begin());
    m_stores.emplace_back(now, key);
    m_bytes += size;
}

void AnswerCache::dropExpired()
{
    const qint64 now = m_clock.steadyMs();
    while (!m_stores.empty() && now - m_stores.front().first >= m_windowMs) {
        const auto &[storedAtMs, key] = m_stores.front();
        if (const auto found = m_index.constFind(key); found != m_index.constEnd() && (*found)->storedAtMs == storedAtMs)
            erase(*found);
        m_stores.pop_front();
    }
}

void AnswerCache::setWindow(qint64 windowMs)
{
    m_windowMs = windowMs;
    dropExpired();
}

void AnswerCache::setMaxBytes(qint64 maxBytes)
{
    m_maxBytes = maxBytes;
    evictTo(maxBytes);
}

// Least recently used first, until at most `bytes` are kept.
void AnswerCache::evictTo(qint64 bytes)
{
    while (m_bytes > bytes && !m_entries.empty())
        erase(std::prev(m_entries.end()));
}

void AnswerCache::erase(List::iterator it)
{
    m_bytes -= it->size;
    m_index.remove(it->key);
    m_entries.erase(it);
}
