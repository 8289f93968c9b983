#pragma once

#include "mockanswers.h"

// The mock's Gemini API (generativelanguage.googleapis.com's v1beta), so the @google/genai SDK
// and a proxy's Gemini routes have a faithful far end:
// - POST /v1beta/models/{model}:generateContent: one candidate "echo: <last user text>" with
//   finishReason STOP and usageMetadata (promptTokenCount, candidatesTokenCount, totalTokenCount);
// - POST .../{model}:streamGenerateContent (?alt=sse): the same as `data:` chunks, each with the
//   usage so far, the last one alone carrying finishReason (a cut stream therefore lacks it);
// - POST .../{model}:countTokens: {"totalTokens": N}, the N generateContent reports for that prompt;
// - GET /v1beta/models and /v1beta/models/{model}: mock models in Gemini's list shape.
// Its errors come in Gemini's shape through errorOf (429 RESOURCE_EXHAUSTED, 503 UNAVAILABLE), and
// ErrorEvent puts {"error":{...}} (UNAVAILABLE) into a stream after its first piece of text.
namespace mockanswers {

struct Request;

// The Gemini route of a request, or Unknown.
Route geminiRoute(const QByteArray &method, const QString &path);
bool isGeminiRoute(Route route);
// Reads a Gemini request body ("contents", "systemInstruction"): false when it is not a JSON object.
bool parseGemini(const Call &call, Request *request);
Answer geminiAnswer(const Call &call, const Request &request, Variant variant);

} // namespace mockanswers
