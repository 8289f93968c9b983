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
#include "mockresponses.h"

class QTcpSocket;

// An in-process fake LLM provider on a loopback port, for tests, benchmarks and `breakwater --demo`.
// It speaks what real apps call: OpenAI chat, completions, embeddings, models and the Responses API
// (`POST /v1/responses` JSON and streamed, with GET/DELETE `/v1/responses/{id}`, `/input_items`
// and `/cancel` finding the ids it made), so Codex CLI and `responses.create` work against it;
// Anthropic messages, count_tokens, models (told from OpenAI's by `anthropic-version`) and message
// batches; and the pass-through targets (files, image edits and audio transcriptions, which
// describe the exact bytes they received, moderations, image generations, batches). Unknown routes
// are 404. Answers are deterministic ("echo: <last user message>"), JSON or SSE streams.
// It misbehaves on demand the ways real providers do (errors, 529, rate limits with
// retry-after-ms, hangs, resets, garbage, cut or slow streams, errors inside a 200 stream, pings)
// on a fixed mode or a timed schedule, and can add real providers' headers (two Set-Cookie lines,
// rate-limit headers) to every answer. A gate holds answers until released, so tests can force
// overlap without sleeping, and counters say how many calls really reached "upstream".
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
    // Overloaded529: 529 in the route's shape (Anthropic overloaded_error, OpenAI server_error).
    // RateLimitedMs429: 429 with retry-after-ms: 1500, retry-after: 2 and the API's rate-limit
    // headers at 0 remaining.
    // The in-stream modes answer 200 and go wrong inside the stream; JSON requests, and streams
    // the mode does not apply to, are answered normally. ErrorEventInStream: the stream begins
    // (through its first piece of text) and then carries an error: Anthropic `event: error`
    // (overloaded_error), an OpenAI `data: {"error":...}` chunk without [DONE], a Responses
    // `response.failed`; then the stream ends cleanly. ResponsesErrorEvent: the same, but a
    // Responses stream ends in a bare `event: error` with code server_is_overloaded.
    // ResponsesIncomplete: a Responses answer stops at half its text with status "incomplete"
    // (max_output_tokens): `response.incomplete` in a stream, a 200 JSON body otherwise.
    // Pings: Anthropic streams carry an `event: ping` between every two events.
    enum class Mode {
        Ok, Error503, RateLimited429, Hang, Reset, Garbage, CutStream, SlowStream,
        Overloaded529, RateLimitedMs429, ErrorEventInStream, ResponsesErrorEvent, ResponsesIncomplete, Pings
    };
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
    // How long a stream's connection stays open after its last event before the stream ends (0 by
    // default): a provider that sends `data: {"error":...}` and keeps the connection open a while.
    void setStreamEndDelay(std::chrono::milliseconds delay);

    // A request's mode is fixed when it arrives. setMode() drops any schedule. A schedule starts now;
    // after its last phase, the last phase's mode goes on.
    void setMode(Mode mode);
    void setSchedule(const QList<Phase> &phases);
    // With a schedule: when a Hang phase ends, the requests it left hanging are dropped (the
    // connection closed, nothing written), as the field test's provider did when it came back; a
    // client then retries rather than wait out its own timeout. Off by default: they hang on.
    void setDropHungWhenPhaseEnds(bool drop);
    Mode currentMode() const;

    // Headers added to every answer the mock writes, in this order, each pair its own header line
    // (a repeated name goes out as repeated lines, as real providers send it). Empty by default.
    void setExtraHeaders(const HeaderList &headers);
    // What api.openai.com behind Cloudflare adds: two Set-Cookie lines (__cf_bm and _cfuvid, the
    // first with an expiry date that holds a comma), x-ratelimit-*, openai-processing-ms and
    // x-request-id.
    static HeaderList realProviderHeaders();

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
    QByteArray lastRequestQuery() const;   // as it came, percent-encoding kept; empty without one

protected:
    bool handleRequest(const QHttpServerRequest &request, QTcpSocket *socket) override;
    void missingHandler(const QHttpServerRequest &request, QTcpSocket *socket) override;

private:
    class Exchange;
    Mode modeForArrival() const;
    void start(Exchange *exchange);
    void answer(Exchange *exchange);
    void writeNextEvent(Exchange *exchange);
    void endStream(Exchange *exchange);
    void finish(Exchange *exchange);
    void releaseHeldNow();
    void dropHungAtPhaseEnds(quint64 generation);

    quint16 m_port = 0;   // set once in the constructor, before any other thread can see the mock

    mutable QMutex m_mutex;   // guards everything down to the atomics
    Mode m_mode = Mode::Ok;
    QList<Phase> m_schedule;
    QElapsedTimer m_scheduleClock;   // monotonic
    quint64 m_scheduleGeneration = 0;   // a new schedule cancels the old one's drops
    bool m_dropHung = false;
    std::chrono::milliseconds m_latency{0};
    std::chrono::milliseconds m_chunkInterval{0};
    std::chrono::milliseconds m_slowGap{2000};
    std::chrono::milliseconds m_streamEndDelay{0};
    QHash<QString, int> m_callsPerPath;
    HeaderList m_lastHeaders;
    QByteArray m_lastBody;
    QByteArray m_lastQuery;
    HeaderList m_extraHeaders;

    std::atomic<bool> m_hold = false;
    std::atomic<int> m_held = 0;
    std::atomic<int> m_calls = 0;
    std::atomic<int> m_inFlight = 0;
    std::atomic<int> m_maxInFlight = 0;
    quint64 m_sequence = 0;   // mock thread only: makes response ids unique
    mockanswers::ResponseStore m_responses;   // mock thread only: the Responses API's ids

    QList<Exchange *> m_heldExchanges;   // mock thread only, arrival order
    QList<Exchange *> m_exchanges;       // mock thread only: every open exchange (owned)
};
