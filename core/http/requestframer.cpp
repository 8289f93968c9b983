#include "http/requestframer.h"

#include <QList>

namespace {
int hexDigit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}
} // namespace

RequestFramer::Progress RequestFramer::feed(QByteArrayView data)
{
    Progress progress;
    qsizetype pos = 0;
    while (pos < data.size() && m_phase != Phase::Refused) {
        if (m_phase == Phase::Head)
            pos = consumeHead(data, pos, progress);
        else
            pos = consumeBody(data, pos, progress);
    }
    return progress;
}

void RequestFramer::finishRequest(Progress &progress)
{
    ++progress.completed;
    m_phase = Phase::Head;
    m_head.clear();
}

qsizetype RequestFramer::consumeHead(QByteArrayView data, qsizetype from, Progress &progress)
{
    // Blank lines between requests are allowed (RFC 9112 2.2); skip them.
    if (m_head.isEmpty()) {
        while (from < data.size() && (data[from] == '\r' || data[from] == '\n'))
            ++from;
        if (from == data.size())
            return from;
    }
    const qsizetype searchFrom = qMax<qsizetype>(0, m_head.size() - 3);
    const qsizetype headBefore = m_head.size();
    const qsizetype room = m_limits.maxHeaderBytes - headBefore;
    m_head.append(data.sliced(from, qMin<qsizetype>(data.size() - from, room + 1)));
    const qsizetype end = m_head.indexOf("\r\n\r\n", searchFrom);
    if (end < 0) {
        if (m_head.size() > m_limits.maxHeaderBytes) {
            progress.refusal = 431;
            m_phase = Phase::Refused;
        }
        return data.size();
    }
    const qsizetype headLength = end + 4;
    const qsizetype consumed = headLength - headBefore;
    m_head.truncate(headLength);
    if (m_head.size() > m_limits.maxHeaderBytes) {
        progress.refusal = 431;
        m_phase = Phase::Refused;
        return data.size();
    }

    qint64 contentLength = 0;
    bool chunked = false;
    bool expectContinue = false;
    const QList<QByteArray> lines = m_head.split('\n');
    for (qsizetype i = 1; i < lines.size(); ++i) {
        const QByteArray line = lines[i].trimmed();
        const qsizetype colon = line.indexOf(':');
        if (colon <= 0)
            continue;
        const QByteArray name = line.left(colon).trimmed().toLower();
        const QByteArray value = line.mid(colon + 1).trimmed().toLower();
        if (name == "content-length")
            contentLength = value.toLongLong();
        else if (name == "transfer-encoding")
            chunked = value.contains("chunked");
        else if (name == "expect")
            expectContinue = value == "100-continue";
    }
    if (contentLength > m_limits.maxBodyBytes) {
        progress.refusal = 413;
        m_phase = Phase::Refused;
        return data.size();
    }
    if (expectContinue)
        ++progress.continues;

    m_bodyRead = 0;
    if (chunked) {
        m_phase = Phase::ChunkedBody;
        m_chunk = Chunk::Size;
        m_bodyRemaining = 0;
        m_sizeHasDigits = false;
    } else if (contentLength > 0) {
        m_phase = Phase::Body;
        m_bodyRemaining = contentLength;
    } else {
        finishRequest(progress);
    }
    return from + consumed;
}

qsizetype RequestFramer::consumeBody(QByteArrayView data, qsizetype from, Progress &progress)
{
    if (m_phase == Phase::Body) {
        const qint64 take = qMin<qint64>(m_bodyRemaining, data.size() - from);
        m_bodyRemaining -= take;
        if (m_bodyRemaining == 0)
            finishRequest(progress);
        return from + take;
    }
    return consumeChunked(data, from, progress);
}

qsizetype RequestFramer::consumeChunked(QByteArrayView data, qsizetype from, Progress &progress)
{
    const qint64 limit = m_limits.maxBodyBytes + m_limits.chunkFramingBytes;
    qsizetype pos = from;
    bool ended = false;
    while (pos < data.size() && !ended) {
        if (m_chunk == Chunk::Data) {
            const qint64 take = qMin<qint64>(m_bodyRemaining, data.size() - pos);
            pos += take;
            m_bodyRemaining -= take;
            if (m_bodyRemaining == 0)
                m_chunk = Chunk::DataEnd;
            continue;
        }
        if (m_chunk == Chunk::Unframed) {
            pos = data.size();
            break;
        }
        const char c = data[pos++];
        switch (m_chunk) {
        case Chunk::Size:
            if (const int digit = hexDigit(c); digit >= 0) {
                // This chunk alone breaks the limit (tested so that the size never overflows).
                if (m_bodyRemaining > (limit - digit) / 16 || m_bodyRemaining * 16 + digit > limit) {
                    progress.refusal = 413;
                    m_phase = Phase::Refused;
                    return data.size();
                }
                m_bodyRemaining = m_bodyRemaining * 16 + digit;
                m_sizeHasDigits = true;
            } else if (m_sizeHasDigits && (c == ';' || c == ' ' || c == '\t' || c == '\r')) {
                m_chunk = Chunk::SizeRest;
            } else if (m_sizeHasDigits && c == '\n') {
                m_chunk = m_bodyRemaining > 0 ? Chunk::Data : Chunk::TrailerStart;
            } else {
                m_chunk = Chunk::Unframed;
            }
            break;
        case Chunk::SizeRest:
            if (c == '\n')
                m_chunk = m_bodyRemaining > 0 ? Chunk::Data : Chunk::TrailerStart;
            break;
        case Chunk::DataEnd:
            if (c == '\n') {
                m_chunk = Chunk::Size;
                m_sizeHasDigits = false;
            } else if (c != '\r') {
                m_chunk = Chunk::Unframed;
            }
            break;
        case Chunk::TrailerStart:
            if (c == '\n')
                ended = true;   // the empty line after the last chunk and its trailers
            else if (c != '\r')
                m_chunk = Chunk::Trailer;
            break;
        case Chunk::Trailer:
            if (c == '\n')
                m_chunk = Chunk::TrailerStart;
            break;
        case Chunk::Data:
        case Chunk::Unframed:
            break;
        }
    }
    m_bodyRead += pos - from;
    if (m_bodyRead > limit) {   // framing included, so that no framing trick goes unbounded
        progress.refusal = 413;
        m_phase = Phase::Refused;
        return data.size();
    }
    if (ended)
        finishRequest(progress);
    return pos;
}
