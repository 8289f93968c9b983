#pragma once

#include <QByteArray>
#include <QString>

#include "result.h"

// "Start Breakwater when I log in": an XDG autostart entry,
// $XDG_CONFIG_HOME/autostart/io.github.breakwater.Breakwater.desktop, that starts the app in the tray
// (--minimized). The entry is the whole state: no saved setting mirrors it, so a user who deletes
// the file by hand sees the box unticked. Widget-free, so tests can check it with a private
// XDG_CONFIG_HOME.
class LoginAutostart final
{
public:
    static QString entryPath();
    // An entry exists and is not switched off (Hidden=true is how desktops disable one).
    static bool isEnabled();
    // Writes the entry for `executable`, or removes it.
    static Result setEnabled(bool enabled, const QString &executable);
    // The entry's text for `executable` (quoted as the Desktop Entry spec asks, where needed).
    static QByteArray entryText(const QString &executable);
};
