#pragma once

#include <QByteArray>
#include <QString>
#include <QStringList>

#include "result.h"

// Files only their owner may read. The call log says who called which model when, and with
// --log-bodies holds the prompts and answers themselves; the control token (controltoken.h) lets
// whoever holds it steer the proxy. So neither they nor their folders may be readable by other
// local users. Modes are set with chmod after creating, so the umask (which could
// leave 0644, or take the owner's own write bit) does not decide them; an existing file or folder
// that group or others can read is tightened, and logged. Each function returns what it changed
// ("folder /x/breakwater: 0755 -> 0700").

// Creates `folder` and any missing parents; the folder itself is made 0700. An existing folder is
// tightened only when `tightenExisting` (Breakwater's own data folder), never a folder the user
// chose for --log-db, such as /tmp or their home.
QStringList makePrivateFolder(const QString &folder, bool tightenExisting);

// An SQLite database at `path`: its folder as makePrivateFolder(folder, false), the file created
// empty with 0600 if missing (SQLite reads an empty file as an empty database, and gives the -wal
// and -shm files it creates the database file's mode), and the file, -wal, -shm and -journal
// tightened to their owner's bits where they are looser. Failures are left for SQLite to report.
QStringList makePrivateDatabase(const QString &path);

// Writes `bytes` to `path` as a file only its owner may read or write (0600), whatever the umask
// and whatever mode a file already there had: every export (HAR, the table's CSV, the charts' PNGs)
// holds what the call log holds. Written whole or not at all (QSaveFile): a failure leaves an
// existing file as it was and says why.
Result writePrivateFile(const QString &path, const QByteArray &bytes);

// A new file at `path` holding `content`, 0600 whatever the umask, its folder as
// makePrivateFolder(folder, false). Written whole under a temporary name beside it and then linked
// into place, so that a reader never sees it half-written; never replaces a file: fails when `path`
// exists (then nothing is written there).
Result createPrivateFile(const QString &path, const QByteArray &content);

// How `path` is open to group or others, as ls and chmod say it ("0644"); empty when only its owner
// has bits on it, or when it does not exist.
QString looseMode(const QString &path);
