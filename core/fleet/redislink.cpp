#include "fleet/redislink.h"

#include <hiredis/async.h>
#include <hiredis/hiredis.h>

#include <QDateTime>
#include <QDeadlineTimer>
#include <QHostAddress>
#include <QHostInfo>
#include <QLoggingCategory>
#include <QSocketNotifier>

Q_LOGGING_CATEGORY(lcFleet, "breakwater.fleet", QtInfoMsg)

using namespace Qt::StringLiterals;

namespace {

qint64 nowMs()
{
    return QDeadlineTimer::current().deadline();
}

// hiredis's event hooks on two QSocketNotifiers. Not the shipped adapters/qt.h: that one connects
// with SIGNAL() strings and deletes a notifier from inside its own activation when hiredis drops a
// connection while reading; here the notifiers are disabled and deleted later instead.
struct RedisSocketNotifiers
{
    QSocketNotifier *read = nullptr;
    QSocketNotifier *write = nullptr;

    static void attach(redisAsyncContext *context, QObject *owner)
    {
        auto *notifiers = new RedisSocketNotifiers;
        const qintptr fd = context->c.fd;
        notifiers->read = new QSocketNotifier(fd, QSocketNotifier::Read, owner);
        notifiers->write = new QSocketNotifier(fd, QSocketNotifier::Write, owner);
        notifiers->read->setEnabled(false);
        notifiers->write->setEnabled(false);
        QObject::connect(notifiers->read, &QSocketNotifier::activated, owner, [context] { redisAsyncHandleRead(context); });
        QObject::connect(notifiers->write, &QSocketNotifier::activated, owner, [context] { redisAsyncHandleWrite(context); });
        context->ev.data = notifiers;
        context->ev.addRead = [](void *data) { static_cast<RedisSocketNotifiers *>(data)->read->setEnabled(true); };
        context->ev.delRead = [](void *data) { static_cast<RedisSocketNotifiers *>(data)->read->setEnabled(false); };
        context->ev.addWrite = [](void *data) { static_cast<RedisSocketNotifiers *>(data)->write->setEnabled(true); };
        context->ev.delWrite = [](void *data) { static_cast<RedisSocketNotifiers *>(data)->write->setEnabled(false); };
        context->ev.cleanup = [](void *data) {
            auto *notifiers = static_cast<RedisSocketNotifiers *>(data);
            for (QSocketNotifier *notifier : {notifiers->read, notifiers->write}) {
                notifier->setEnabled(false);
                QObject::disconnect(notifier, nullptr, nullptr, nullptr);
                notifier->deleteLater();
            }
            delete notifiers;
        };
    }
};

RedisReply fromHiredis(const redisReply *reply)
{
    RedisReply value;
    switch (reply->type) {
    case REDIS_REPLY_STRING: value.kind = RedisReply::Kind::String; break;
    case REDIS_REPLY_STATUS: value.kind = RedisReply::Kind::Status; break;
    case REDIS_REPLY_ERROR: value.kind = RedisReply::Kind::Error; break;
    case REDIS_REPLY_INTEGER: value.kind = RedisReply::Kind::Integer; break;
    case REDIS_REPLY_NIL: value.kind = RedisReply::Kind::Nil; break;
    case REDIS_REPLY_ARRAY: value.kind = RedisReply::Kind::Array; break;
    default: value.kind = RedisReply::Kind::Error; break;
    }
    if (reply->str)
        value.text = QByteArray(reply->str, qsizetype(reply->len));
    value.integer = reply->integer;
    for (size_t i = 0; i < reply->elements; ++i)
        value.items.append(fromHiredis(reply->element[i]));
    return value;
}

RedisReply unavailable(const QString &why)
{
    return {RedisReply::Kind::Unavailable, why.toUtf8(), 0, {}};
}

// Errors that say the server will not take writes (or us) for now, rather than that one command was wrong.
bool refusesService(const QByteArray &error)
{
    return error.startsWith("OOM") || error.startsWith("READONLY") || error.startsWith("MISCONF")
        || error.startsWith("NOAUTH") || error.startsWith("WRONGPASS") || error.startsWith("NOPERM")
        || error.startsWith("LOADING") || error.startsWith("BUSY") || error.startsWith("MASTERDOWN");
}

} // namespace

RedisLink::RedisLink(const RedisTarget &target, const QByteArray &instanceId, QObject *parent)
    : QObject(parent), m_target(target), m_instanceId(instanceId)
{
    m_deadlineTimer.setSingleShot(true);
    connect(&m_deadlineTimer, &QTimer::timeout, this, &RedisLink::checkDeadlines);
    m_heartbeatTimer.setInterval(kHeartbeat);
    connect(&m_heartbeatTimer, &QTimer::timeout, this, &RedisLink::heartbeat);
    m_reconnectTimer.setSingleShot(true);
    connect(&m_reconnectTimer, &QTimer::timeout, this, &RedisLink::connectNow);
}

