#include "quitonsignal.h"

#include <QCoreApplication>
#include <QSocketNotifier>

#include <csignal>
#include <functional>
#include <sys/socket.h>
#include <unistd.h>

namespace {
int signalPipe[2] = {-1, -1};
// exit(), not quit(): Qt 6's quit() first asks the windows to close, and the desktop app's window
// may not (without a tray it asks "Quit Breakwater?", which nobody answers for a SIGTERM).
std::function<void(const ReceivedSignal &)> onEachSignal = [](const ReceivedSignal &) { QCoreApplication::exit(0); };

// One byte a signal: its number, and the high bit when the kernel sent it on the terminal's behalf
// (SI_KERNEL: Ctrl+C) rather than a process (SI_USER: kill).
void onSignal(int number, siginfo_t *info, void *)
{
    const auto byte = static_cast<unsigned char>((number & 0x7f) | (info && info->si_code == SI_KERNEL ? 0x80 : 0));
    [[maybe_unused]] const auto written = ::write(signalPipe[0], &byte, 1);
}
} // namespace

void onSignals(std::function<void()> handler)
{
    onEachSignal = [handler = std::move(handler)](const ReceivedSignal &) { handler(); };
}

void onSignals(std::function<void(const ReceivedSignal &)> handler)
{
    onEachSignal = std::move(handler);
}

void quitOnSignals()
{
    if (::socketpair(AF_UNIX, SOCK_STREAM, 0, signalPipe) != 0)
        return;
    auto *notifier = new QSocketNotifier(signalPipe[1], QSocketNotifier::Read, qApp);
    QObject::connect(notifier, &QSocketNotifier::activated, qApp, [] {
        unsigned char byte = 0;
        if (::read(signalPipe[1], &byte, 1) != 1)
            return;
        onEachSignal({byte & 0x7f, (byte & 0x80) != 0});
    });
    struct sigaction action = {};
    action.sa_sigaction = onSignal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART | SA_SIGINFO;
    ::sigaction(SIGINT, &action, nullptr);
    ::sigaction(SIGTERM, &action, nullptr);
}
