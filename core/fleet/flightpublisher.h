#pragma once

#include <QByteArray>
#include <QObject>
#include <QTimer>

#include "http/apierror.h"

class FleetFlights;
class UpstreamCall;
struct UpstreamResult;

// The leader's side of a fleet flight: follows one upstream call and writes what it sees, in order,
// to the flight's Redis stream (numbered entries: head, body pieces, end), and renews the lease
// every FleetFlights::kRenewEvery while the call runs. The end entry and the lease's release are
// one script, sent only after the call's answer was stored as a shared answer (queued behind it),
// so a request that finds no lease finds the answer.
//
// A write that fails (Redis degraded, slow, or the lease lost while Redis was paused) breaks the
// stream: nothing more is written but an end saying the stream broke, which joiners pass on as an
// error, never as a clean end with a gap. Owned by FleetFlights, gone once the end is written.
// Proxy thread only.
class FlightPublisher final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(FlightPublisher)
public:
    FlightPublisher(FleetFlights &flights, const QByteArray &key, const QByteArray &token, UpstreamCall *call,
                    QObject *parent = nullptr);

private:
    void publish(const QByteArray &type, const QByteArray &data);
    void end(const UpstreamResult &result);
    void renew();
    void breakStream();

    FleetFlights &m_flights;
    QByteArray m_key;
    QByteArray m_token;
    QByteArray m_stream;
    qint64 m_next = 0;        // the next entry's number
    bool m_broken = false;
    QTimer m_renew;
};
