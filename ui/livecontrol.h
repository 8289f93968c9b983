#pragma once

#include <QStringList>

#include "livesettings.h"

struct AppSettings;
class ProxyPanel;
class ProxyServer;

// The dashboard's hands on the running proxy: the Settings dialog's live values, the breaker
// buttons and pausing admission. The proxy lives on its own thread and the GUI thread never calls
// it: each of these queues a call onto the proxy's thread and returns at once. What the proxy did
// shows in its next snapshot (ProxySnapshot::settings, admissionPaused, the breaker states) and,
// for the breakers, in the timeline (the transition's reason says "by hand").
namespace livecontrol {

// Sends the live-changeable options among `changed` ("--timeout", ...) from `values` to `proxy`,
// leaving its other live values as they are; returns the options sent (none: nothing is queued).
QStringList applySettings(ProxyServer *proxy, const AppSettings &values, const QStringList &changed);
void actOnBreaker(ProxyServer *proxy, const QString &upstream, BreakerAction action);
void setAdmissionPaused(ProxyServer *proxy, bool paused);
// The panel's breaker buttons and pause toggle, wired to `proxy`.
void connectPanel(ProxyPanel *panel, ProxyServer *proxy);

} // namespace livecontrol
