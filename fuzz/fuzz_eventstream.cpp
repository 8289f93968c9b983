// The event-stream parser and the verdict on an LLM stream (http/eventstream.h,
// http/streamverdict.h), which the proxy runs on every piece of every upstream stream. The input
// chooses how the stream is cut into pieces (its last bytes) and the stream itself (the rest); the
// stream is then fed whole, in those cuts, and one byte at a time. What comes out must not depend
// on how TCP split the bytes: all three give the same events and the same verdict, with the same
// error. And every event is well formed: a type, and no line ending left inside a type or an id.

#include "http/eventstream.h"
#include "http/streamverdict.h"

#include <fuzzer/FuzzedDataProvider.h>

#include <QList>

#include "fuzzsupport.h"

namespace {

struct Outcome
{
    QList<ServerSentEvent> events;
    StreamVerdict::State state = StreamVerdict::State::Open;
    StreamError error;

    bool operator==(const Outcome &other) const
    {
        return events == other.events && state == other.state && error.event == other.error.event
            && error.type == other.error.type && error.code == other.error.code
            && error.message == other.error.message;
    }
};

bool wellFormed(const ServerSentEvent &event)
{
    const auto noLineEnd = [](const QByteArray &text) { return !text.contains('\n') && !text.contains('\r'); };
    return !event.type.isEmpty() && noLineEnd(event.type) && noLineEnd(event.lastEventId)
        && !event.lastEventId.contains('\0') && !event.data.contains('\r');
}

Outcome feedInPieces(QByteArrayView stream, const QList<qsizetype> &cuts)
{
    EventStreamParser parser;
    StreamVerdict verdict;
    Outcome outcome;
    auto keep = [&outcome](const ServerSentEvent &event) {
        FUZZ_CHECK(wellFormed(event));
        outcome.events.append(event);
    };
    fuzz::feedInCuts(stream, cuts, [&](QByteArrayView piece) {
        parser.feed(piece, keep);
        const StreamVerdict::State before = verdict.state();
        verdict.feed(piece);
        // Decided is final: once complete or failed, it stays so.
        FUZZ_CHECK(before == StreamVerdict::State::Open || verdict.state() == before);
    });
    FUZZ_CHECK(parser.dispatched() == outcome.events.size());
    FUZZ_CHECK(verdict.events() <= parser.dispatched());
    FUZZ_CHECK(verdict.state() != StreamVerdict::State::Open || verdict.events() == parser.dispatched());
    outcome.state = verdict.state();
    outcome.error = verdict.error();
    return outcome;
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***)
{
    fuzz::quietQt();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    // The cuts come from the input's last bytes, the stream is the rest.
    FuzzedDataProvider provider(data, size);
    const QList<qsizetype> cuts = fuzz::consumeCuts(provider, 64);
    const std::string bytes = provider.ConsumeRemainingBytesAsString();
    const QByteArrayView stream(bytes.data(), qsizetype(bytes.size()));

    const Outcome whole = feedInPieces(stream, {qMax<qsizetype>(stream.size(), 1)});
    FUZZ_CHECK(feedInPieces(stream, cuts) == whole);
    FUZZ_CHECK(feedInPieces(stream, {1}) == whole);
    return 0;
}
