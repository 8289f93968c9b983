#pragma once

#include <QByteArray>
#include <QList>

// One Redis answer as a value (RESP2: hiredis 0.14 has no RESP3), or why there is none: the
// connection is degraded, the command missed its deadline, or the connection was lost. Callers
// treat anything but a reply as "no shared state now" and go on locally.
struct RedisReply
{
    enum class Kind { Nil, String, Integer, Array, Status, Error, Unavailable };
    Kind kind = Kind::Unavailable;
    QByteArray text;        // String, Status, Error; Unavailable: why
    qint64 integer = 0;
    QList<RedisReply> items;

    bool answered() const { return kind != Kind::Unavailable && kind != Kind::Error; }
    bool isOk() const { return kind == Kind::Status && text == "OK"; }
    qint64 toInteger() const { return kind == Kind::Integer ? integer : text.toLongLong(); }
};
