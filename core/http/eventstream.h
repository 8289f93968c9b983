#pragma once

#include <QByteArray>
#include <QByteArrayView>
#include <QtCore/qxpfunctional.h>   // qxp::function_ref, C++26 std::function_ref as Qt 6.4 ships it

// Server-Sent Events as the WHATWG HTML standard parses them (section 9.2.6, "Interpreting an
// event stream"), incrementally: the bytes of a text/event-stream answer are fed in whatever
// pieces the network delivered, and each event is handed out when the blank line that ends it
// arrives. A piece may end anywhere: inside a field name, inside a value, between the CR and the
// LF of one line ending. Feeding the same bytes in any split gives the same events.
//
// The grammar: lines end in LF, CRLF or CR; a leading UTF-8 byte order mark is dropped; a line
// starting with ':' is a comment; "name:value" sets a field (one space after the colon is not part
// of the value), a line without a colon is a field with an empty value. `event` names the event,
// `data` lines are joined with LF, `id` sets the last event id (unless it holds a NUL), `retry`
// (digits only) the reconnection time; other fields are ignored. A blank line dispatches the
// event, unless it has no data at all. Bytes after the last line ending are no event: a stream
// that stops mid-event dispatches nothing for it.
//
// Only the line being read and the event being built are kept, never the stream. Not thread-safe;
// owned by whoever reads the stream.

// One dispatched event. `type` is "message" when the event named none.
struct ServerSentEvent
{
    QByteArray type;
    QByteArray data;
    QByteArray lastEventId;

    bool operator==(const ServerSentEvent &) const = default;
};

class EventStreamParser
{
public:
    using Sink = qxp::function_ref<void(const ServerSentEvent &event)>;

    // Reads `piece`, handing every event it completes to `sink` in order.
    void feed(QByteArrayView piece, Sink sink);

    // The last `retry:` value, in milliseconds; -1 when none came.
    qint64 reconnectionTimeMs() const { return m_retryMs; }
    // How many events were dispatched so far.
    qint64 dispatched() const { return m_dispatched; }

private:
    void takeLine(QByteArrayView line, Sink sink);
    void takeField(QByteArrayView name, QByteArrayView value);
    void dispatch(Sink sink);

    QByteArray m_line;             // the start of a line whose ending has not arrived yet
    bool m_afterCr = false;        // the last piece ended in CR: an LF starting the next one is its pair
    bool m_firstLine = true;       // the byte order mark may only open the stream
    QByteArray m_type;
    QByteArray m_data;             // each data line and an LF; empty: no data field came
    QByteArray m_lastEventId;
    qint64 m_retryMs = -1;
    qint64 m_dispatched = 0;
};
