#pragma once

#include <QHash>
#include <QObject>
#include <QPointer>

#include <chrono>
#include <functional>
#include <optional>

#include "fleet/sharedanswers.h"
#include "http/apierror.h"

class RedisLink;
class UpstreamCall;
struct UpstreamResult;

// Flights across the fleet: for one request key, one instance calls the upstream and the others
// join it. The local singleflight (sharing/sharing.h) stays in front; this is asked only when no
// local flight runs for the key and no answer was found, so each instance asks once per herd.
//
// A claim is one atomic script: the answer if one was stored meanwhile, else the lease
// `bw:v1:{key}:flight` (SET NX PX, holding a token `<instance>:<nonce>`) for the one that leads, else
// the holder's token for the ones that follow. The leader publishes its upstream call on the stream
// `bw:v1:{key}:ev:<token>` (FlightPublisher: status and headers, body pieces, end, numbered) and
// renews the lease while it runs; a joiner reads that stream from its first entry (FlightFollower),
// so it gets the answer byte for byte however late it joined. A new token per lease means a takeover
// never mixes two calls' bytes in one stream. Redis degraded or slow: the claim says Local within
// the link's deadline and the instance flies on its own. Lives on the proxy thread.
class FleetFlights final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(FleetFlights)
public:
    static constexpr std::chrono::milliseconds kLease{3000};        // a dead leader is noticed after this
    static constexpr std::chrono::milliseconds kRenewEvery{1000};   // well inside the lease
    static constexpr std::chrono::milliseconds kPollEvery{20};      // a joiner's read while nothing is new
    static constexpr std::chrono::milliseconds kStreamAfterEnd{5000};   // late readers of a finished stream
    static constexpr int kReadCount = 256;   // stream entries per read

    explicit FleetFlights(RedisLink &link, QObject *parent = nullptr);

    struct Claim
    {
        enum class Role { Lead, Follow, Answered, Local };
        Role role = Role::Local;
        QByteArray token;                          // Lead: ours; Follow: the leader's
        std::optional<SharedAnswers::Found> answer;   // Answered
    };
    // `done` is called once, later, within the link's command deadline. Identical claims in progress
    // share one command; a Lead claim that no flight used by the time every waiter was called
    // (`lead` not called: every request refused before its call) is released at once.
    void claim(const QByteArray &key, QObject *context, std::function<void(const Claim &)> done);

    // The upstream call of the flight that a Lead claim's waiter just made (inside its `done`): the
    // call is published for the fleet. A no-op for any other call, so it is safe to call always.
    void lead(const QByteArray &key, UpstreamCall *call);

    // A stand-in upstream call, parented to `owner`, fed from the leader's stream. When the leader is
    // gone before anything was passed on (lease expired, Redis lost), `relaunch` makes a fresh upstream
    // call (led for the fleet if this instance wins the new lease); after that, the call ends Cut.
    using Relaunch = std::function<UpstreamCall *(QObject *owner)>;
    UpstreamCall *follow(const QByteArray &key, const QByteArray &token, Relaunch relaunch, QObject *owner);

    int leading() const { return m_leading; }      // published flights now
    int following() const { return m_following; }  // followed flights now

    RedisLink &link() { return m_link; }
    QByteArray newToken() const;
    static QByteArray leaseKey(const QByteArray &key);
    static QByteArray streamKey(const QByteArray &key, const QByteArray &token);

    // Entry bodies on the stream. Every entry has `n` (0, 1, 2, ...) and one of `h` (status and
    // headers), `b` (body bytes) or `e` (the end: UpstreamResult).
    static QByteArray encodeHead(int status, const HeaderList &headers);
    static bool decodeHead(const QByteArray &bytes, int &status, HeaderList &headers);
    static QByteArray encodeEnd(const UpstreamResult &result);
    static std::optional<UpstreamResult> decodeEnd(const QByteArray &bytes);

private:
    using Done = std::function<void(const Claim &)>;
    void startPublishing(const QByteArray &key, const QByteArray &token, UpstreamCall *call);

    RedisLink &m_link;
    QHash<QByteArray, QList<std::pair<QPointer<QObject>, Done>>> m_claims;   // key -> who waits for it
    QHash<QByteArray, QByteArray> m_seating;   // while a Lead claim's waiters are called: key -> our token
    int m_leading = 0;
    int m_following = 0;
};
