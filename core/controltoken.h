#pragma once

#include <QByteArray>
#include <QString>

#include "result.h"

// The owner's control token: the secret that every route under /breakwater/ asks for
// (controlgate.h), so that only the user who runs Breakwater steers or reads it, not every local
// user who can open a loopback socket. One per user, made at the first start: 32 bytes from the
// system's random generator, written as 43 base64url characters in a file only its owner may read
// (0600 in a 0700 folder, privatefiles.h). `breakwater fault ...` reads the same file; the dashboard
// runs in the same process as the proxy and needs none.
//
// A token file that exists is read, never replaced, so the running proxy and the command line
// always agree. One that group or others may read is refused, not tightened: whoever could read it
// may hold the token already, and a quiet chmod would hide that; the message says to delete it (a
// new token is made at the next start) or to chmod 600 it.

// $XDG_CONFIG_HOME/breakwater/control-token (~/.config/breakwater/control-token): in the config
// folder rather than $XDG_RUNTIME_DIR, which headless servers often lack and which is emptied at
// logout, while a token must outlive a restart of the service.
QString defaultControlTokenFile();

// At the start of the proxy: reads the token at `path`, or makes a new one there when no file is
// there yet. `ownFolder`: the folder is Breakwater's own (the default path), so an existing one is
// tightened to 0700; a folder chosen with --control-token keeps its mode.
Expected<QByteArray> loadOrCreateControlToken(const QString &path, bool ownFolder);

// For a client of the control API (`breakwater fault`): reads the token at `path`, never makes one.
Expected<QByteArray> readControlToken(const QString &path);