RedisLink::~RedisLink()
{
    if (redisAsyncContext *context = std::exchange(m_context, nullptr))
        redisAsyncFree(context);   // its callbacks find m_context changed and do nothing
}

void RedisLink::start()
{
    qCInfo(lcFleet).noquote() << "shared state:" << m_target.display();
    if (QHostAddress address; address.setAddress(m_target.host)) {
        m_resolvedHost = address.toString();
        connectNow();
        return;
    }
    // hiredis resolves names with a blocking getaddrinfo: let Qt do it off this thread first.
    QHostInfo::lookupHost(m_target.host, this, [this](const QHostInfo &info) {
        if (info.error() != QHostInfo::NoError || info.addresses().isEmpty()) {
            degrade(u"cannot resolve %1: %2"_s.arg(m_target.host, info.errorString()));
            QTimer::singleShot(kMaxBackoff, this, &RedisLink::start);
            return;
        }
        m_resolvedHost = info.addresses().constFirst().toString();
        connectNow();
    });
}

void RedisLink::connectNow()
{
    if (m_context)
        return;
    redisAsyncContext *context = redisAsyncConnect(m_resolvedHost.toUtf8().constData(), m_target.port);
    if (!context || context->err) {
        const QString why = context ? QString::fromUtf8(context->errstr) : u"out of memory"_s;
        if (context)
            redisAsyncFree(context);
        degrade(u"cannot connect: %1"_s.arg(why));
        scheduleReconnect();
        return;
    }
    m_context = context;
    m_connected = false;
    const quint64 connection = ++m_connections;
    context->data = this;
    RedisSocketNotifiers::attach(context, this);
    redisAsyncSetConnectCallback(context, &RedisLink::connectCallback);
    redisAsyncSetDisconnectCallback(context, &RedisLink::disconnectCallback);
    // Queued now, sent once connected, answered in this order.
    const qint64 deadline = nowMs() + connectDeadline().count();
    if (!m_target.password.isEmpty()) {
        QList<QByteArray> auth{"AUTH"};
        if (!m_target.user.isEmpty())
            auth.append(m_target.user);
        auth.append(m_target.password);
        send(auth, {deadline, this, [this, connection](const RedisReply &reply) {
            if (reply.kind == RedisReply::Kind::Error && connection == m_connections)
                dropConnection(u"Redis refused the credentials: %1"_s.arg(QString::fromUtf8(reply.text)));
        }, true});
    }
    if (m_target.db != 0) {
        send({"SELECT", QByteArray::number(m_target.db)}, {deadline, this, [this, connection](const RedisReply &reply) {
            if (reply.kind == RedisReply::Kind::Error && connection == m_connections)
                dropConnection(u"Redis refused SELECT %1: %2"_s.arg(m_target.db).arg(QString::fromUtf8(reply.text)));
        }, true});
    }
    heartbeat();
}

void RedisLink::connectCallback(const redisAsyncContext *context, int status)
{
    auto *link = static_cast<RedisLink *>(context->data);
    if (!link || link->m_context != context)
        return;
    if (status == REDIS_OK) {
        link->m_connected = true;
        return;
    }
    // hiredis frees the context itself after a failed connect.
    link->m_context = nullptr;
    link->onDisconnected(u"cannot connect: %1"_s.arg(QString::fromUtf8(context->errstr)));
}

void RedisLink::disconnectCallback(const redisAsyncContext *context, int)
{
    auto *link = static_cast<RedisLink *>(context->data);
    if (!link || link->m_context != context)
        return;
    link->m_context = nullptr;   // hiredis frees it after this call
    link->onDisconnected(u"connection lost: %1"_s.arg(context->err ? QString::fromUtf8(context->errstr) : u"closed"_s));
}

void RedisLink::replyCallback(redisAsyncContext *context, void *reply, void *privdata)
{
    auto *link = static_cast<RedisLink *>(context->data);
    if (!link || link->m_context != context)
        return;
    const quint64 id = quint64(quintptr(privdata));
    link->onReply(id, reply ? fromHiredis(static_cast<redisReply *>(reply)) : unavailable(u"connection lost"_s));
}

void RedisLink::command(const QList<QByteArray> &args, QObject *context, Done done)
{
    if (!m_shared || !m_context) {
        finish({0, context, std::move(done), false}, unavailable(m_reason));
        return;
    }
    send(args, {nowMs() + m_target.timeout.count(), context, std::move(done), false});
}

