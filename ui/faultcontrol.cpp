#include "faultcontrol.h"

#include <algorithm>

#include <QCoreApplication>
#include <QMenu>
#include <QMetaObject>
#include <QStringList>

#include "faults/faultinjector.h"
#include "fleet/fleetfaults.h"
#include "fleet/sharedstate.h"
#include "faultspanel.h"
#include "proxyserver.h"
#include "proxysnapshot.h"

using namespace Qt::StringLiterals;

namespace faultcontrol {

// QCoreApplication::translate spelled out: lupdate reads it, and it read nothing from a local tr().
QList<Preset> presets()
{
    return {
        {QCoreApplication::translate("faultcontrol", "503 storm 60 s"), u"503:for=60s"_s},
        {QCoreApplication::translate("faultcontrol", "529 overloaded 60 s (Anthropic)"), u"529:upstream=anthropic:for=60s"_s},
        {QCoreApplication::translate("faultcontrol", "Hang 30 s"), u"hang:for=30s"_s},
        {QCoreApplication::translate("faultcontrol", "Cut streams 60 s"), u"cut=3:for=60s"_s},
        {QCoreApplication::translate("faultcontrol", "Slow streams 60 s"), u"slow-stream=1s:for=60s"_s},
    };
}

void arm(ProxyServer *proxy, const FaultRule &rule, bool wholeFleet)
{
    QMetaObject::invokeMethod(proxy, [proxy, rule, wholeFleet] {
        // The fleet's Redis unavailable meanwhile: armed here only, as the table then shows.
        FleetFaults *fleet = proxy->sharedState() ? proxy->sharedState()->faults() : nullptr;
        if (wholeFleet && fleet && fleet->isShared())
            fleet->arm(rule);
        else
            proxy->faults()->arm(rule);
    }, Qt::QueuedConnection);
}

bool arm(ProxyServer *proxy, const QString &text)
{
    const Expected<FaultRule> rule = FaultRule::parse(text);
    if (!rule.ok())
        return false;
    arm(proxy, rule.value());
    return true;
}

void disarm(ProxyServer *proxy, int id)
{
    QMetaObject::invokeMethod(proxy, [proxy, id] { (void)proxy->faults()->disarm(id); }, Qt::QueuedConnection);
}

void clear(ProxyServer *proxy)
{
    QMetaObject::invokeMethod(proxy, [proxy] { (void)proxy->faults()->clear(); }, Qt::QueuedConnection);
}

void connectPanel(FaultsPanel *panel, ProxyServer *proxy)
{
    QObject::connect(panel, &FaultsPanel::armRequested, panel,
                     [proxy](const FaultRule &rule, bool wholeFleet) { arm(proxy, rule, wholeFleet); });
    QObject::connect(panel, &FaultsPanel::disarmRequested, panel, [proxy](int id) { disarm(proxy, id); });
    QObject::connect(panel, &FaultsPanel::clearRequested, panel, [proxy] { clear(proxy); });
}

void addPresetActions(QMenu *menu, ProxyServer *proxy)
{
    for (const Preset &preset : presets()) {
        QAction *action = menu->addAction(preset.name);
        action->setToolTip(preset.rule);
        action->setData(preset.rule);
        QObject::connect(action, &QAction::triggered, menu, [proxy, rule = preset.rule] { (void)arm(proxy, rule); });
    }
    menu->addSeparator();
    QObject::connect(menu->addAction(QCoreApplication::translate("faultcontrol", "Clear all faults")), &QAction::triggered, menu, [proxy] { clear(proxy); });
}

QString armedSummary(const ProxySnapshot &snapshot)
{
    QStringList rules;
    for (const FaultRule &rule : snapshot.faults) {
        QString text = rule.label();
        if (rule.expiresAtMs > 0)
            text += u' ' + QCoreApplication::translate("faultcontrol", "(%1 s left)").arg((std::max<qint64>(rule.expiresAtMs - snapshot.steadyMs, 0) + 999) / 1000);
        rules << text;
    }
    return rules.join(u", "_s);
}

} // namespace faultcontrol
