#pragma once

#include <memory>

#include <QString>
#include <QStringList>

#include "proxyconfig.h"

class CallLog;
class DashboardModel;
class MockProvider;
class ProxyServer;
class QCoreApplication;

// The desktop side of `breakwater`'s composition root, kept here so app/main.cpp stays small:
// which application object to build, the saved settings, and the window, tray and demo wiring.

// True when a window can be shown: a display (DISPLAY or WAYLAND_DISPLAY) or an explicitly chosen
// Qt platform (QT_QPA_PLATFORM). Without one a widgets program aborts, so main runs headless.
bool displayAvailable();

// QApplication for the desktop app, QCoreApplication for --headless.
std::unique_ptr<QCoreApplication> createApplication(int &argc, char **argv, bool desktop);

// Why Breakwater cannot start (its port is taken, its control token is unusable), in a dialog: the
// desktop app is started from a menu, where nobody reads stderr. Needs the QApplication; shows
// nothing on the offscreen and minimal platforms, where nobody could close it.
void showStartupFailure(const QString &why);

// The settings saved from the dashboard (QSettings), under the options in `given` (set by the
// command line or the configuration file). Headless runs read them too: one configuration story,
// whether or not there is a display.
ProxyConfig withSavedDesktopSettings(const ProxyConfig &config, const QStringList &given);

// Feeds the proxy's events to the model, queued: the proxy emits on its own thread and must never
// wait for the GUI.
void connectProxyToModel(ProxyServer *proxy, DashboardModel *model);

// Builds the dashboard, the tray (where one exists, or once it appears) and, with a mock, the demo
// scenarios; wires the proxy's events to them (queued: the proxy lives on its own thread) and runs
// the event loop.
// Every view starts with the call log's latest rows when there is one (may be null); the demo's
// second proxies log their calls to it too.
// `given`: the options the command line or configuration file set, which saved settings cannot
// change this run. `minimized`: start in the tray (or minimised, without one).
// `proxy`, `mock` and `callLog` must outlive this call.
int runDesktop(ProxyServer *proxy, MockProvider *mock, const ProxyConfig &config, const QStringList &given,
               bool minimized, CallLog *callLog = nullptr);
