// The event-stream and answer parser that reads token usage (accounting/usage.h): the input as a
// whole streamed event sequence and as a JSON answer, in both APIs' shapes, and as a request body
// for the output tokens the spend guard reserves. A count is a number of tokens or -1 for "not
// said", never anything else, whatever the provider sends. (The stream completeness check is
// fuzz_eventstream's.)

#include "accounting/usage.h"

#include <QJsonDocument>
#include <QJsonObject>

#include "fuzzsupport.h"

namespace {
bool isCount(qint64 tokens)
{
    return tokens >= -1 && tokens <= 3 * kMaxTokenCount;   // Anthropic's input adds three counts
}
} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***)
{
    fuzz::quietQt();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QByteArray bytes = fuzz::bytesOf(data, size);
    for (const ApiStyle style : {ApiStyle::OpenAI, ApiStyle::Anthropic}) {
        for (const bool stream : {true, false}) {
            const Usage usage = parseUsage(style, bytes, stream);
            FUZZ_CHECK(isCount(usage.inputTokens) && isCount(usage.outputTokens) && isCount(usage.cachedTokens));
            FUZZ_CHECK(usage.known() == (usage.inputTokens >= 0 && usage.outputTokens >= 0));
        }
    }
    const QJsonObject body = QJsonDocument::fromJson(bytes).object();
    FUZZ_CHECK(requestedMaxTokens(body) >= 0 && requestedMaxTokens(body) <= kMaxTokenCount);
    FUZZ_CHECK(estimateInputTokens(bytes) >= qint64(size) / 4);
    return 0;
}
