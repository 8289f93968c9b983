#pragma once

#include <QByteArray>
#include <QByteArrayView>

// The framing half of RequestMeter, apart from the socket and the timers so that it can be tested
// and fuzzed on plain bytes. It follows the requests of one connection through its raw bytes, split
// anywhere: a request's head, then its Content-Length or chunked body (chunk by chunk, so that a
// body ends after its last chunk and trailers however the reads were cut), then the next request.
// It says when a request has arrived in full, when a head asked for `100 Continue`, and when one
// broke a limit: a head over maxHeaderBytes (431), a Content-Length over maxBodyBytes, or a chunked
// body (or one chunk's announced size) over that plus chunkFramingBytes (413). A chunked body it
// cannot frame is counted against that limit and never ends (Qt's parser refuses it and closes the
// connection). A refusal is final: the connection is closed after it, so nothing more is framed.
// It only frames; Qt's HTTP parser still reads the requests.
//
// It holds at most maxHeaderBytes + 1 bytes of a head, never a body. A plain value, owned by the
// RequestMeter of its connection.
class RequestFramer final
{
public:
    struct Limits
    {
        qint64 maxBodyBytes = 0;
        qint64 maxHeaderBytes = 0;
        qint64 chunkFramingBytes = 64 * 1024;   // allowed on top of maxBodyBytes for chunk framing
    };

    // What one feed() found, in the order the bytes came.
    struct Progress
    {
        int completed = 0;   // requests that have now arrived in full
        int continues = 0;   // heads read that asked for `Expect: 100-continue`
        int refusal = 0;     // 413 or 431 when these bytes broke a limit, else 0
    };

    explicit RequestFramer(const Limits &limits) : m_limits(limits) {}

    Progress feed(QByteArrayView data);
    // Refused from outside (the meter's read timeout): ignore every byte from now on.
    void refuse() { m_phase = Phase::Refused; }
    bool isRefused() const { return m_phase == Phase::Refused; }
    // Part of a request has arrived, not all of it (blank lines between requests do not count).
    bool inRequest() const { return m_phase != Phase::Head || !m_head.isEmpty(); }
    // The head being read, or mid-body the head of that body's request: enough to answer a refusal
    // in the right API's error shape.
    const QByteArray &head() const { return m_head; }

private:
    qsizetype consumeHead(QByteArrayView data, qsizetype from, Progress &progress);
    qsizetype consumeBody(QByteArrayView data, qsizetype from, Progress &progress);
    qsizetype consumeChunked(QByteArrayView data, qsizetype from, Progress &progress);
    void finishRequest(Progress &progress);

    enum class Phase { Head, Body, ChunkedBody, Refused };
    // Where a chunked body is (RFC 9112 7.1), byte by byte outside chunk data. Lenient: a line
    // ends at LF with or without CR, and extensions are skipped; where Qt's parser is stricter, it
    // refuses the request itself.
    enum class Chunk {
        Size,           // hex digits of a chunk's size
        SizeRest,       // after the digits: extensions, the line end
        Data,           // m_bodyRemaining bytes of the chunk
        DataEnd,        // the line end after a chunk's data
        TrailerStart,   // after the last chunk: a trailer line, or the empty line that ends the body
        Trailer,        // inside a trailer line
        Unframed,       // not chunked framing: counted, never ends
    };
    Limits m_limits;
    Phase m_phase = Phase::Head;
    QByteArray m_head;                // the head being read, up to maxHeaderBytes + 1
    qint64 m_bodyRemaining = 0;       // of a Content-Length body, or of the current chunk
    qint64 m_bodyRead = 0;            // raw bytes of a chunked body, framing included
    Chunk m_chunk = Chunk::Size;
    bool m_sizeHasDigits = false;
};
