#include "mockstreams.h"

#include <algorithm>
#include <utility>

#include "mockrequest.h"

using namespace Qt::StringLiterals;

namespace mockanswers {
namespace {

using Spans = QList<std::pair<qsizetype, qsizetype>>;

// Where `text` quotes an SSE field with its value ("data: [DONE]", "event: message_stop"): the
// field name, the spaces after it and the next word, as [begin, end) ranges in text order.
Spans framingSpans(const QString &text)
{
    Spans spans;
    for (const QString &field : {u"data:"_s, u"event:"_s}) {
        for (qsizetype at = text.indexOf(field); at >= 0; at = text.indexOf(field, at + 1)) {
            qsizetype end = at + field.size();
            while (end < text.size() && text[end].isSpace())
                ++end;
            while (end < text.size() && !text[end].isSpace())
                ++end;
            spans.append({at, end});
        }
    }
    std::sort(spans.begin(), spans.end());
    return spans;
}

bool splitsFraming(const Spans &spans, qsizetype cut)
{
    return std::any_of(spans.cbegin(), spans.cend(),
                       [cut](const auto &span) { return span.first < cut && cut < span.second; });
}

// Where to halve a piece: its middle, or the nearest place that splits no framing; 0 for none.
qsizetype middleCut(const QString &piece)
{
    const Spans spans = framingSpans(piece);
    const qsizetype half = piece.size() / 2;
    for (qsizetype offset = 0; offset <= half; ++offset) {
        for (const qsizetype cut : {half - offset, half + offset}) {
            if (cut > 0 && cut < piece.size() && !splitsFraming(spans, cut))
                return cut;
        }
    }
    return 0;
}

} // namespace

QByteArray dataEvent(const QJsonObject &object)
{
    return "data: " + compact(object) + "\n\n";
}

QByteArray namedEvent(const QByteArray &name, const QJsonObject &object)
{
    return "event: " + name + "\ndata: " + compact(object) + "\n\n";
}

QList<QString> streamPieces(const QString &reply)
{
    // Cut before each word that follows a space: "echo: a b" -> "echo: ", "a ", "b".
    QList<QString> pieces;
    const Spans spans = framingSpans(reply);
    auto span = spans.cbegin();   // the first span that does not end before the cut
    qsizetype start = 0;
    for (qsizetype i = 1; i < reply.size(); ++i) {
        if (!reply[i - 1].isSpace() || reply[i].isSpace())
            continue;
        while (span != spans.cend() && span->second <= i)
            ++span;
        if (span != spans.cend() && span->first < i)
            continue;   // inside a quoted field: it stays in one piece
        pieces += reply.mid(start, i - start);
        start = i;
    }
    if (start < reply.size())
        pieces += reply.mid(start);
    // Short replies are cut further, so every stream has at least three content events: the
    // longest piece that can be cut goes in two (the first of equals, at its middle if it may).
    while (pieces.size() < 3) {
        qsizetype longest = -1;
        qsizetype cut = 0;
        for (qsizetype i = 0; i < pieces.size(); ++i) {
            if (longest >= 0 && pieces[i].size() <= pieces[longest].size())
                continue;
            if (const qsizetype at = middleCut(pieces[i]); at > 0) {
                longest = i;
                cut = at;
            }
        }
        if (longest < 0)
            break;
        const QString whole = pieces[longest];
        pieces[longest] = whole.left(cut);
        pieces.insert(longest + 1, whole.mid(cut));
    }
    return pieces;
}

QByteArray pingEvent()
{
    return namedEvent("ping", {{u"type"_s, u"ping"_s}});
}

QList<QByteArray> withPings(const QList<QByteArray> &events)
{
    QList<QByteArray> pinged;
    for (const QByteArray &event : events) {
        if (!pinged.isEmpty())
            pinged += pingEvent();
        pinged += event;
    }
    return pinged;
}

ApiError overloadedError(int status)
{
    return {status, "server_error", {}, u"The mock provider is overloaded."_s};
}

} // namespace mockanswers
