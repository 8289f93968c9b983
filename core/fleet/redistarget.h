#pragma once

#include <QByteArray>
#include <QString>

#include "result.h"

// Where the fleet's shared state lives: `--shared-state redis://[user:password@]host:port[/db]`.
// The password is kept only to authenticate; `display()` never shows it, so the target can be logged.
struct RedisTarget
{
    QString host;
    quint16 port = 6379;
    QByteArray user;       // empty: AUTH with the password only (the default user)
    QByteArray password;   // empty: no AUTH
    int db = 0;

    // redis://host:port/db, with "user:***@" when there are credentials: safe for logs and /healthz.
    QString display() const;
};

// A malformed URL says what is wrong with it, without echoing the password.
Expected<RedisTarget> parseRedisTarget(const QString &text);
