#pragma once

// breakwater-bench engine: issue 23's targets, one run, side by side: direct to the mock, the
// engine before issue 23 (a thread and a network manager per call), the Qt-only fallback (a few
// network managers on one thread) and the CurlEngine; the Portkey gateway beside them when its
// start-server.js is given (--portkey PATH). Each proxy runs alone in a child process
// (`breakwater-bench proxy-only ...`), so its memory and threads are its own.
//   --engines curl,thread,shared   which engines (default all three)
//   --portkey PATH                 node_modules/@portkey-ai/gateway/build/start-server.js
//   --storm-seconds S              the miss storm's length (default 60)
int engineBench();

// The child: one proxy with the named engine in front of --upstream, printing "port N" when ready,
// running until it is killed.
int proxyOnly();
// The mock provider alone, as the engine bench runs it (latency 0), printing "port N": for
// looking at one proxy's way with strace or perf against the same upstream.
int mockOnly();
