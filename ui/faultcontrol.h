#pragma once

#include <QList>
#include <QString>

#include "faults/faultrule.h"

class FaultsPanel;
class ProxyServer;
class QMenu;
struct ProxySnapshot;

// The dashboard's and the tray's hands on the proxy's fault injection (core/faults/faultinjector.h),
// and the presets both offer. As livecontrol.h does for the live settings, each call is queued onto
// the proxy's thread and returns at once: the GUI thread never touches the FaultInjector. What it
// did shows in the next snapshot (ProxySnapshot::faults), a quarter of a second later at most.
namespace faultcontrol {

struct Preset
{
    QString name;   // "503 storm 60 s"
    QString rule;   // its text form, parsed by FaultRule::parse: "503:for=60s"
};
// The tray's and the panel's one-click rules, in menu order.
QList<Preset> presets();   // named in the user's language at each call

void arm(ProxyServer *proxy, const FaultRule &rule, bool wholeFleet = false);
// Parses `text` and arms it; false (nothing queued) when it does not parse.
bool arm(ProxyServer *proxy, const QString &text);
void disarm(ProxyServer *proxy, int id);
void clear(ProxyServer *proxy);

// The panel's Add, Remove, Clear all and preset buttons, wired to `proxy`.
void connectPanel(FaultsPanel *panel, ProxyServer *proxy);
// The presets and "Clear all faults" as actions of `menu`, wired to `proxy`.
void addPresetActions(QMenu *menu, ProxyServer *proxy);

// "#1 503:for=60s (41 s left), #2 hang": the armed rules in one line, for the banner and the tray.
QString armedSummary(const ProxySnapshot &snapshot);

} // namespace faultcontrol
