#include "accounting/usage.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QList>

using namespace Qt::StringLiterals;

namespace {

// Casting a double beyond qint64 is undefined behaviour, and sums of counts near qint64's limit
// overflow: anything that is not a plausible count is "not said".
qint64 count(const QJsonObject &object, QStringView name)
{
    const double value = object.value(name).toDouble(-1);
    return value >= 0 && value <= double(kMaxTokenCount) ? qint64(value) : -1;
}

// OpenAI: prompt_tokens already includes the cached ones. Embeddings have no completion tokens.
// The Responses API says the same in other words: input_tokens (cached included), output_tokens
// (reasoning included), input_tokens_details.cached_tokens; told apart by shape, since both are
// OpenAI's style.
Usage openaiUsage(const QJsonObject &usage)
{
    const bool responses = !usage.contains(u"prompt_tokens") && usage.contains(u"input_tokens");
    Usage result;
    result.inputTokens = count(usage, responses ? u"input_tokens" : u"prompt_tokens");
    result.outputTokens = count(usage, responses ? u"output_tokens" : u"completion_tokens");
    if (result.outputTokens < 0 && result.inputTokens >= 0)
        result.outputTokens = 0;
    const QJsonObject details = usage.value(responses ? u"input_tokens_details" : u"prompt_tokens_details").toObject();
    result.cachedTokens = count(details, u"cached_tokens");
    return result;
}

// Anthropic: input_tokens excludes tokens written to or read from the prompt cache, so they are
// added back; cache writes are counted as ordinary input (they cost a little more than that).
// Fields absent from this object leave `into` as it was: message_delta may carry only output_tokens.
void mergeAnthropicUsage(const QJsonObject &usage, Usage &into)
{
    const qint64 input = count(usage, u"input_tokens");
    const qint64 created = count(usage, u"cache_creation_input_tokens");
    const qint64 read = count(usage, u"cache_read_input_tokens");
    if (input >= 0)
        into.inputTokens = input + qMax<qint64>(created, 0) + qMax<qint64>(read, 0);
    if (read >= 0 || input >= 0)
        into.cachedTokens = qMax<qint64>(read, 0);
    const qint64 output = count(usage, u"output_tokens");
    if (output >= 0)
        into.outputTokens = output;   // cumulative: overwrite, never add
}

// The JSON payloads of an event stream's `data:` lines, in order.
QList<QJsonObject> dataObjects(const QByteArray &events, const QByteArray &mustContain)
{
    QList<QJsonObject> objects;
    const QByteArrayView all(events);
    for (qsizetype start = 0; start < all.size();) {
        qsizetype end = all.indexOf('\n', start);
        if (end < 0)
            end = all.size();
        const QByteArrayView line = all.sliced(start, end - start).trimmed();
        start = end + 1;
        if (!line.startsWith("data:") || !line.contains(mustContain))
            continue;
        const QJsonDocument document = QJsonDocument::fromJson(line.sliced(5).trimmed().toByteArray());
        if (document.isObject())
            objects.append(document.object());
    }
    return objects;
}

// Gemini's usageMetadata: promptTokenCount (cached included, cachedContentTokenCount of it),
// candidatesTokenCount plus thoughtsTokenCount (thinking is billed as output). Each chunk of a
// stream carries the counts so far: the last one wins.
Usage geminiUsage(const QJsonObject &metadata)
{
    Usage result;
    result.inputTokens = count(metadata, u"promptTokenCount");
    const qint64 candidates = count(metadata, u"candidatesTokenCount");
    const qint64 thoughts = count(metadata, u"thoughtsTokenCount");
    result.outputTokens = candidates < 0 && thoughts < 0 ? (result.inputTokens >= 0 ? 0 : -1)
                                                         : qMax<qint64>(candidates, 0) + qMax<qint64>(thoughts, 0);
    result.cachedTokens = count(metadata, u"cachedContentTokenCount");
    if (result.cachedTokens < 0 && result.inputTokens >= 0)
        result.cachedTokens = 0;
    return result;
}

} // namespace

Usage parseUsage(ApiStyle style, const QJsonDocument &answer)
{
    if (style == ApiStyle::Gemini) {
        // generateContent answers an object; streamGenerateContent without alt=sse a JSON array of them.
        const QJsonArray chunks = answer.array();
        const QJsonObject last = answer.isArray() ? (chunks.isEmpty() ? QJsonObject() : chunks.last().toObject())
                                                  : answer.object();
        const QJsonObject metadata = last.value(u"usageMetadata").toObject();
        return metadata.isEmpty() ? Usage{} : geminiUsage(metadata);
    }
    Usage result;
    const QJsonObject usage = answer.object().value(u"usage").toObject();
    if (usage.isEmpty())
        return result;
    if (style == ApiStyle::OpenAI)
        return openaiUsage(usage);
    mergeAnthropicUsage(usage, result);
    return result;
}

Usage parseUsage(ApiStyle style, const QByteArray &body, bool stream)
{
    if (!stream)
        return parseUsage(style, QJsonDocument::fromJson(body));
    Usage result;
    if (style == ApiStyle::Gemini) {
        for (const QJsonObject &chunk : dataObjects(body, "\"usageMetadata\"")) {
            if (const QJsonValue metadata = chunk.value(u"usageMetadata"); metadata.isObject())
                result = geminiUsage(metadata.toObject());
        }
        return result;
    }

    // Only the few events that mention usage are parsed, not every token chunk.
    for (const QJsonObject &event : dataObjects(body, "\"usage\"")) {
        if (style == ApiStyle::OpenAI) {
            // Chat and completions carry it on a chunk of its own; the Responses API in the
            // response of its last event (response.completed, or .incomplete / .failed).
            QJsonValue usage = event.value(u"usage");
            if (!usage.isObject())
                usage = event.value(u"response").toObject().value(u"usage");
            if (usage.isObject())   // every chunk but the last carries "usage": null
                result = openaiUsage(usage.toObject());
            continue;
        }
        const QString type = event.value(u"type").toString();
        if (type == u"message_start")
            mergeAnthropicUsage(event.value(u"message").toObject().value(u"usage").toObject(), result);
        else if (type == u"message_delta")
            mergeAnthropicUsage(event.value(u"usage").toObject(), result);
    }
    return result;
}

qint64 requestedMaxTokens(const QJsonObject &body)
{
    // Bounded before the conversion, so an absurd value makes an absurd (refused) reservation
    // rather than an overflow: 1e12 tokens times 1e6 completions still fits in a qint64.
    qint64 perCompletion = kDefaultMaxOutputTokens;
    for (QStringView name : {u"max_tokens", u"max_completion_tokens", u"max_output_tokens"}) {
        const QJsonValue value = body.value(name);
        if (value.isDouble() && value.toDouble() > 0) {
            perCompletion = qint64(qMin(value.toDouble(), 1e12));
            break;
        }
    }
    qint64 completions = 1;
    for (QStringView name : {u"n", u"best_of"}) {
        const QJsonValue value = body.value(name);
        if (value.isDouble() && value.toDouble() > 1)
            completions = qMax(completions, qint64(qMin(value.toDouble(), 1e6)));
    }
    return perCompletion * completions;
}

qint64 estimateInputTokens(const QByteArray &body)
{
    return (body.size() + 3) / 4;
}
