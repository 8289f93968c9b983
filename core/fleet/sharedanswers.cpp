#include "fleet/sharedanswers.h"

#include <QDataStream>
#include <QIODevice>

#include "fleet/headercodec.h"
#include "fleet/redislink.h"

namespace {
constexpr quint32 kFormat = 1;   // bumped when the encoding changes: an old entry then reads as a miss

// One round trip for the answer and what is left of its window.
const QByteArray kFindScript = "return {redis.call('GET', KEYS[1]), redis.call('PTTL', KEYS[1])}";
} // namespace

SharedAnswers::SharedAnswers(RedisLink &link, QObject *parent) : QObject(parent), m_link(link) {}

QByteArray SharedAnswers::redisKey(const QByteArray &key)
{
    // The hash tag keeps one request's keys in one slot, should the Redis be a cluster.
    return "bw:v1:{" + key.toHex() + "}:ans";
}

QByteArray SharedAnswers::encode(const CachedAnswer &answer)
{
    QByteArray bytes;
    QDataStream out(&bytes, QIODevice::WriteOnly);
    out.setVersion(QDataStream::Qt_6_4);
    out << kFormat << qint32(answer.status);
    HeaderCodec::write(out, answer.headers);
    out << answer.body << answer.stream << answer.costUsd << answer.inputTokens << answer.outputTokens
        << answer.cachedTokens;
    return bytes;
}

std::optional<CachedAnswer> SharedAnswers::decode(const QByteArray &bytes)
{
    QDataStream in(bytes);
    in.setVersion(QDataStream::Qt_6_4);
    quint32 format = 0;
    qint32 status = 0;
    in >> format >> status;
    CachedAnswer answer;
    answer.status = status;
    if (format != kFormat || !HeaderCodec::read(in, answer.headers))
        return std::nullopt;
    in >> answer.body >> answer.stream >> answer.costUsd >> answer.inputTokens >> answer.outputTokens
        >> answer.cachedTokens;
    if (in.status() != QDataStream::Ok)
        return std::nullopt;
    return answer;
}

void SharedAnswers::find(const QByteArray &key, QObject *context, std::function<void(std::optional<Found>)> done)
{
    auto &waiting = m_lookups[key];
    waiting.append({context, std::move(done)});
    if (waiting.size() > 1)
        return;   // asked already: this one is answered with the others
    m_link.command({"EVAL", kFindScript, "1", redisKey(key)}, this, [this, key](const RedisReply &reply) {
        std::optional<Found> found;
        if (reply.kind == RedisReply::Kind::Array && reply.items.size() == 2
            && reply.items[0].kind == RedisReply::Kind::String) {
            std::optional<CachedAnswer> answer = decode(reply.items[0].text);
            const qint64 leftMs = reply.items[1].toInteger();
            if (answer && leftMs > 0)
                found = Found{std::move(*answer), leftMs};
        }
        for (const auto &[context, done] : m_lookups.take(key)) {
            if (context)
                done(found);
        }
    });
}

void SharedAnswers::store(const QByteArray &key, const CachedAnswer &answer, qint64 windowMs)
{
    if (windowMs <= 0)
        return;
    // NX: the first answer stored for a key keeps its window, as the local cache's first store would.
    m_link.command({"SET", redisKey(key), encode(answer), "PX", QByteArray::number(windowMs), "NX"}, this,
                   [](const RedisReply &) {});
}
