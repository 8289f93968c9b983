#pragma once

#include <algorithm>
#include <chrono>
#include <functional>

#include <QByteArray>
#include <QElapsedTimer>
#include <QList>
#include <QMap>
#include <QObject>
#include <QTimer>

#include "http/apierror.h"

class QTcpSocket;

// What a one-call LoopbackClient saw on the wire.
struct LoopbackResponse
{
    int status = 0;
    HeaderList headers;            // names as received
    QByteArray body;               // de-chunked
    QList<QByteArray> chunks;      // each HTTP chunk's payload as received (chunked responses)
    QList<qint64> chunkAtNs;       // when each of them arrived, ns after start()
    bool chunked = false;
    bool complete = false;         // Content-Length satisfied, terminating 0-chunk, or close-delimited end
    bool connectionClosed = false; // the server closed or reset the connection (or it never opened)
    qint64 elapsedNs = 0;          // from start() to the end: complete, closed, hung up or timed out

    QByteArray header(const QByteArray &name) const;   // case-insensitive; empty if missing
    qint64 firstToLastChunkMs() const;                 // 0 with fewer than two chunks
};

// The one raw HTTP/1.1 client of the tests, the bench, the demo scenarios and dashboard_load. It
// talks to 127.0.0.1:port on a connection of its own, fully asynchronously, in one of two ways:
//  - one call: one request, its answer read in full as it arrives (status, headers, body, each
//    chunk and when it came, with a signal at the head and at every chunk), the connection closed
//    once it is complete. Used instead of QNetworkAccessManager, which allows only 6 connections
//    per host (200 concurrent calls need 200) and hides the chunking, resets and truncations the
//    tests need to see.
//  - a series: requests one after another on one keep-alive connection, as fast as answers come or
//    one per paced slot, recording each round trip (from just before the write to the moment the
//    whole answer is in), the answers that were not 200 and their x-breakwater-dedup values, and for
//    a chunked answer (a stream) when its first chunk was in. Only for answers with a Content-Length
//    (cache hits and non-stream misses) or chunked; any other answer, or a lost connection, ends
//    the series as a failure. Each answer's head is read for those things only, so the client adds
//    as little as it can to the round trips the bench times.
//
// Lives on the thread that creates it (or is moved to before start()) and needs its event loop.
class LoopbackClient final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(LoopbackClient)
public:
    // Makes the raw bytes of a series' n-th request (n from 0), before its round trip's clock starts.
    using RequestMaker = std::function<QByteArray(qint64 n)>;

    // One call, with the request of requestBytes().
    LoopbackClient(quint16 port, QByteArray method, QByteArray path, HeaderList headers = {},
                   QByteArray body = {}, QObject *parent = nullptr);
    // A series.
    LoopbackClient(quint16 port, RequestMaker nextRequest, QObject *parent = nullptr);
    ~LoopbackClient() override;

    // A request to 127.0.0.1:port, adding Host and (for a body) Content-Length unless the headers
    // already have them.
    static QByteArray requestBytes(quint16 port, const QByteArray &method, const QByteArray &path,
                                   HeaderList headers = {}, const QByteArray &body = {});

    // Hangs up unless finished this long after start() (call it before start()).
    void setTimeout(std::chrono::milliseconds timeout) { m_timeout.setInterval(timeout); }
    // Connects and sends the (first) request.
    void start();
    // One call: connects and sends exactly these bytes instead (malformed-input tests).
    void startRaw(QByteArray bytes);
    // One call: read this many answers on the connection, in the order they come, rather than one
    // (for requests pipelined in one startRaw); with `untilClosed`, keep the connection after the
    // last one until the server closes it (or the timeout). Call before start().
    void setAnswers(int answers, bool untilClosed = false);
    // One call: the answers read in full so far, in the order they came on the wire.
    const QList<LoopbackResponse> &answers() const { return m_answers; }
    // Aborts the connection now (a client hanging up).
    void hangUp();

    bool isFinished() const { return m_finished; }   // complete, closed, errored, hung up; a series: see finished()
    const LoopbackResponse &response() const { return m_response; }   // one call only

    // A series: stop after this many answers and emit finished() (0, the default: until stop()).
    void setLimit(qint64 answers) { m_limit = answers; }
    // A series: send the n-th request `offsetMs + n * intervalMs` after start() rather than at once;
    // a slot that passes before the previous answer came is skipped and counted as missed.
    void setPace(double intervalMs, double offsetMs = 0);
    // A series: sends no further request; the connection closes after the answer in progress.
    void stop() { m_stopping = true; }
    // Forgets what the series recorded so far (the end of a warm-up).
    void clearRecorded();

    const QList<qint64> &roundTripsNs() const { return m_roundTripsNs; }
    // A series: from each chunked answer's request to its first whole chunk (a stream's first event).
    const QList<qint64> &firstChunksNs() const { return m_firstChunksNs; }
    int failures() const { return m_failures; }   // answers that were not 200, plus 1 if it gave up
    // How many answers carried each value of x-breakwater-dedup ("" when the header was missing).
    const QMap<QByteArray, qint64> &dedupCounts() const { return m_dedupCounts; }
    int missedSlots() const { return m_missedSlots; }

