#pragma once

#include <QByteArray>
#include <QString>
#include <QUrl>

class DashboardModel;
class DashboardWindow;
class RemoteControl;
class RemoteFeed;

// `breakwater --attach URL`: the desktop app, window and tray, for a Breakwater that runs
// elsewhere (a team server, CI). No proxy starts here: the dashboard is fed by the remote's event
// stream (attach/remotefeed.h) and its buttons act through the remote's control API
// (attach/remotecontrol.h), both with the owner's control token.

struct AttachTarget
{
    QUrl remote;              // http(s)://host:port
    QByteArray controlToken;
    QString caFile;           // PEM authorities trusted besides the system's; empty: none
    bool minimized = false;   // start in the tray
    // Without --control-token: where a token the window asks for, when the remote refuses this
    // one, is kept for the remote (remotetokens.h). Empty: never ask (the token given is the one).
    QString tokensFile;
};

// The feed's events into the model, as connectProxyToModel does for a local proxy (desktopapp.h);
// the opening calls of the first stream become the model's history.
void connectFeedToModel(RemoteFeed *feed, DashboardModel *model);
// The window's breaker buttons, pause toggle and fault controls, wired to the remote.
void connectWindowToRemote(DashboardWindow *window, RemoteControl *control);

// Builds the window and tray, attaches and runs the event loop. Returns the exit status (2 when
// the CA file cannot be read).
int runAttached(const AttachTarget &target);
