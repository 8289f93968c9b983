// Request framing and limits: RequestFramer, which RequestMeter runs on a connection's raw bytes
// before Qt's HTTP parser sees them. The input chooses small limits and how the byte stream is cut
// into reads; the stream is then fed whole, in those cuts, and one byte at a time. Framing must not
// depend on how TCP happened to split the bytes: all three see the same requests, the same
// `100 Continue`s and the same refusal. A refusal is final, a head is never held past its limit,
// and a stream that broke a limit is refused.

#include "http/requestframer.h"

#include <fuzzer/FuzzedDataProvider.h>

#include <QList>

#include "fuzzsupport.h"

namespace {

struct Outcome
{
    int completed = 0;
    int continues = 0;
    int refusal = 0;
    bool inRequest = false;
    QByteArray head;

    bool operator==(const Outcome &) const = default;
};

Outcome feedInPieces(const RequestFramer::Limits &limits, QByteArrayView stream, const QList<qsizetype> &cuts)
{
    RequestFramer framer(limits);
    Outcome outcome;
    fuzz::feedInCuts(stream, cuts, [&](QByteArrayView piece) {
        const RequestFramer::Progress progress = framer.feed(piece);
        FUZZ_CHECK(progress.completed >= 0 && progress.continues >= 0);
        FUZZ_CHECK(progress.refusal == 0 || progress.refusal == 413 || progress.refusal == 431);
        FUZZ_CHECK(progress.refusal == 0 || framer.isRefused());
        if (outcome.refusal != 0) {   // final: nothing after it counts
            FUZZ_CHECK(progress.completed == 0 && progress.continues == 0 && progress.refusal == 0);
            FUZZ_CHECK(framer.isRefused());
        }
        FUZZ_CHECK(framer.head().size() <= limits.maxHeaderBytes + 1);
        outcome.completed += progress.completed;
        outcome.continues += progress.continues;
        if (progress.refusal != 0)
            outcome.refusal = progress.refusal;
    });
    FUZZ_CHECK(framer.isRefused() == (outcome.refusal != 0));
    outcome.inRequest = framer.inRequest();
    outcome.head = framer.head();
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
    // The limits and the cuts come from the input's last bytes, the stream is the rest.
    FuzzedDataProvider provider(data, size);
    RequestFramer::Limits limits;
    limits.maxHeaderBytes = provider.ConsumeIntegralInRange<qint64>(16, 1024);
    limits.maxBodyBytes = provider.ConsumeIntegralInRange<qint64>(0, 2048);
    limits.chunkFramingBytes = provider.ConsumeIntegralInRange<qint64>(0, 256);
    const QList<qsizetype> cuts = fuzz::consumeCuts(provider, 256);
    const std::string bytes = provider.ConsumeRemainingBytesAsString();
    const QByteArrayView stream(bytes.data(), qsizetype(bytes.size()));

    const Outcome whole = feedInPieces(limits, stream, {qMax<qsizetype>(stream.size(), 1)});
    FUZZ_CHECK(feedInPieces(limits, stream, cuts) == whole);
    FUZZ_CHECK(feedInPieces(limits, stream, {1}) == whole);

    // A stream whose first head (after any blank lines) does not end within the header limit
    // holds no request, and is refused if it has more bytes than the limit.
    qsizetype start = 0;
    while (start < stream.size() && (stream[start] == '\r' || stream[start] == '\n'))
        ++start;
    const qsizetype firstEnd = stream.indexOf("\r\n\r\n", start);
    if (firstEnd < 0 || firstEnd + 4 - start > limits.maxHeaderBytes) {
        FUZZ_CHECK(whole.completed == 0);
        FUZZ_CHECK((whole.refusal == 431) == (stream.size() - start > limits.maxHeaderBytes));
    }
    return 0;
}
