#include "sharing/answercache.h"

#include "clock.h"

AnswerCache::AnswerCache(const Clock &clock, qint64 windowMs, qint64 maxBytes)
    : m_clock(clock), m_windowMs(windowMs), m_maxBytes(maxBytes)
{
}

namespace {

// What one heap block costs beyond what it holds: Qt's array header (QArrayData, 16 bytes on
// 64-bit) and malloc's own chunk header and rounding (glibc: 8 bytes and a multiple of 16).
constexpr qint64 kBlockOverhead = 32;

qint64 heldBy(const QByteArray &bytes)
{
    return bytes.isNull() ? 0 : bytes.capacity() + 1 + kBlockOverhead;   // + the terminating zero
}

// A copy that holds no spare capacity, and shares nothing with the flight it came from (whose
// buffers grew piece by piece and may be twice the answer's size).
QByteArray compact(const QByteArray &bytes)
{
    QByteArray copy(bytes.constData(), bytes.size());
    return copy;
}

CachedAnswer compact(const CachedAnswer &answer)
{
    CachedAnswer copy = answer;
    copy.body = compact(answer.body);
    copy.headers.clear();
    copy.headers.reserve(answer.headers.size());
    for (const auto &[name, value] : answer.headers)
        copy.headers.append({compact(name), compact(value)});
    return copy;
}

} // namespace

// What an entry really holds, not only its answer's bytes: every byte array's allocation (key,
// body, each header's name and value), the header list's own array, and the entry's nodes in the
// recency list, the index and the expiry order (the key is one array shared by all three). Counted
// from the compact copy `store` keeps, so the bound is the memory the cache costs.
qint64 AnswerCache::sizeOf(const QByteArray &key, const CachedAnswer &answer)
{
    qint64 size = heldBy(key) + heldBy(answer.body);
    size += qint64(sizeof(Entry)) + 2 * qint64(sizeof(void *)) + kBlockOverhead;               // list node
    size += qint64(sizeof(QByteArray) + sizeof(List::iterator) + 2 * sizeof(void *)) + kBlockOverhead;   // index node
    size += qint64(sizeof(Expiry::value_type) + 4 * sizeof(void *)) + kBlockOverhead;           // expiry node
    size += qint64(answer.headers.capacity()) * qint64(sizeof(HeaderList::value_type)) + kBlockOverhead;
    for (const auto &[name, value] : answer.headers)
        size += heldBy(name) + heldBy(value);
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

void AnswerCache::store(const QByteArray &key, const CachedAnswer &given, qint64 ageMs)
{
    if (!enabled())
        return;
    const CachedAnswer answer = compact(given);
    const qint64 size = sizeOf(key, answer);
    if (size > m_maxBytes)
        return;
    dropExpired();
    if (const auto found = m_index.constFind(key); found != m_index.constEnd())
        erase(*found);
    evictTo(m_maxBytes - size);
    const qint64 storedAt = m_clock.steadyMs() - qBound<qint64>(0, ageMs, m_windowMs);
    m_entries.push_front(Entry{key, answer, storedAt, size, m_expiry.emplace(storedAt, key)});
    m_index.insert(key, m_entries.begin());
    m_bytes += size;
}

void AnswerCache::dropExpired()
{
    const qint64 now = m_clock.steadyMs();
    while (!m_expiry.empty() && now - m_expiry.begin()->first >= m_windowMs)
        erase(m_index.value(m_expiry.begin()->second));
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
    m_expiry.erase(it->expiry);
    m_index.remove(it->key);
    m_entries.erase(it);
}
