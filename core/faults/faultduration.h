#pragma once

#include <QString>

#include <chrono>
#include <optional>

// A duration D as fault rules write it (faults/faultrule.h): seconds, fractional ok, or a number
// with a unit: 500ms, 2s, 1.5m. nullopt for anything else, a negative value or one past a year.
// The one parser of such durations, beside FaultRule::parse in faultrule.cpp, which takes a rule's
// delay=, for= and retry-after= with it; a drill's timeline (drill/faulttimeline.h) takes its "at".
std::optional<std::chrono::milliseconds> parseFaultDuration(const QString &text);
