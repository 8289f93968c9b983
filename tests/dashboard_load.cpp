// dashboard_load: measures what the dashboard costs the proxy. Drives a running `breakwater` at a
// fixed request rate with cache hits over keep-alive connections, prints the latency the clients
// saw, and (with --pid) the CPU time of the process's main thread, which is the GUI thread when
// the desktop app runs. Run it once against `breakwater --headless --demo` and once against the
// desktop app under xvfb-run with the window open, at the same rate. Not a ctest test.
//
//   dashboard_load PORT RATE SECONDS [CONNECTIONS] [--pid PID]

#include <algorithm>
#include <cstdio>
#include <unistd.h>

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QTimer>

#include "loopbackclient.h"

namespace {

const QByteArray kBody = R"({"model":"gpt-4o-mini","messages":[{"role":"user","content":"a cached prompt"}]})";

// utime + stime of one thread, in clock ticks (/proc/PID/task/TID/stat fields 14 and 15).
qint64 threadTicks(qint64 pid, qint64 tid)
{
    QFile file(QStringLiteral("/proc/%1/task/%2/stat").arg(pid).arg(tid));
    if (!file.open(QIODevice::ReadOnly))
        return -1;
    const QByteArray stat = file.readAll();
    const QList<QByteArray> fields = stat.mid(stat.lastIndexOf(')') + 2).split(' ');
    return fields.value(11).toLongLong() + fields.value(12).toLongLong();
}

qint64 processTicks(qint64 pid)
{
    QFile file(QStringLiteral("/proc/%1/stat").arg(pid));
    if (!file.open(QIODevice::ReadOnly))
        return -1;
    const QByteArray stat = file.readAll();
    const QList<QByteArray> fields = stat.mid(stat.lastIndexOf(')') + 2).split(' ');
    return fields.value(11).toLongLong() + fields.value(12).toLongLong();
}

double percentile(QList<qint64> values, double p)
{
    if (values.isEmpty())
        return 0;
    std::sort(values.begin(), values.end());
    return double(values[qMin(values.size() - 1, qsizetype(p * double(values.size() - 1) + 0.5))]) / 1e6;
}

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QStringList args = app.arguments();
    qint64 pid = 0;
    if (const qsizetype at = args.indexOf(QStringLiteral("--pid")); at > 0) {
        pid = args.value(at + 1).toLongLong();
        args.remove(at, 2);
    }
    if (args.size() < 4) {
        std::fprintf(stderr, "usage: dashboard_load PORT RATE SECONDS [CONNECTIONS] [--pid PID]\n");
        return 2;
    }
    const quint16 port = quint16(args[1].toUInt());
    const double rate = args[2].toDouble();
    const double seconds = args[3].toDouble();
    const int connections = args.size() > 4 ? args[4].toInt() : 50;

    // Each connection sends a request every `intervalMs`, never more than one at a time.
    const QByteArray request = LoopbackClient::requestBytes(port, "POST", "/v1/chat/completions",
        {{"Authorization", "Bearer sk-load"}, {"Content-Type", "application/json"}}, kBody);
    QList<LoopbackClient *> clients;
    const double intervalMs = 1000.0 * connections / rate;
    for (int i = 0; i < connections; ++i) {
        auto *client = new LoopbackClient(port, [request](qint64) { return request; }, &app);
        client->setPace(intervalMs, intervalMs * i / connections);
        clients.append(client);
    }
    QTimer::singleShot(0, &app, [&] {
        for (LoopbackClient *client : clients)
            client->start();
    });
    // Warm up for a second (fills the cache, settles the pools), then measure.
    qint64 guiStart = 0, processStart = 0;
    QElapsedTimer measured;
    QTimer::singleShot(1000, &app, [&] {
        for (LoopbackClient *client : clients)
            client->clearRecorded();
        guiStart = pid ? threadTicks(pid, pid) : 0;
        processStart = pid ? processTicks(pid) : 0;
        measured.start();
    });
    QTimer::singleShot(int(1000 + seconds * 1000), &app, [&] {
        for (LoopbackClient *client : clients)
            client->stop();
        app.quit();
    });
    app.exec();
    const double elapsed = double(measured.elapsed()) / 1000.0;
    QList<qint64> latencies;
    int late = 0;
    for (const LoopbackClient *client : clients) {
        latencies += client->roundTripsNs();
        late += client->missedSlots();
    }
    std::printf("load: %d connections, target %.0f req/s, %.1f s measured\n", connections, rate, elapsed);
    std::printf("  achieved           %.0f req/s (%lld requests, %d slots missed)\n", latencies.size() / elapsed,
                qint64(latencies.size()), late);
    std::printf("  latency p50/p95/p99/max  %.3f / %.3f / %.3f / %.3f ms\n", percentile(latencies, 0.5),
                percentile(latencies, 0.95), percentile(latencies, 0.99), percentile(latencies, 1.0));
    if (pid) {
        const double hz = double(sysconf(_SC_CLK_TCK));
        const double gui = double(threadTicks(pid, pid) - guiStart) / hz;
        const double all = double(processTicks(pid) - processStart) / hz;
        std::printf("  target main (GUI) thread CPU  %.1f %% of one core\n", 100.0 * gui / elapsed);
        std::printf("  target process CPU            %.1f %% of one core\n", 100.0 * all / elapsed);
    }
    return 0;
}
