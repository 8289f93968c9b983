#include "cleartextwarning.h"

#include <QCoreApplication>
#include <QLabel>
#include <QMainWindow>
#include <QStatusBar>

#include "proxyconfig.h"

namespace cleartextwarning {

QString text(const ProxyConfig &config)
{
    if (config.listenAddress.isLoopback() || !config.tlsCertFile.isEmpty())
        return {};
    //: %1 is the address Breakwater listens on, e.g. 0.0.0.0:8080
    return QCoreApplication::translate("ClearTextWarning",
                                       "No TLS on %1: members' tokens and prompts cross the network in clear text "
                                       "(start with --tls-cert and --tls-key)")
        .arg(config.listenAddress.toString() + u':' + QString::number(config.listenPort));
}

void show(QMainWindow *window, const ProxyConfig &config)
{
    const QString warning = text(config);
    if (warning.isEmpty())
        return;
    auto *label = new QLabel(warning, window);
    label->setObjectName(QStringLiteral("clearTextWarning"));
    label->setStyleSheet(QStringLiteral("QLabel { background: #fff3cd; color: #7a4d00; padding: 2px 6px; }"));
    window->statusBar()->addPermanentWidget(label, 1);
}

} // namespace cleartextwarning
