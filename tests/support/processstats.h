#pragma once

#include <QtGlobal>

// What /proc says about a running process (this one by default): the figures the engine's tests
// and benchmarks watch for leaks. -1 when the process is gone or /proc cannot be read.
namespace processstats {

qint64 residentKiB(qint64 pid = 0);
int threadCount(qint64 pid = 0);
int openDescriptors(qint64 pid = 0);

} // namespace processstats
