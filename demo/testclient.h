#pragma once

#include <chrono>

#include <algorithm>

#include <QByteArray>
#include <QList>
#include <QObject>

#include "http/apierror.h"

class QTcpSocket;

// What a TestCall saw on the wire.
struct TestResponse
{
    int status = 0;
    HeaderList headers;            // names as received
    QByteArray body;               // de-chunked
    QList<QByteArray> chunks;      // each HTTP chunk's payload as received (chunked responses)
    bool chunked = false;
    bool complete = false;         // Content-Length satisfied, terminating 0-chunk, or close-delimited end
    bool connectionClosed = false; // the server closed or reset the connection (or it never opened)

    QByteArray header(const QByteArray &name) const;   // case-insensitive; empty if missing
};

// One raw HTTP/1.1 request on its own loopback connection, fully asynchronous. Tests use it instead
// of QNetworkAccessManager, which allows only 6 connections per host (200 concurrent calls need
// 200 connections) and hides the chunking, resets and truncations the tests need to see.
//
// Lives on the thread that creates it and needs that thread's event loop. One request per call;
// the socket is closed once the response is complete.
class TestCall final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(TestCall)
public:
    TestCall(quint16 port, QByteArray method, QByteArray path, HeaderList headers = {},
             QByteArray body = {}, QObject *parent = nullptr);
    ~TestCall() override;

    // Connects to 127.0.0.1:port and sends the request, adding Host and (for a body) Content-Length
    // unless the headers already have them.
    void start();
    // Connects and sends exactly these bytes (malformed-input tests).
    void startRaw(QByteArray bytes);
    // Aborts the connection now (a client hanging up).
    void hangUp();

    bool isFinished() const { return m_finished; }   // complete, closed, errored or hung up
    const TestResponse &response() const { return m_response; }

signals:
    void headersReceived();
    void chunkReceived(const QByteArray &payload);
    void finished();

private:
    enum class Stage { StatusLine, Headers, FixedBody, ChunkSize, ChunkData, Trailers, UntilClose, Done };
    void onReadyRead();
    void onClosed();
    bool parseStatusLine();
    bool parseHeaders();
    bool parseChunkSize();
    bool parseChunkData();
    bool parseTrailers();
    void startBody();
    void complete();
    void finish();

    quint16 m_port;
    QByteArray m_request;
    QTcpSocket *m_socket = nullptr;   // child of this
    QByteArray m_buffer;              // received, not yet parsed
    Stage m_stage = Stage::StatusLine;
    qint64 m_remaining = 0;           // body or chunk bytes still expected
    bool m_headResponse = false;
    bool m_finished = false;
    TestResponse m_response;
};

inline bool allFinished(const QList<TestCall *> &calls)
{
    return std::all_of(calls.begin(), calls.end(), [](const TestCall *call) { return call->isFinished(); });
}

// Runs one call in a local event loop until it finishes or the timeout passes (then it hangs up).
TestResponse fetch(quint16 port, const QByteArray &method, const QByteArray &path,
                   const HeaderList &headers = {}, const QByteArray &body = {},
                   std::chrono::milliseconds timeout = std::chrono::seconds(10));
