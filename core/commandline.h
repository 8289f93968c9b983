#pragma once

#include "proxyconfig.h"
#include "result.h"

#include <QHostAddress>
#include <QUrl>
#include <QString>
#include <QStringList>

// `breakwater`'s command line and configuration file: the fixed interface the README documents.
// Options come in layers, each overriding the ones below: the command line, then the configuration
// file (--config FILE, else $XDG_CONFIG_HOME/breakwater/config.json when it exists), then the
// settings saved from the dashboard (applied by the caller to the options not in `given`), then the
// defaults of proxyconfig.h. Parsing is separate from main() so tests check every option and value.
// `breakwater fault add RULE | list | clear [ID]`: a request to the running instance's
// /breakwater/faults (app/faultclient.h).
struct FaultCommand
{
    enum class Action { None, Add, List, Clear };
    Action action = Action::None;
    QString argument;   // Add: the rule's canonical text; Clear: the id, empty for all
    bool fleet = false; // Add --fleet: on every instance sharing the running one's --shared-state
};

// `breakwater exec [OPTIONS] -- COMMAND [ARGS]`: COMMAND run against a private Breakwater, with a
// fault timeline played into its traffic (app/execcommand.h). Every other option given before `--`
// configures that private Breakwater.
struct ExecCommand
{
    bool requested = false;
    QString faultsFile;      // --faults FILE: the timeline (drill/faulttimeline.h)
    QString junitFile;       // --junit FILE
    QString harFile;         // --har FILE
    QStringList command;     // COMMAND and its arguments, as given after `--`
};

struct CommandLine
{
    ProxyConfig config;
    bool headless = false;
    bool demo = false;
    bool minimized = false;   // start in the tray without showing the window (login autostart)
    QUrl attach;              // --attach URL: the desktop app for that remote Breakwater, no proxy here
    bool showHelp = false;
    bool showVersion = false;
    QString logDb;            // empty: the per-user default (CallLog::defaultPath())
    QString controlTokenFile; // empty: the per-user default (defaultControlTokenFile(), controltoken.h)
    bool logBodies = false;
    bool report = false;      // `breakwater report`: print the duplicate report of the call log and exit
    bool reportJson = false;
    FaultCommand faultCommand;   // `breakwater fault ...`: talk to the running instance and exit
    ExecCommand exec;            // `breakwater exec ... -- COMMAND`
    QString configFile;       // the configuration file that was read, if any
    QStringList given;        // options set by the command line or the configuration file ("--timeout")
};

// `defaultConfigFile` is read when --config is not given and the file exists; empty for none.
// A failure (an unknown option, an invalid value, a bad configuration file) is printed, exit 2.
Expected<CommandLine> parseCommandLine(const QStringList &arguments, const QString &defaultConfigFile = {});

// $XDG_CONFIG_HOME/breakwater/config.json (~/.config/breakwater/config.json).
QString defaultConfigFile();

// HOST:PORT with an IP address (or localhost, or [v6]); shared with the settings dialog.
bool parseListenAddress(const QString &text, QHostAddress *address, quint16 *port);
QString helpText();

// Checks one option's value as the command line does and sets it in `config` (name without the
// dashes, e.g. "timeout", "2.5"); `label` names it in the message. For the values changed live
// (livesettings.h), so they are checked in one place.
Result applyOptionValue(ProxyConfig &config, const QString &name, const QString &value, const QString &label);
