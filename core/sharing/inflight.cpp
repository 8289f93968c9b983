#include "sharing/inflight.h"

#include <algorithm>

#include <QHash>

#include "sharing/flight.h"

using namespace Qt::StringLiterals;

QByteArray inFlightStateName(InFlight::State state)
{
    switch (state) {
    case InFlight::State::Queued: return "queued";
    case InFlight::State::Waiting: return "waiting";
    case InFlight::State::Receiving: return "receiving";
    case InFlight::State::Streaming: return "streaming";
    case InFlight::State::Abandoned: return "abandoned";
    }
    return "queued";
}

QList<InFlight> InFlight::list(const QList<Flight *> &flights, qint64 nowMs, int max)
{
    QList<InFlight> listed;
    listed.reserve(flights.size());
    QHash<QByteArray, int> queuedAhead;   // by upstream, in submission order
    for (const Flight *flight : flights) {
        if (flight->riderCount() == 0)
            continue;   // only while `share` seats the first rider
        const CallRecord &leader = flight->leaderRecord();
        InFlight entry;
        entry.requestId = leader.requestId;
        entry.route = leader.route;
        entry.upstream = leader.upstream;
        entry.model = flight->model();
        entry.stream = leader.stream;
        entry.startedAtMs = leader.receivedAtMs;
        entry.ageMs = std::max<qint64>(nowMs - leader.receivedAtMs, 0);
        entry.joined = flight->riderCount() - 1;
        entry.hungUp = flight->hungUpCount();
        entry.bytes = flight->bytesReceived();
        entry.events = flight->eventsReceived();
        entry.trial = flight->isTrial();
        entry.injected = flight->injected();
        if (!flight->hasStarted()) {
            entry.state = State::Queued;
            entry.queuePosition = ++queuedAhead[entry.upstream];
        } else if (!flight->hasHeaders()) {
            entry.state = State::Waiting;
        } else {
            entry.state = flight->isStreaming() ? State::Streaming : State::Receiving;
        }
        // Said last: a queued flight whose riders left still holds its place in the queue.
        if (flight->isAbandoned())
            entry.state = State::Abandoned;
        listed.append(std::move(entry));
    }
    std::stable_sort(listed.begin(), listed.end(),
                     [](const InFlight &a, const InFlight &b) { return a.startedAtMs < b.startedAtMs; });
    if (listed.size() > max)
        listed.resize(max);
    return listed;
}

QJsonObject InFlight::toJson() const
{
    QJsonObject json{
        {u"requestId"_s, QString::fromLatin1(requestId)},
        {u"route"_s, QString::fromUtf8(route)},
        {u"upstream"_s, QString::fromLatin1(upstream)},
        {u"model"_s, model},
        {u"stream"_s, stream},
        {u"startedAtMs"_s, startedAtMs},
        {u"ageMs"_s, ageMs},
        {u"joined"_s, joined},
        {u"hungUp"_s, hungUp},
        {u"bytes"_s, bytes},
        {u"events"_s, events},
        {u"state"_s, QString::fromLatin1(inFlightStateName(state))},
        {u"trial"_s, trial},
    };
    if (state == State::Queued)
        json.insert(u"queuePosition"_s, queuePosition);
    if (!injected.isEmpty())
        json.insert(u"injected"_s, injected);
    return json;
}

QJsonArray InFlight::toJson(const QList<InFlight> &flights)
{
    QJsonArray array;
    for (const InFlight &flight : flights)
        array.append(flight.toJson());
    return array;
}
