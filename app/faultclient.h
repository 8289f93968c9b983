#pragma once

struct CommandLine;

// `breakwater fault add RULE | list | clear [ID]`: one request to the running Breakwater's control
// API (/breakwater/faults) at --listen, its answer printed for a person. Returns the exit status:
// 0 done, 1 when nothing listens there or the instance refused (its error is printed).
// Needs a QCoreApplication; blocks until the answer is in (at most 10 s).
int runFaultCommand(const CommandLine &options);
