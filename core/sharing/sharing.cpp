#include "sharing/sharing.h"

#include <algorithm>

#include <QLoggingCategory>
#include <QTimer>

#include "accounting/callending.h"
#include "accounting/callinspection.h"
#include "clock.h"
#include "sharing/answercache.h"
#include "upstream/circuitbreaker.h"

Q_LOGGING_CATEGORY(lcSharing, "breakwater.sharing", QtInfoMsg)

Sharing::Sharing(AnswerCache &cache, const Clock &clock, double timeoutSeconds, bool recordBodies,
                 QObject *parent)
    : QObject(parent), m_cache(cache), m_clock(clock), m_timeoutSeconds(timeoutSeconds), m_recordBodies(recordBodies)
{
}

int Sharing::riders() const
{
    int riders = 0;
    for (const Flight *flight : findChildren<Flight *>(QString(), Qt::FindDirectChildrenOnly))
        riders += flight->riderCount();
    return riders;
}

QList<Flight *> Sharing::inProgressFlights() const
{
    // A released flight is deleted later; it no longer counts.
    QList<Flight *> flights = findChildren<Flight *>(QString(), Qt::FindDirectChildrenOnly);
    flights.removeIf([](const Flight *flight) { return flight->isReleased(); });
    return flights;
}

int Sharing::inProgress() const
{
    return int(inProgressFlights().size());
}

int Sharing::abandoned() const
{
    const QList<Flight *> flights = inProgressFlights();
    return int(std::count_if(flights.cbegin(), flights.cend(), [](const Flight *flight) { return flight->isAbandoned(); }));
}

HeaderList ownHeaders(const CallRecord &record)
{
    // The header says how the answer was served (miss | joined | hit | bypass | refused): a refusal
    // made no upstream call, so it is never a miss; the record keeps the finer outcome.
    HeaderList headers{{"x-breakwater-dedup", servedName(servedOf(record.outcome))},
                       {"x-breakwater-breaker", record.breakerState},
                       {"x-request-id", record.requestId}};
    if (!record.fallbackFrom.isEmpty())
        headers.append({"x-breakwater-fallback", record.upstream});
    return headers;
}

void Sharing::share(const QByteArray &key, ApiStyle style, CircuitBreaker &breaker, Rider rider, Start start)
{
    if (!key.isEmpty()) {
        if (std::optional<CachedAnswer> cached = m_cache.find(key)) {
            rider.record.outcome = Outcome::Hit;
            rider.record.breakerState = breakerStateName(breaker.state());
            answerFromCache(*cached, std::move(rider));
            return;
        }
        if (Flight *failed = m_flights.value(key); failed && failed->hasFailedEarly()) {
            // Its riders have the provider's error already; a retry is a new call, not a rider.
            m_flights.remove(key);
        }
        if (Flight *flight = m_flights.value(key)) {
            rider.record.outcome = Outcome::Joined;
            rider.record.breakerState = breakerStateName(breaker.state());
            rider.extraHeaders = ownHeaders(rider.record);
            flight->addRider(std::move(rider));
            return;
        }
        rider.record.outcome = Outcome::Miss;
    }
    fly(key, style, std::move(rider), start);
}

void Sharing::fly(const QByteArray &key, ApiStyle style, Rider rider, Start start)
{
    auto *flight = new Flight(key, style, m_timeoutSeconds, m_clock, this);
    flight->setModel(rider.record.model);
    flight->setRecordBodies(m_recordBodies);
    Takeoff takeoff = start(*flight, rider);
    if (!takeoff.call) {
        delete flight;   // refused before it flew: never in the table, and `start` answered the rider
        return;
    }
    flight->follow(takeoff.call);
    connect(flight, &Flight::upstreamFinished, this,
            [this, landed = std::move(takeoff.landed), fallback = std::move(takeoff.fallback)](Flight *finished) {
        land(finished, landed, fallback);
    });
    connect(flight, &Flight::riderFinished, this, &Sharing::riderFinished);
    connect(flight, &Flight::abandoned, this, &Sharing::onAbandoned);
    rider.extraHeaders = ownHeaders(rider.record);
    flight->addRider(std::move(rider));
    if (!key.isEmpty())
        m_flights.insert(key, flight);
}

void Sharing::land(Flight *flight, const std::function<void(Flight &)> &landed,
                   const std::function<void(Flight &)> &fallback)
{
    if (landed)
        landed(*flight);
    // Out of the table before the riders are released (Go's singleflight order), and the cache
    // filled before them too: whoever asks again once answered finds the answer.
    const QByteArray &key = flight->key();
    if (!key.isEmpty()) {
        if (m_flights.value(key) == flight)
            m_flights.remove(key);
        if (flight->isCacheable()) {
            const Usage &usage = flight->usage();
            const CachedAnswer answer{flight->status(), flight->headers(), flight->body(), flight->isStreaming(),
                                      flight->costUsd().value_or(-1), usage.inputTokens, usage.outputTokens,
                                      usage.cachedTokens};
            m_cache.store(key, answer);
            if (m_answerStored)
                m_answerStored(key, answer);
        }
    }
    // Refused before a byte reached anyone: its riders go to the fallback, which answers them. A
    // flight nobody waits for any more is answered (to nobody) as it is.
    if (fallback && flight->refusedBeforeAnswering() && !flight->isAbandoned())
        fallback(*flight);
    flight->release();
    flight->deleteLater();
}

void Sharing::onAbandoned(Flight *flight)
{
    // An answer nobody waits for is worth finishing only if it may still be used: by a retry that
    // rejoins within the grace time, or from the cache. Otherwise the provider bills it for nothing.
    const bool reusable = !flight->key().isEmpty() && m_cache.enabled();
    if (!reusable || m_abandonGrace.count() <= 0) {
        cancel(flight);
        return;
    }
    // Rejoined and abandoned again, the flight gets a new full grace: this timer judges only the
    // abandonment it was started for.
    QTimer::singleShot(m_abandonGrace, flight, [this, flight, abandonment = flight->abandonments()] {
        if (flight->isAbandoned() && flight->abandonments() == abandonment)
            cancel(flight);
    });
}

void Sharing::cancel(Flight *flight)
{
    qCInfo(lcSharing).noquote() << "every caller hung up: cancelling the upstream call"
                                << (flight->key().isEmpty() ? QByteArray("(not shared)") : flight->key().toHex().left(12));
    // Out of the table first: nobody may join a call that is being ended.
    if (!flight->key().isEmpty() && m_flights.value(flight->key()) == flight)
        m_flights.remove(flight->key());
    flight->cancel();
}

void Sharing::answerFromCache(const CachedAnswer &answer, Rider rider)
{
    CallRecord &record = rider.record;
    ResponseWriter &writer = rider.writer;
    const HeaderList headers = riderHeaders(answer.headers, ownHeaders(record));
    record.status = answer.status;
    if (answer.stream) {
        writer.beginStream(answer.status, headers);   // a cached stream is replayed as a stream
        writer.writeChunk(answer.body);
        writer.endStream();
    } else {
        writer.writeComplete(answer.status, headers, answer.body);
    }
    record.costSavedUsd = answer.costUsd > 0 ? answer.costUsd : 0;
    record.inputTokens = answer.inputTokens;
    record.outputTokens = answer.outputTokens;
    record.cachedTokens = answer.cachedTokens;
    if (m_recordBodies)
        record.responseBody = answer.body;
    record.responseHeaders = CallInspection::recordHeaders(writer.sentHeaders());
    record.endAtMs = m_clock.wallMs();
    Q_EMIT riderFinished(record);
}