void RedisLink::send(const QList<QByteArray> &args, Pending pending)
{
    std::vector<const char *> argv;
    std::vector<size_t> lengths;
    for (const QByteArray &arg : args) {
        argv.push_back(arg.constData());
        lengths.push_back(size_t(arg.size()));
    }
    const quint64 id = m_nextId++;
    if (redisAsyncCommandArgv(m_context, &RedisLink::replyCallback, reinterpret_cast<void *>(quintptr(id)),
                              int(argv.size()), argv.data(), lengths.data()) != REDIS_OK) {
        finish(std::move(pending), unavailable(u"the connection is closing"_s));
        return;
    }
    m_pending.insert(id, std::move(pending));
    m_order.append(id);
    if (!m_deadlineTimer.isActive())
        m_deadlineTimer.start(std::chrono::milliseconds(qMax<qint64>(1, m_pending.value(id).deadlineMs - nowMs())));
}

void RedisLink::onReply(quint64 id, const RedisReply &reply)
{
    Pending pending = m_pending.take(id);
    m_order.removeOne(id);
    if (reply.kind == RedisReply::Kind::Error && refusesService(reply.text) && !pending.internal)
        degrade(u"Redis refuses service: %1"_s.arg(QString::fromUtf8(reply.text.left(120))));
    finish(std::move(pending), reply);
}

void RedisLink::finish(Pending pending, const RedisReply &reply)
{
    if (!pending.done)
        return;
    // Always later, from the event loop: a caller is never re-entered, and hiredis never is either.
    QObject *context = pending.context ? pending.context.data() : nullptr;
    if (!context)
        return;
    QMetaObject::invokeMethod(context, [done = std::move(pending.done), reply] { done(reply); }, Qt::QueuedConnection);
}

void RedisLink::checkDeadlines()
{
    if (m_pending.isEmpty())
        return;
    // A busy proxy thread may be late to read answers that have arrived: read them before judging.
    if (m_context && m_connected)
        redisAsyncHandleRead(m_context);
    const qint64 now = nowMs();
    qint64 earliest = std::numeric_limits<qint64>::max();
    for (const Pending &pending : std::as_const(m_pending))
        earliest = qMin(earliest, pending.deadlineMs);
    if (earliest <= now) {
        dropConnection(u"Redis did not answer within %1 ms"_s.arg(m_target.timeout.count()));
        return;
    }
    if (!m_pending.isEmpty())
        m_deadlineTimer.start(std::chrono::milliseconds(earliest - now));
}

void RedisLink::heartbeat()
{
    if (!m_context)
        return;
    // The instance's key says it is alive (the fleet view lists them) and proves Redis takes writes.
    const qint64 deadline = nowMs() + (m_connected ? m_target.timeout : connectDeadline()).count();
    const QByteArray value = m_heartbeatValue ? m_heartbeatValue()
                                              : QByteArray::number(QDateTime::currentMSecsSinceEpoch());
    send({"SET", "bw:v1:instance:" + m_instanceId, value, "PX", QByteArray::number(kHeartbeatTtl.count())},
         {deadline, this, [this, connection = m_connections](const RedisReply &reply) {
             // An answer on a connection dropped since (after a refused AUTH, say) tells nothing now.
             if (connection != m_connections || !m_context)
                 return;
             if (reply.isOk())
                 becomeShared();
             else if (reply.kind == RedisReply::Kind::Error)
                 degrade(u"Redis refuses writes: %1"_s.arg(QString::fromUtf8(reply.text.left(120))));
         }, true});
    if (!m_heartbeatTimer.isActive())
        m_heartbeatTimer.start();
}

void RedisLink::becomeShared()
{
    m_backoff = kFirstBackoff;
    if (m_shared)
        return;
    m_shared = true;
    m_reason.clear();
    qCInfo(lcFleet).noquote() << "shared state: shared with" << m_target.display();
    Q_EMIT sharedChanged(true);
}

void RedisLink::degrade(const QString &reason)
{
    m_reason = reason;
    if (!m_shared)
        return;
    m_shared = false;
    ++m_degradedCount;
    qCWarning(lcFleet).noquote() << "shared state: degraded (local only):" << reason;
    Q_EMIT sharedChanged(false);
}

void RedisLink::dropConnection(const QString &why)
{
    if (redisAsyncContext *context = std::exchange(m_context, nullptr))
        redisAsyncFree(context);
    onDisconnected(why);
}

void RedisLink::onDisconnected(const QString &why)
{
    m_connected = false;
    m_heartbeatTimer.stop();
    m_deadlineTimer.stop();
    const QHash<quint64, Pending> pending = std::exchange(m_pending, {});
    const QList<quint64> order = std::exchange(m_order, {});
    for (quint64 id : order)
        finish(pending.value(id), unavailable(why));
    degrade(why);
    scheduleReconnect();
}

void RedisLink::scheduleReconnect()
{
    if (m_reconnectTimer.isActive())
        return;
    m_reconnectTimer.start(m_backoff);
    m_backoff = std::min(m_backoff * 2, kMaxBackoff);
}
