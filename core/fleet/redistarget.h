#pragma once

#include <QByteArray>
#include <QString>

#include "result.h"

#include <chrono>

// Where the fleet's shared state lives: `--shared-state redis://[user:password@]host:port[/db][?timeout=D]`.
// The password is kept only to authenticate; `display()` never shows it, so the target can be logged.
struct RedisTarget
{
    QString host;
    quint16 port = 6379;
    QByteArray user;       // empty: AUTH with the password only (the default user)
    QByteArray password;   // empty: no AUTH
    int db = 0;
    // How long a command may wait for its answer before the connection counts as stalled (D as
    // fault rules write it: 100ms, 2s). The default keeps a request's wait on Redis short; a Redis
    // across a slow link, or a test on a loaded machine, may need more.
    static constexpr std::chrono::milliseconds kDefaultTimeout{100};
    std::chrono::milliseconds timeout = kDefaultTimeout;

    // redis://host:port/db, with "user:***@" when there are credentials and "?timeout=" when not the
    // default: safe for logs and /healthz.
    QString display() const;
};

// A malformed URL says what is wrong with it, without echoing the password.
Expected<RedisTarget> parseRedisTarget(const QString &text);
