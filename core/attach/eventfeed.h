#pragma once

#include <chrono>
#include <functional>
#include <list>

#include <QByteArray>
#include <QJsonObject>
#include <QObject>
#include <QTimer>

#include "http/responsewriter.h"

struct BreakerTransition;
struct CallRecord;

// GET /breakwater/events: the proxy's live events as server-sent events, for a dashboard attached
// from elsewhere (`breakwater --attach`, remotefeed.h) or `curl -N`. Each watcher's stream opens
// with one `snapshot` event ({"stats": the /breakwater/stats object, "calls": the latest call
// records, oldest first}), then carries, in the order the proxy published them:
//   event: started     a call received (its CallRecord so far, accounting/callrecordjson.h)
//   event: completed   a call's response is over (its whole CallRecord)
//   event: breaker     a breaker transition (attach/eventjson.h)
//   event: snapshot    {"stats": ...} every kSnapshotInterval
// and a comment line every kKeepAlive, so proxies between keep the connection and a client can
// tell a quiet Breakwater from a gone one. Who may watch is the control gate's to decide
// (controlgate.h): only the owner, with the control token.
//
// A watcher that hangs up is released at once (its socket's disconnected signal), and any whose
// socket is gone or that fell too far behind reading (ResponseWriter's bounds) at the next write.
// Every write goes through ResponseWriter's guarded socket, so a hang-up mid-event costs nothing.
// Lives on the proxy thread with the sockets; nothing is serialised while nobody watches.
class EventFeed final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(EventFeed)
public:
    static constexpr std::chrono::milliseconds kSnapshotInterval{1000};
    static constexpr std::chrono::milliseconds kKeepAlive{15000};

    // `stats` makes the /breakwater/stats object of the moment (for each snapshot event).
    explicit EventFeed(std::function<QJsonObject()> stats, QObject *parent = nullptr);

    // A new watcher on `writer`'s connection: the stream's head, its opening snapshot with `calls`
    // (the call log's latest rows), then everything published from now on.
    void watch(ResponseWriter writer, const QList<CallRecord> &calls);
    int watchers() const { return int(m_watchers.size()); }
    // Ends every stream cleanly (the proxy drains): the watchers see the end and reconnect elsewhere.
    void endAll();

    void callStarted(const CallRecord &record);
    void callCompleted(const CallRecord &record);
    void breakerChanged(const BreakerTransition &transition);

    // One event as it is written: "event: TYPE\ndata: JSON\n\n" (JSON compact, so on one line).
    static QByteArray event(QByteArrayView type, const QJsonObject &data);

private:
    void send(const QByteArray &bytes);
    void release();   // drops the watchers whose connection is over

    std::function<QJsonObject()> m_stats;
    std::list<ResponseWriter> m_watchers;   // a list: a watcher's writer stays put while others leave
    QTimer m_snapshots;
    QTimer m_keepAlive;
};
