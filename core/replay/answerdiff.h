#pragma once

#include <QByteArray>
#include <QString>

#include "message.h"

// What differs between a recorded answer and its replay, in one line a person reads at a glance
// beside the two answers: the status, the body's length, and the first line that differs once
// both bodies are in a readable form (JSON pretty-printed with its keys sorted, so two answers
// that differ only in spacing read as the same; a stream's event text line by line).
namespace AnswerDiff {

// "status 200 → 503; length 312 → 166 bytes; first difference at line 2: ... | ..."
// An empty original body means it was not kept (no --log-bodies, no error body).
Message summary(int originalStatus, const QByteArray &originalBody, int replayStatus, const QByteArray &replayBody);

// `body` pretty-printed when it is a JSON object or array, else unchanged.
QByteArray readable(const QByteArray &body);

} // namespace AnswerDiff
