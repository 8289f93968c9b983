#pragma once

#include <QByteArray>
#include <QString>
#include <QUrl>

#include "result.h"

// The control tokens `breakwater --attach` was given for remote Breakwaters, kept per remote
// (scheme://host:port) so a team's gateway asks its owner for its token once, not at every start.
// In a JSON file only its owner may read (0600 in Breakwater's 0700 config folder, privatefiles.h),
// beside this machine's own control token; a file others may read is not used (its tokens may be
// known already) and remember() rewrites it 0600. Not the desktop keyring yet (QtKeychain needs a
// Secret Service running, which Xvfb sessions and the test machines lack; README, "Team gateway").
class RemoteTokens final
{
public:
    explicit RemoteTokens(QString path = defaultPath());

    // $XDG_CONFIG_HOME/breakwater/attach-tokens.json
    static QString defaultPath();
    // The remote as the file keys it: scheme://host:port, lower case, no user:password or path.
    static QString key(const QUrl &remote);

    QString path() const { return m_path; }
    // The token kept for `remote`; empty when none (or the file is not private).
    QByteArray tokenFor(const QUrl &remote) const;
    Result remember(const QUrl &remote, const QByteArray &token);

private:
    QString m_path;
};
