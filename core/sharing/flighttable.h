#pragma once

#include <QByteArray>
#include <QHash>

class Flight;

// Calls in flight by request key (Go's singleflight map). A flight leaves the table before its
// riders are released, so a request arriving at that moment starts a new call or hits the cache,
// and never joins a call that has already ended. Touched only on the proxy thread.
class FlightTable final
{
public:
    Flight *find(const QByteArray &key) const { return m_flights.value(key); }
    void insert(const QByteArray &key, Flight *flight) { m_flights.insert(key, flight); }
    void remove(const QByteArray &key, const Flight *flight)
    {
        if (m_flights.value(key) == flight)
            m_flights.remove(key);
    }
    int size() const { return int(m_flights.size()); }

private:
    QHash<QByteArray, Flight *> m_flights;
};
