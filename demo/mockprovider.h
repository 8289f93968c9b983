#pragma once

#include <atomic>
#include <chrono>

#include <QAbstractHttpServer>
#include <QElapsedTimer>
#include <QHash>
#include <QList>
#include <QMutex>
#include <QUrl>

#include "http/apierror.h"

class QTcpSocket;

// An in-process fake LLM provider on a loopback port, for tests, benchmarks and `breakwater --demo`.
// It speaks OpenAI (chat, completions, embeddings, models) and Anthropic (messages), JSON and SSE
// streams, with deterministic answers ("echo: <last user message>"), and it can misbehave on demand
// (errors, hangs, resets, garbage, cut or slow streams) on a fixed mode or a timed schedule. A gate
// holds answers until released, so tests can force overlap without sleeping, and counters say how
// many calls really reached "upstream".
//
// Threads: the object lives on the thread that built it (normally its own ServiceThread) and all
// socket work happens there. Every public function is safe to call from any thread: settings and
// counters are guarded by a mutex or atomics, and releaseHeld() hops onto the mock's thread.
class MockProvider final : public QAbstractHttpServer
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(MockProvider)
public:
    // Ok: normal answers. Error503 / RateLimited429: an error in the route's shape (429 adds
    // retry-after: 1). Hang: read the request, never answer. Reset: TCP RST, nothing written.
    // Garbage: 200 "application/json" that is not JSON. CutStream: half the stream events, or half
    // the promised Content-Length, then the connection drops. SlowStream: events setSlowGap() apart
    // (non-stream requests are answered normally).
    enum class Mode { Ok, Error503, RateLimited429, Hang, Reset, Garbage, CutStream, SlowStream };
    Q_ENUM(Mode)

    struct Phase
    {
        std::chrono::milliseconds duration;
        Mode mode;
    };

    // Listens on 127.0.0.1 at once; port 0 picks a free port.
    explicit MockProvider(quint16 port = 0, QObject *parent = nullptr);
    ~MockProvider() override;

    bool isListening() const { return m_port != 0; }
    quint16 port() const { return m_port; }
    QUrl openaiBaseUrl() const;      // http://127.0.0.1:PORT/v1
    QUrl anthropicBaseUrl() const;   // http://127.0.0.1:PORT

    // Timing. Latency delays the whole answer; the interval separates stream events (0 still sends
    // each event as its own chunk); the slow gap separates events in SlowStream mode (default 2 s).
    void setLatency(std::chrono::milliseconds latency);
    void setChunkInterval(std::chrono::milliseconds interval);
    void setSlowGap(std::chrono::milliseconds gap);

    // A request's mode is fixed when it arrives. setMode() drops any schedule. A schedule starts now;
    // after its last phase, the last phase's mode goes on.
    void setMode(Mode mode);
    void setSchedule(const QList<Phase> &phases);
    Mode currentMode() const;

    // The gate: while on, requests are counted and then held unanswered. releaseHeld() answers those
    // held now (in arrival order, each per its mode); turning the gate off releases them too.
    void setHoldAnswers(bool hold);
    void releaseHeld();
    int heldCount() const { return m_held.load(); }

    // Counters. inFlight() is "received and not yet fully answered or hung up"; resetCounters()
    // leaves it alone (those requests are still open) and restarts maxInFlight() from it.
    int callCount() const { return m_calls.load(); }
    int callCount(const QString &path) const;
    int inFlight() const { return m_inFlight.load(); }
    int maxInFlight() const { return m_maxInFlight.load(); }
    void resetCounters();

    // What the most recent request carried, so tests can check what a proxy forwarded.
    HeaderList lastRequestHeaders() const;
    QByteArray lastRequestBody() const;

protected:
    bool handleRequest(const QHttpServerRequest &request, QTcpSocket *socket) override;
    void missingHandler(const QHttpServerRequest &request, QTcpSocket *socket) override;

private:
    class Exchange;
    Mode modeForArrival() const;
    void start(Exchange *exchange);
    void answer(Exchange *exchange);
    void writeNextEvent(Exchange *exchange);
    void finish(Exchange *exchange);
    void releaseHeldNow();

    quint16 m_port = 0;   // set once in the constructor, before any other thread can see the mock

    mutable QMutex m_mutex;   // guards everything down to the atomics
    Mode m_mode = Mode::Ok;
    QList<Phase> m_schedule;
    QElapsedTimer m_scheduleClock;   // monotonic
    std::chrono::milliseconds m_latency{0};
    std::chrono::milliseconds m_chunkInterval{0};
    std::chrono::milliseconds m_slowGap{2000};
    QHash<QString, int> m_callsPerPath;
    HeaderList m_lastHeaders;
    QByteArray m_lastBody;

    std::atomic<bool> m_hold = false;
    std::atomic<int> m_held = 0;
    std::atomic<int> m_calls = 0;
    std::atomic<int> m_inFlight = 0;
    std::atomic<int> m_maxInFlight = 0;
    quint64 m_sequence = 0;   // mock thread only: makes response ids unique

    QList<Exchange *> m_heldExchanges;   // mock thread only, arrival order
    QList<Exchange *> m_exchanges;       // mock thread only: every open exchange (owned)
};
