#pragma once

#include <QJsonObject>
#include <QList>
#include <QString>

struct CallRecord;

// Recorded calls as a HAR 1.2 document (http://www.softwareishard.com/blog/har-12-spec/), the
// format browsers' devtools import: log {version "1.2", creator, entries}, one entry per call with
// every field the spec requires, URLs at Breakwater's own address (`origin`), the recorded headers
// (credentials already redacted), the request body as postData and the answer as content.text when
// the call log kept bodies (a stream as its event text), else the upstream's error body of a failed
// call. Sizes that were not recorded are -1, as the spec says. The timings split the call's total
// time at its first byte: wait up to it, receive after it, send 0 (the proxy reads the whole
// request before it starts). Breakwater's own view of each call (outcome, how it ended, the key's
// inputs, the stream's verdict, the retry attempt) is in the entry's `_breakwater` object, a custom
// field as the spec allows (names starting with an underscore).
namespace HarExport {

QJsonObject document(const QList<CallRecord> &records, const QString &origin);
// The document as indented JSON text, for a .har file.
QByteArray toJson(const QList<CallRecord> &records, const QString &origin);

} // namespace HarExport
