#pragma once

#include <chrono>

#include <QByteArray>
#include <QList>
#include <QObject>
#include <QHash>
#include <QPointer>
#include <QSet>
#include <QSslConfiguration>
#include <QTimer>
#include <QUrl>

#include "accounting/callrecord.h"
#include "http/eventstream.h"
#include "proxysnapshot.h"
#include "result.h"
#include "upstream/circuitbreaker.h"

class QNetworkAccessManager;
class QNetworkReply;

// `breakwater --attach URL`: a remote Breakwater's live events (GET URL/breakwater/events,
// attach/eventfeed.h) turned back into the four signals a local ProxyServer gives the dashboard,
// so the same DashboardModel draws either. http and https; https trusts the system's authorities
// and, with addCaFile, one more (a team's own CA or a self-signed certificate).
//
// While the remote is away (refused, reset, a stream that ended, nothing heard for
// kSilenceLimit: three keep-alives missed) it says so once with disconnected(), then tries again
// after a wait that starts at kFirstRetry and doubles up to kMaxRetry; the wait starts over
// once a stream opens again. The first stream's opening snapshot gives the remote's latest calls
// as history(); a later one's calls that completed while away come as callCompleted(), each once
// (the feed remembers the ids of the last kRememberedCalls records it gave). A breaker whose state in
// a snapshot is not the one its transitions left (it changed while the feed was away, or the remote
// restarted with its breakers closed) gets a transition to it, so the timeline and tiles agree
// with the remote.
// Lives on the GUI thread, like the model it feeds.
class RemoteFeed final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(RemoteFeed)
public:
    static constexpr std::chrono::milliseconds kFirstRetry{500};
    static constexpr std::chrono::milliseconds kMaxRetry{10000};
    static constexpr std::chrono::milliseconds kSilenceLimit{45000};
    static constexpr int kRememberedCalls = 10000;

    // `remote` is the Breakwater's address (http://host:port or https://host:port; a path is
    // ignored), `controlToken` its owner's token.
    RemoteFeed(const QUrl &remote, const QByteArray &controlToken, QObject *parent = nullptr);
    ~RemoteFeed() override;

    // PEM authorities trusted besides the system's; before start().
    Result addCaFile(const QString &path);
    void start();
    // Another token (one the user gave when the remote refused this one), and a try with it now.
    void setControlToken(const QByteArray &token) { m_token = token; }
    void reconnectNow();
    // The HTTP status of the latest stream that ended (401: the token was refused; 0: no answer).
    int lastStatus() const { return m_lastStatus; }

    bool isConnected() const { return m_connected; }
    int connections() const { return m_connections; }   // streams opened so far
    std::chrono::milliseconds nextRetry() const { return m_retry; }
    QUrl eventsUrl() const;
    const QSslConfiguration &sslConfiguration() const { return m_ssl; }

Q_SIGNALS:
    void callStarted(const CallRecord &record);
    void callCompleted(const CallRecord &record);
    void breakerChanged(const BreakerTransition &transition);
    void snapshotReady(const ProxySnapshot &snapshot);
    // The calls the remote had on record when the stream opened, oldest first.
    void history(const QList<CallRecord> &records);
    void connected();
    // The stream is gone (`why`, for a person: logged in English, shown translated); the next try
    // is in `retryIn`.
    void disconnected(const Message &why, std::chrono::milliseconds retryIn);

private:
    void connectNow();
    void onReadyRead();
    void onFinished();
    void take(const ServerSentEvent &event);
    bool isNew(const QByteArray &requestId);   // and remembers it
    void catchUpBreakers(const ProxySnapshot &snapshot);

    QUrl m_remote;
    QByteArray m_token;
    QSslConfiguration m_ssl;
    QNetworkAccessManager *m_network = nullptr;
    QPointer<QNetworkReply> m_reply;
    EventStreamParser m_parser;
    QTimer m_retryTimer;
    std::chrono::milliseconds m_retry = kFirstRetry;
    bool m_connected = false;
    int m_connections = 0;
    int m_lastStatus = 0;
    QSet<QByteArray> m_seen;           // the ids of the completed calls given, the latest ones
    QList<QByteArray> m_seenInOrder;   // the same, oldest first, to forget the oldest
    QHash<QString, BreakerState> m_breakers;   // each breaker's state as the transitions given left it
};
