#include "livecontrol.h"

#include <QMetaObject>

#include "appsettings.h"
#include "proxypanel.h"
#include "proxyserver.h"

namespace livecontrol {

QStringList applySettings(ProxyServer *proxy, const AppSettings &values, const QStringList &changed)
{
    QStringList live;
    for (const QString &option : LiveSettings::options()) {
        if (changed.contains(option))
            live << option;
    }
    if (live.isEmpty())
        return {};
    QStringList keep = AppSettings::options();
    for (const QString &option : std::as_const(live))
        keep.removeAll(option);
    // Merged on the proxy thread, over the values in use there and then: a change made through the
    // control API meanwhile is kept for every option the user did not touch here.
    QMetaObject::invokeMethod(proxy, [proxy, values, keep] {
        ProxyConfig config;
        proxy->liveSettings().applyTo(config);
        values.applyTo(config, keep);
        proxy->applyLiveSettings(LiveSettings::of(config));
    }, Qt::QueuedConnection);
    return live;
}

void actOnBreaker(ProxyServer *proxy, const QString &upstream, BreakerAction action)
{
    QMetaObject::invokeMethod(proxy, [proxy, name = upstream.toLatin1(), action] {
        (void)proxy->actOnBreaker(name, action);
    }, Qt::QueuedConnection);
}

void setAdmissionPaused(ProxyServer *proxy, bool paused)
{
    QMetaObject::invokeMethod(proxy, [proxy, paused] { proxy->setAdmissionPaused(paused); }, Qt::QueuedConnection);
}

void connectPanel(ProxyPanel *panel, ProxyServer *proxy)
{
    QObject::connect(panel, &ProxyPanel::breakerActionRequested, panel,
                     [proxy](const QString &upstream, BreakerAction action) { actOnBreaker(proxy, upstream, action); });
    QObject::connect(panel, &ProxyPanel::admissionPauseRequested, panel,
                     [proxy](bool paused) { setAdmissionPaused(proxy, paused); });
}

} // namespace livecontrol
