#include "attach/eventfeed.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QLoggingCategory>

#include "accounting/callrecord.h"
#include "accounting/callrecordjson.h"
#include "attach/eventjson.h"

using namespace Qt::StringLiterals;

Q_LOGGING_CATEGORY(lcEvents, "breakwater.events")

EventFeed::EventFeed(std::function<QJsonObject()> stats, QObject *parent)
    : QObject(parent),
      m_stats(std::move(stats))
{
    m_snapshots.setInterval(kSnapshotInterval);
    connect(&m_snapshots, &QTimer::timeout, this, [this] { send(event("snapshot", {{u"stats"_s, m_stats()}})); });
    m_keepAlive.setInterval(kKeepAlive);
    connect(&m_keepAlive, &QTimer::timeout, this, [this] { send(QByteArrayLiteral(": keep-alive\n\n")); });
}

QByteArray EventFeed::event(QByteArrayView type, const QJsonObject &data)
{
    return "event: " + type.toByteArray() + "\ndata: " + QJsonDocument(data).toJson(QJsonDocument::Compact) + "\n\n";
}

void EventFeed::watch(ResponseWriter writer, const QList<CallRecord> &calls)
{
    QTcpSocket *socket = writer.socket();
    if (!socket || !writer.isConnected())
        return;
    writer.beginStream(200, {{"Content-Type", "text/event-stream"}, {"Cache-Control", "no-cache"},
                             // nginx and others in front must pass each event on, not buffer them.
                             {"X-Accel-Buffering", "no"}});
    QJsonArray records;
    for (const CallRecord &record : calls)
        records.append(callRecordToJson(record));
    writer.writeChunk(event("snapshot", {{u"stats"_s, m_stats()}, {u"calls"_s, records}}));
    m_watchers.push_back(std::move(writer));
    // Released as soon as it hangs up, not only at the next write: a quiet proxy holds no dead watcher.
    connect(socket, &QAbstractSocket::disconnected, this, &EventFeed::release, Qt::QueuedConnection);
    connect(socket, &QObject::destroyed, this, &EventFeed::release, Qt::QueuedConnection);
    if (!m_snapshots.isActive()) {
        m_snapshots.start();
        m_keepAlive.start();
    }
    qCInfo(lcEvents) << "a watcher attached;" << m_watchers.size() << "watching";
}

void EventFeed::endAll()
{
    for (ResponseWriter &writer : m_watchers)
        writer.endStream();
    m_watchers.clear();
    release();
}

void EventFeed::callStarted(const CallRecord &record)
{
    if (!m_watchers.empty())
        send(event("started", callRecordToJson(record)));
}

void EventFeed::callCompleted(const CallRecord &record)
{
    if (!m_watchers.empty())
        send(event("completed", callRecordToJson(record)));
}

void EventFeed::breakerChanged(const BreakerTransition &transition)
{
    if (!m_watchers.empty())
        send(event("breaker", transitionToJson(transition)));
}

void EventFeed::send(const QByteArray &bytes)
{
    for (ResponseWriter &writer : m_watchers)
        writer.writeChunk(bytes);   // a writer whose socket is gone writes nothing
    release();
}

void EventFeed::release()
{
    const auto before = m_watchers.size();
    // A writer that dropped a slow reader (ResponseWriter::abort) is no longer connected either.
    m_watchers.remove_if([](const ResponseWriter &writer) { return !writer.isConnected() || writer.isFinished(); });
    if (m_watchers.size() != before)
        qCInfo(lcEvents) << before - m_watchers.size() << "watcher(s) left;" << m_watchers.size() << "watching";
    if (m_watchers.empty()) {
        m_snapshots.stop();
        m_keepAlive.stop();
    }
}
