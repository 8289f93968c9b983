#pragma once

#include <QHash>
#include <QObject>
#include <QPointer>

#include <functional>
#include <optional>

#include "sharing/answercache.h"

class RedisLink;

// The fleet's second-level answer cache: a finished answer one instance stored is found by the
// others for the rest of its window. The local AnswerCache stays the first level; this is asked
// only when it misses and no local flight runs for the key. The Redis key is the request key
// (which covers the credential's fingerprint), so an answer never crosses credentials.
class SharedAnswers final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(SharedAnswers)
public:
    explicit SharedAnswers(RedisLink &link, QObject *parent = nullptr);

    struct Found
    {
        CachedAnswer answer;
        qint64 leftMs = 0;   // of its window, as Redis counts it
    };
    // `done` is called once, later, within the link's command deadline: nullopt on a miss or when
    // Redis is degraded, slow or gone. Identical lookups in progress share one command (a herd on
    // this instance asks Redis once).
    void find(const QByteArray &key, QObject *context, std::function<void(std::optional<Found>)> done);
    void store(const QByteArray &key, const CachedAnswer &answer, qint64 windowMs);

    static QByteArray redisKey(const QByteArray &key);
    static QByteArray encode(const CachedAnswer &answer);
    static std::optional<CachedAnswer> decode(const QByteArray &bytes);

private:
    using Done = std::function<void(std::optional<Found>)>;
    RedisLink &m_link;
    QHash<QByteArray, QList<std::pair<QPointer<QObject>, Done>>> m_lookups;   // key -> who waits for it
};
