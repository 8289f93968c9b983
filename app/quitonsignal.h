#pragma once

// Makes SIGINT and SIGTERM quit the Qt event loop cleanly (a self-pipe: a signal handler may only
// write to a file descriptor; the event loop reads it and quits), so pools and logs shut down in order.
void quitOnSignals();