signals:
    void headersReceived();                         // one call
    void chunkReceived(const QByteArray &payload);  // one call
    // One call: complete, closed, errored, hung up or timed out. A series: the limit was reached, or
    // it gave up after a failure, was hung up or timed out.
    void finished();

private:
    enum class Stage { StatusLine, Headers, FixedBody, ChunkSize, ChunkData, Trailers, UntilClose, Done };
    void onConnected();
    void onClosed();
    void onReadyRead();
    // A series.
    void sendOne();
    void scheduleSlot();
    void readCountedAnswers();
    void giveUp();
    // One call.
    void readFullAnswer();
    bool parseStatusLine();
    bool parseHeaders();
    bool parseChunkSize();
    bool parseChunkData();
    bool parseTrailers();
    void startBody();
    void complete();
    void finish();

    quint16 m_port;
    RequestMaker m_nextRequest;       // set: a series
    QByteArray m_request;             // one call
    QTcpSocket *m_socket = nullptr;   // child of this
    QByteArray m_buffer;              // received, not yet parsed
    QElapsedTimer m_clock;            // since start()
    QTimer m_timeout{this};           // inactive unless setTimeout(); a child, so it moves threads with us
    bool m_finished = false;
    // One call.
    Stage m_stage = Stage::StatusLine;
    qint64 m_remaining = 0;           // body or chunk bytes still expected
    bool m_headResponse = false;
    LoopbackResponse m_response;
    int m_answersWanted = 1;
    bool m_untilClosed = false;
    QList<LoopbackResponse> m_answers;
    // A series.
    qint64 m_sequence = 0;
    qint64 m_limit = 0;
    QElapsedTimer m_sent;             // since the last request's write
    QList<qint64> m_roundTripsNs;
    QList<qint64> m_firstChunksNs;
    bool m_firstChunkSeen = false;    // of the answer being read
    QMap<QByteArray, qint64> m_dedupCounts;
    int m_failures = 0;
    bool m_stopping = false;
    double m_intervalMs = 0;          // 0: no pace
    double m_nextSlotMs = 0;
    QTimer m_slot{this};              // paced: the next request
    int m_missedSlots = 0;
};

inline bool allFinished(const QList<LoopbackClient *> &calls)
{
    return std::all_of(calls.begin(), calls.end(), [](const LoopbackClient *call) { return call->isFinished(); });
}

// Runs one call in a local event loop until it finishes or the timeout passes (then it hangs up).
LoopbackResponse fetch(quint16 port, const QByteArray &method, const QByteArray &path,
                       const HeaderList &headers = {}, const QByteArray &body = {},
                       std::chrono::milliseconds timeout = std::chrono::seconds(10));
