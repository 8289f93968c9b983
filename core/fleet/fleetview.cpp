#include "fleet/fleetview.h"

#include <QJsonArray>
#include <QJsonDocument>

using namespace Qt::StringLiterals;

namespace {

QJsonObject figuresJson(const FleetInstance &instance)
{
    return {{u"calls"_s, instance.calls}, {u"requests"_s, instance.requests}, {u"joined"_s, instance.joined},
            {u"misses"_s, instance.misses}, {u"hits"_s, instance.hits}};
}

void readFigures(FleetInstance &instance, const QJsonObject &json)
{
    instance.calls = json.value(u"calls"_s).toInteger();
    instance.requests = json.value(u"requests"_s).toInteger();
    instance.joined = json.value(u"joined"_s).toInteger();
    instance.misses = json.value(u"misses"_s).toInteger();
    instance.hits = json.value(u"hits"_s).toInteger();
}

} // namespace

QByteArray FleetInstance::toHeartbeat() const
{
    QJsonObject json = figuresJson(*this);
    json.insert(u"label"_s, label);
    json.insert(u"at"_s, lastSeenMs);
    return QJsonDocument(json).toJson(QJsonDocument::Compact);
}

FleetInstance FleetInstance::fromHeartbeat(const QByteArray &id, const QByteArray &value)
{
    FleetInstance instance;
    instance.id = id;
    // An older Breakwater's heartbeat is only its time: alive, figures unknown (0).
    const QJsonObject json = QJsonDocument::fromJson(value).object();
    if (json.isEmpty()) {
        instance.lastSeenMs = value.toLongLong();
        return instance;
    }
    readFigures(instance, json);
    instance.label = json.value(u"label"_s).toString();
    instance.lastSeenMs = json.value(u"at"_s).toInteger();
    return instance;
}

FleetView::Totals FleetView::totals() const
{
    Totals totals;
    for (const FleetInstance &instance : instances) {
        ++totals.instances;
        totals.calls += instance.calls;
        totals.requests += instance.requests;
        totals.joined += instance.joined;
        totals.misses += instance.misses;
        totals.hits += instance.hits;
    }
    return totals;
}

const FleetInstance *FleetView::self() const
{
    for (const FleetInstance &instance : instances) {
        if (instance.self)
            return &instance;
    }
    return nullptr;
}

QJsonObject FleetView::toJson() const
{
    QJsonArray list;
    for (const FleetInstance &instance : instances) {
        QJsonObject json = figuresJson(instance);
        json.insert(u"id"_s, QString::fromLatin1(instance.id));
        json.insert(u"label"_s, instance.label);
        json.insert(u"alive"_s, instance.alive);
        json.insert(u"self"_s, instance.self);
        json.insert(u"lastSeenMs"_s, instance.lastSeenMs);
        json.insert(u"ageMs"_s, instance.ageMs);
        list.append(json);
    }
    const Totals sum = totals();
    QJsonObject json{{u"state"_s, shared ? u"shared"_s : u"degraded"_s},
                     {u"instances"_s, list},
                     {u"totals"_s, QJsonObject{{u"instances"_s, sum.instances}, {u"calls"_s, sum.calls},
                                               {u"requests"_s, sum.requests}, {u"joined"_s, sum.joined},
                                               {u"misses"_s, sum.misses}, {u"hits"_s, sum.hits}}}};
    if (!shared)
        json.insert(u"reason"_s, reason);
    return json;
}

FleetView FleetView::fromJson(const QJsonObject &json)
{
    FleetView view;
    if (json.isEmpty())
        return view;
    view.enabled = true;
    view.shared = json.value(u"state"_s).toString() == u"shared"_s;
    view.reason = json.value(u"reason"_s).toString();
    for (const QJsonValue value : json.value(u"instances"_s).toArray()) {
        const QJsonObject item = value.toObject();
        FleetInstance instance;
        readFigures(instance, item);
        instance.id = item.value(u"id"_s).toString().toLatin1();
        instance.label = item.value(u"label"_s).toString();
        instance.alive = item.value(u"alive"_s).toBool(true);
        instance.self = item.value(u"self"_s).toBool();
        instance.lastSeenMs = item.value(u"lastSeenMs"_s).toInteger();
        instance.ageMs = item.value(u"ageMs"_s).toInteger();
        view.instances.append(instance);
    }
    return view;
}
