#pragma once

#include "mockanswers.h"

// The mock's answers for the routes around the chat ones, so a proxy's pass-through and its other
// shared routes have a faithful far end:
// - Anthropic: POST /v1/messages/count_tokens ({"input_tokens": N}, the same N as /v1/messages
//   reports for that body), /v1/messages/batches (POST create, GET list and by id).
// - OpenAI: /v1/moderations, /v1/images/generations, /v1/batches (POST create, GET list and by id).
// - Files: GET /v1/files lists none, in OpenAI's shape or (with anthropic-version) Anthropic's.
// - Uploads: POST /v1/files, /v1/images/edits and /v1/audio/transcriptions take any body
//   (multipart/form-data above all) and answer in their API's shape (a file upload with
//   anthropic-version in Anthropic's FileMetadata) plus a `received` object:
//   the byte count, Content-Type and SHA-256 (hex) of the exact body, and for multipart each
//   field's value and each file's name, type, size and SHA-256. A test compares them with what it
//   sent to prove a pass-through was byte-identical.
namespace mockanswers {

struct Request;

// `request` is the parsed body for the routes that take JSON, empty for the others.
Answer extraAnswer(const Call &call, const Request &request);

} // namespace mockanswers
