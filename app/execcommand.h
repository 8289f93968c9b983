#pragma once

struct CommandLine;

// `breakwater exec [--faults FILE] [--junit FILE] [--har FILE] [options] -- COMMAND [ARGS]`: an
// outage drill. Starts a private headless Breakwater in this process (the proxy on its own thread,
// as `breakwater --headless` runs it) on a free loopback port with a call log of its own in a
// temporary folder, runs COMMAND with the SDKs' base-URL variables pointed at it, arms the fault
// timeline's rules at their times (through the proxy's FaultInjector, queued onto the proxy thread,
// as the dashboard does), and when COMMAND has ended prints the drill's summary on stderr
// (drill/drillsummary.h), writes the JUnit and HAR files asked for and returns COMMAND's exit
// status. A timeline that cannot be read: 2, before COMMAND starts; COMMAND not found: 127, not
// executable: 126, as a shell says. SIGINT or SIGTERM stops COMMAND (a second one kills it) and
// the summary is still printed.
int runExec(CommandLine options, int argc, char *argv[]);
