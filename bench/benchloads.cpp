#include "benchloads.h"

#include <QElapsedTimer>
#include <QSemaphore>
#include <QThread>

#include <algorithm>

using namespace Qt::StringLiterals;

double percentile(QList<qint64> values, double p)
{
    if (values.isEmpty())
        return 0;
    std::sort(values.begin(), values.end());
    const qsizetype index = qMin(values.size() - 1, qsizetype(p * double(values.size() - 1) + 0.5));
    return double(values[index]);
}

QByteArray chatRequest(quint16 port, const QByteArray &body)
{
    return LoopbackClient::requestBytes(port, "POST", "/v1/chat/completions", kOpenAiAuth, body);
}

LoopbackClient::RequestMaker sameRequest(const QByteArray &request)
{
    return [request](qint64) { return request; };
}

namespace {

LoopbackClient::RequestMaker distinct(quint16 port, int tag, const HeaderList &extraHeaders, bool stream)
{
    return [port, tag, extraHeaders, stream](qint64 n) {
        const QString prompt = u"distinct prompt %1-%2"_s.arg(tag, 3, 10, QLatin1Char('0'))
                                   .arg(n, 9, 10, QLatin1Char('0'));
        return LoopbackClient::requestBytes(port, "POST", "/v1/chat/completions", kOpenAiAuth + extraHeaders,
                                            chatBody(prompt, stream));
    };
}

} // namespace

LoopbackClient::RequestMaker distinctRequests(quint16 port, int tag, const HeaderList &extraHeaders)
{
    return distinct(port, tag, extraHeaders, false);
}

LoopbackClient::RequestMaker distinctStreams(quint16 port, int tag)
{
    return distinct(port, tag, {}, true);
}

// `connections` keep-alive clients, each sending as fast as answers come for `warmUp` (not
// recorded) and then `duration`. The clients run on a thread of their own so they compete with
// the proxy thread as a real client process would, not with the main thread's bookkeeping; the
// main thread only sleeps.
Load loadFor(quint16 port, int connections, const std::function<LoopbackClient::RequestMaker(int)> &requestsFor,
             std::chrono::milliseconds warmUp, std::chrono::milliseconds duration)
{
    QThread clientThread;
    QList<LoopbackClient *> clients;
    for (int i = 0; i < connections; ++i) {
        auto *client = new LoopbackClient(port, requestsFor(i));
        client->moveToThread(&clientThread);
        clients.append(client);
    }
    clientThread.start();
    for (LoopbackClient *client : clients)
        QMetaObject::invokeMethod(client, &LoopbackClient::start);
    if (warmUp.count() > 0) {
        QThread::msleep(quint64(warmUp.count()));
        for (LoopbackClient *client : clients)
            QMetaObject::invokeMethod(client, &LoopbackClient::clearRecorded, Qt::BlockingQueuedConnection);
    }
    QElapsedTimer clock;
    clock.start();
    QThread::msleep(quint64(duration.count()));
    for (LoopbackClient *client : clients)
        QMetaObject::invokeMethod(client, &LoopbackClient::stop, Qt::BlockingQueuedConnection);
    Load load;
    load.seconds = clock.elapsed() / 1000.0;
    clientThread.quit();
    clientThread.wait();
    for (LoopbackClient *client : clients) {
        load.collect(client);
        delete client;
    }
    return load;
}

// One keep-alive client sending `warmUp + count` requests one after another; the first `warmUp`
// round trips are dropped. The main thread blocks until the client is done.
Load sequentialLoad(quint16 port, const LoopbackClient::RequestMaker &requests, int warmUp, int count)
{
    QThread clientThread;
    auto *client = new LoopbackClient(port, requests);
    client->setLimit(warmUp + count);
    client->moveToThread(&clientThread);
    QSemaphore done;
    QObject::connect(client, &LoopbackClient::finished, client, [&done] { done.release(); }, Qt::DirectConnection);
    clientThread.start();
    QElapsedTimer clock;
    clock.start();
    QMetaObject::invokeMethod(client, &LoopbackClient::start);
    Load load;
    load.timedOut = !done.tryAcquire(1, 120'000);
    if (load.timedOut)
        QMetaObject::invokeMethod(client, &LoopbackClient::stop, Qt::BlockingQueuedConnection);
    load.seconds = clock.elapsed() / 1000.0;
    clientThread.quit();
    clientThread.wait();
    load.collect(client);
    delete client;
    load.tripsNs.remove(0, qMin<qsizetype>(warmUp, load.tripsNs.size()));
    load.firstChunksNs.remove(0, qMin<qsizetype>(warmUp, load.firstChunksNs.size()));
    return load;
}

