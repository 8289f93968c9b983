#pragma once

#include <QByteArray>
#include <QList>
#include <QString>

#include <chrono>

#include "faults/faultrule.h"
#include "result.h"

// A drill's fault timeline: which fault rule `breakwater exec --faults FILE` arms when, counted
// from COMMAND's start. The file is JSON:
//
//   {"timeline": [{"at": "5s", "rule": "529:for=20s"}, {"at": 40, "rule": "hang:count=3"}]}
//
// "at" is a duration as fault rules write one (faults/faultduration.h: seconds, 500ms, 2s, 1.5m),
// or a number of seconds; "rule" is a rule as --fault takes it (FaultRule::parse). The whole file
// is read before COMMAND starts, so a drill never runs half a timeline: the first entry that
// cannot be read is refused, named by its place in the file and its text.
struct TimelineEntry
{
    int number = 0;                   // its place in the file, from 1
    QString atText;                   // "at" as written, for messages and test names
    std::chrono::milliseconds at{0};
    FaultRule rule;                   // parsed, not yet armed
};

namespace FaultTimeline {

// The entries in the order they are armed: by "at", the file's order among equal times.
Expected<QList<TimelineEntry>> parse(const QByteArray &json);
Expected<QList<TimelineEntry>> read(const QString &path);

} // namespace FaultTimeline
