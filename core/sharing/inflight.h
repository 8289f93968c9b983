#pragma once

#include <QByteArray>
#include <QJsonArray>
#include <QJsonObject>
#include <QList>
#include <QString>

class Flight;

// "In flight, now": one upstream call in progress as a value, for the dashboard's In flight list and
// /breakwater/stats. Made by ProxyServer::snapshot() (every 250 ms) from Sharing's flights, so it is
// cheap: counters the flight keeps anyway, no copy of a body. The list is oldest first and capped at
// kMaxListed (the oldest ones are the ones a hang makes interesting); the snapshot says how many
// more there were.
struct InFlight
{
    enum class State : quint8 {
        Queued,      // waiting for a slot in the upstream's pool (queuePosition: 1 = next)
        Waiting,     // sent, no answer yet (waiting for the first byte)
        Receiving,   // the answer's headers came, the body is arriving (buffered, not a stream)
        Streaming,   // an event stream is arriving and relayed to the riders
        Abandoned,   // every rider hung up: kept for a retry to rejoin, or being cancelled
    };
    static constexpr int kMaxListed = 200;

    QByteArray requestId;       // the leader's: the rider whose request made the call
    QByteArray route;
    QByteArray upstream;
    QString model;
    bool stream = false;        // the leader asked for a stream
    qint64 startedAtMs = 0;     // wall clock: the leader's arrival
    qint64 ageMs = 0;           // at the snapshot
    int joined = 0;             // riders beside the leader
    int hungUp = 0;             // riders (the leader too) whose connection has closed
    qint64 bytes = 0;           // body bytes received from the upstream so far
    qint64 events = 0;          // stream events parsed so far
    State state = State::Queued;
    int queuePosition = 0;      // with Queued: 1-based, in order of submission; else 0
    bool trial = false;         // the breaker's half-open trial
    QString injected;           // the fault rule playing this call (FaultRule::label()); empty: none
    bool operator==(const InFlight &) const = default;

    QJsonObject toJson() const;

    // `flights` in the order they were made (Sharing::inProgressFlights): that is the order they
    // were submitted to their pools, whose queues are first in, first out, so a queued flight's
    // position is its rank among its upstream's queued flights. Oldest first, at most `max`.
    static QList<InFlight> list(const QList<Flight *> &flights, qint64 nowMs, int max = kMaxListed);
    static QJsonArray toJson(const QList<InFlight> &flights);
};

QByteArray inFlightStateName(InFlight::State state);   // queued, waiting, receiving, streaming, abandoned
