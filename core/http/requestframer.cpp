#include "http/requestframer.h"

#include <QList>

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
        m_chunkTail.clear();
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
    // Chunked: count the bytes and look for the terminating zero-size chunk.
    const QByteArrayView piece = data.sliced(from);
    m_bodyRead += piece.size();
    if (m_bodyRead > m_limits.maxBodyBytes + m_limits.chunkFramingBytes) {
        progress.refusal = 413;
        m_phase = Phase::Refused;
        return data.size();
    }
    m_chunkTail.append(piece.last(qMin<qsizetype>(piece.size(), 7)));
    m_chunkTail = m_chunkTail.right(7);
    if (m_chunkTail.endsWith("\r\n0\r\n\r\n") || (m_bodyRead == 5 && m_chunkTail == "0\r\n\r\n"))
        finishRequest(progress);
    return data.size();
}
