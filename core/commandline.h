#pragma once

#include "proxyconfig.h"

#include <QHostAddress>
#include <QString>
#include <QStringList>

// `breakwater`'s command line: the fixed interface in the README's Options. Parsing is separate
// from main() so tests can check every option and every invalid value.
struct CommandLine
{
    ProxyConfig config;
    bool headless = false;
    bool demo = false;
    bool showHelp = false;
    bool showVersion = false;
    QString logDb;        // empty: the per-user default (CallLog::defaultPath())
    bool logBodies = false;
    bool report = false;  // `breakwater report`: print the duplicate report of the call log and exit
    bool reportJson = false;
    QString error;        // non-empty: print it and exit 2
};

CommandLine parseCommandLine(const QStringList &arguments);

// HOST:PORT with an IP address (or localhost, or [v6]); shared with the settings dialog.
bool parseListenAddress(const QString &text, QHostAddress *address, quint16 *port);
QString helpText();
