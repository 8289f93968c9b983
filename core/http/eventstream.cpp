#include "http/eventstream.h"

#include <algorithm>
#include <utility>

namespace {

constexpr QByteArrayView kByteOrderMark("\xEF\xBB\xBF");

bool isLineEnd(char c)
{
    return c == '\n' || c == '\r';
}

} // namespace

void EventStreamParser::feed(QByteArrayView piece, Sink sink)
{
    const char *at = piece.data();
    const char *const end = at + piece.size();
    // A CR that ended the last piece already ended its line; the LF of a CRLF split there is no
    // second (blank) line.
    if (m_afterCr && at != end) {
        if (*at == '\n')
            ++at;
        m_afterCr = false;
    }
    while (at != end) {
        const char *lineEnd = std::find_if(at, end, isLineEnd);
        if (lineEnd == end) {
            m_line.append(at, end - at);   // the rest of this line comes in a later piece
            return;
        }
        const QByteArrayView rest(at, lineEnd - at);
        if (m_line.isEmpty()) {
            takeLine(rest, sink);   // the common case: the whole line is in this piece, no copy
        } else {
            m_line.append(rest);
            takeLine(m_line, sink);
            m_line.clear();
        }
        at = lineEnd + 1;
        if (*lineEnd == '\r') {
            if (at == end)
                m_afterCr = true;
            else if (*at == '\n')
                ++at;
        }
    }
}

void EventStreamParser::takeLine(QByteArrayView line, Sink sink)
{
    if (std::exchange(m_firstLine, false) && line.startsWith(kByteOrderMark))
        line = line.sliced(kByteOrderMark.size());
    if (line.isEmpty()) {
        dispatch(sink);
        return;
    }
    if (line.front() == ':')
        return;   // a comment (proxies and servers send them as keep-alives)
    const qsizetype colon = line.indexOf(':');
    if (colon < 0) {
        takeField(line, {});
        return;
    }
    QByteArrayView value = line.sliced(colon + 1);
    if (value.startsWith(' '))
        value = value.sliced(1);
    takeField(line.first(colon), value);
}

void EventStreamParser::takeField(QByteArrayView name, QByteArrayView value)
{
    if (name == "data") {
        m_data.append(value);
        m_data.append('\n');
    } else if (name == "event") {
        m_type = value.toByteArray();
    } else if (name == "id") {
        if (!value.contains('\0'))
            m_lastEventId = value.toByteArray();
    } else if (name == "retry") {
        if (!value.isEmpty() && std::all_of(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; })) {
            bool ok = false;
            const qint64 ms = value.toLongLong(&ok);
            if (ok)
                m_retryMs = ms;   // beyond qint64 is no reconnection time anyone means
        }
    }
}

void EventStreamParser::dispatch(Sink sink)
{
    if (m_data.isEmpty()) {
        m_type.clear();
        return;
    }
    m_data.chop(1);   // the LF after the last data line
    ++m_dispatched;
    sink(ServerSentEvent{m_type.isEmpty() ? QByteArrayLiteral("message") : m_type, m_data, m_lastEventId});
    m_type.clear();
    m_data.clear();
}
