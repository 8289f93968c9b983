#pragma once

#include <QString>

class QMainWindow;
struct ProxyConfig;

// A Breakwater listening beyond loopback without TLS (a team's, --access-tokens without
// --tls-cert) says so in its window as well as on stderr at start: members' tokens and prompts
// cross the network in clear text, and the owner looking at the dashboard must see it.
namespace cleartextwarning {

// The warning for `config`; empty when it listens on loopback or serves TLS.
QString text(const ProxyConfig &config);
// Puts it in `window`'s status bar, in a label that stays (object name "clearTextWarning");
// nothing when text() is empty.
void show(QMainWindow *window, const ProxyConfig &config);

} // namespace cleartextwarning
