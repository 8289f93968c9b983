#pragma once

#include <QString>

struct CallRecord;

// A recorded call as a curl command a person can paste into a POSIX shell to send it again through
// Breakwater: the method, the URL at Breakwater's own address (`origin`, "http://127.0.0.1:8080"),
// the client's headers but for hop-by-hop ones, Host, Content-Length and Accept-Encoding, and the
// body when the call log kept it (--log-bodies; otherwise a comment says so and the command reads
// it from body.json). Credentials were never recorded: each credential header becomes the shell
// variable its SDKs read (http/protocol.h's table: `Authorization: Bearer $OPENAI_API_KEY`,
// `x-api-key: $ANTHROPIC_API_KEY`, `x-goog-api-key: $GEMINI_API_KEY`), cookies are left out, and a
// key in the query stays REDACTED, with a comment saying so. Every other word is single-quoted, so quotes, $, backticks and newlines in a body
// or a header reach curl exactly as recorded and the shell expands nothing but those variables.
namespace CurlCommand {

QString forRecord(const CallRecord &record, const QString &origin);

// `text` as one POSIX shell word, in single quotes ("it's" -> 'it'\''s').
QString shellQuote(const QString &text);

} // namespace CurlCommand
