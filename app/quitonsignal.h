#pragma once

#include <functional>

// Makes SIGINT and SIGTERM quit the Qt event loop cleanly (a self-pipe: a signal handler may only
// write to a file descriptor; the event loop reads it and quits), so pools and logs shut down in order.
void quitOnSignals();
// From now on a signal runs `handler` (on the main thread) instead of quitting: during the drain, a
// second SIGTERM ends the calls left at once.
void onSignals(std::function<void()> handler);

// Which signal came, and whether the terminal sent it: Ctrl+C reaches the whole foreground process
// group, a child process included, while kill(1) or a CI runner reaches only us.
struct ReceivedSignal
{
    int number = 0;            // SIGINT or SIGTERM
    bool fromTerminal = false;
};
void onSignals(std::function<void(const ReceivedSignal &)> handler);
