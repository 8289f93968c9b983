#pragma once

struct CommandLine;

// `breakwater fault add RULE | list | clear [ID]`: one request to the running Breakwater's control
// API (/breakwater/faults) at --listen with the owner's control token (--control-token FILE, else the
// per-user file, controltoken.h), its answer printed for a person. Returns the exit status: 0 done,
// 1 when the token cannot be read, nothing listens there or the instance refused (its error is printed).
// Needs a QCoreApplication; blocks until the answer is in (at most 10 s).
int runFaultCommand(const CommandLine &options);
