#include "attach/remotefeed.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLoggingCategory>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QSslCertificate>

#include "accounting/callrecordjson.h"
#include "http/tlsidentity.h"
#include "attach/eventjson.h"

using namespace Qt::StringLiterals;

Q_LOGGING_CATEGORY(lcAttach, "breakwater.attach")

RemoteFeed::RemoteFeed(const QUrl &remote, const QByteArray &controlToken, QObject *parent)
    : QObject(parent),
      m_remote(remote),
      m_token(controlToken),
      m_ssl(QSslConfiguration::defaultConfiguration()),
      m_network(new QNetworkAccessManager(this))
{
    m_retryTimer.setSingleShot(true);
    connect(&m_retryTimer, &QTimer::timeout, this, &RemoteFeed::connectNow);
}

RemoteFeed::~RemoteFeed()
{
    if (m_reply) {
        m_reply->disconnect(this);
        m_reply->abort();
    }
}

Result RemoteFeed::addCaFile(const QString &path)
{
    return trustCaFile(m_ssl, path);
}

QUrl RemoteFeed::eventsUrl() const
{
    QUrl url = m_remote;
    url.setPath(u"/breakwater/events"_s);
    url.setQuery(QString());
    return url;
}

void RemoteFeed::start()
{
    connectNow();
}

void RemoteFeed::reconnectNow()
{
    m_retryTimer.stop();
    if (m_reply) {   // one with the old token still under way: it says nothing more
        m_reply->disconnect(this);
        m_reply->abort();
        m_reply->deleteLater();
        m_reply = nullptr;
    }
    connectNow();
}

void RemoteFeed::connectNow()
{
    QNetworkRequest request(eventsUrl());
    request.setRawHeader("Authorization", "Bearer " + m_token);
    request.setRawHeader("Accept", "text/event-stream");
    request.setAttribute(QNetworkRequest::CacheLoadControlAttribute, QNetworkRequest::AlwaysNetwork);
    // No byte for this long (the remote sends a comment every 15 s): it is gone, whatever TCP says.
    request.setTransferTimeout(int(kSilenceLimit.count()));
    if (m_remote.scheme() == u"https"_s)
        request.setSslConfiguration(m_ssl);
    m_parser = EventStreamParser();
    m_reply = m_network->get(request);
    connect(m_reply, &QIODevice::readyRead, this, &RemoteFeed::onReadyRead);
    connect(m_reply, &QNetworkReply::finished, this, &RemoteFeed::onFinished);
}

void RemoteFeed::onReadyRead()
{
    if (!m_reply)
        return;
    const int status = m_reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    if (status != 200)
        return;   // an error answer is read whole in onFinished
    m_parser.feed(m_reply->readAll(), [this](const ServerSentEvent &event) { take(event); });
}

void RemoteFeed::take(const ServerSentEvent &event)
{
    const QJsonObject data = QJsonDocument::fromJson(event.data).object();
    if (event.type == "started") {
        Q_EMIT callStarted(callRecordFromJson(data));
    } else if (event.type == "completed") {
        const CallRecord record = callRecordFromJson(data);
        if (isNew(record.requestId))
            Q_EMIT callCompleted(record);
    } else if (event.type == "breaker") {
        const BreakerTransition transition = transitionFromJson(data);
        m_breakers.insert(transition.upstream, transition.to);
        Q_EMIT breakerChanged(transition);
    } else if (event.type == "snapshot") {
        if (data.contains(u"calls"_s)) {   // the opening one: the stream is up
            QList<CallRecord> records;
            for (const QJsonValue &value : data.value(u"calls"_s).toArray()) {
                CallRecord record = callRecordFromJson(value.toObject());
                if (isNew(record.requestId))
                    records.append(std::move(record));
            }
            m_connected = true;
            m_lastStatus = 200;
            ++m_connections;
            m_retry = kFirstRetry;
            qCInfo(lcAttach).noquote() << "attached to" << m_remote.toDisplayString();
            Q_EMIT connected();
            if (m_connections == 1) {
                Q_EMIT history(records);
            } else {
                for (const CallRecord &record : std::as_const(records))   // completed while away
                    Q_EMIT callCompleted(record);
            }
        }
        const ProxySnapshot snapshot = snapshotFromStats(data.value(u"stats"_s).toObject());
        catchUpBreakers(snapshot);
        Q_EMIT snapshotReady(snapshot);
    }
}

void RemoteFeed::onFinished()
{
    QNetworkReply *reply = m_reply;
    if (!reply)
        return;
    m_reply = nullptr;
    reply->deleteLater();
    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    m_lastStatus = status;
    Message why;
    if (status == 401 || status == 403) {
        const QString message = QJsonDocument::fromJson(reply->readAll()).object()
                                    .value(u"error"_s).toObject().value(u"message"_s).toString();
        //: %1 is the remote's own explanation (its API's, in English)
        why = Message(QT_TRANSLATE_NOOP("Message", "the remote refused the control token: %1")).arg(message);
    } else if (status != 0 && status != 200) {
        why = Message(QT_TRANSLATE_NOOP("Message", "the remote answered %1")).arg(status);
    } else if (reply->error() != QNetworkReply::NoError) {
        why = reply->errorString();   // Qt's own words, in Qt's translation
    } else {
        why = Message(QT_TRANSLATE_NOOP("Message", "the remote ended the stream"));
    }
    const std::chrono::milliseconds wait = m_retry;
    m_retry = std::min(m_retry * 2, kMaxRetry);
    const bool was = m_connected;
    m_connected = false;
    qCInfo(lcAttach).noquote() << "stream gone:" << why.english() << "- again in" << wait.count() << "ms" << (was ? "" : "(not attached)");
    m_retryTimer.start(wait);
    Q_EMIT disconnected(why, wait);
}

bool RemoteFeed::isNew(const QByteArray &requestId)
{
    if (requestId.isEmpty())
        return true;
    if (m_seen.contains(requestId))
        return false;
    m_seen.insert(requestId);
    m_seenInOrder.append(requestId);
    if (m_seenInOrder.size() > kRememberedCalls)
        m_seen.remove(m_seenInOrder.takeFirst());
    return true;
}

void RemoteFeed::catchUpBreakers(const ProxySnapshot &snapshot)
{
    for (const UpstreamSnapshot &upstream : snapshot.upstreams) {
        const QString name = QString::fromUtf8(upstream.name);
        // A breaker nobody reported yet is closed, as the dashboard takes it to be.
        const BreakerState known = m_breakers.value(name, BreakerState::Closed);
        if (upstream.breakerState == known)
            continue;
        m_breakers.insert(name, upstream.breakerState);
        //: the reason of a breaker transition the attached dashboard did not see happen
        Q_EMIT breakerChanged({name, snapshot.atMs, known, upstream.breakerState,
                               Message(QT_TRANSLATE_NOOP("Message", "found so on the remote (it changed while this dashboard was away)"))});
    }
}
