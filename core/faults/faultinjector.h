#pragma once

#include <QList>
#include <QMap>
#include <QObject>
#include <QPair>

#include "faults/faultrule.h"
#include "http/apierror.h"
#include "upstream/upstreamcall.h"

class Clock;
class UpstreamPool;

// The armed fault-injection rules, and the seam where they act: every new flight's upstream call
// is submitted through `submit` (ProxyServer::takeOff). When no armed rule fires the call goes to
// the pool as it always did; when one fires, the call is played by a FaultCall (faultcall.h) that
// behaves as the real failure would, so everything downstream treats it as one. Off by default:
// with no rule armed, `submit` is the pool's submit.
//
// Rules fire in the order they were armed: the first whose scope matches and whose dice (p=) say
// so. A rule that has fired its count=, or whose for= has passed (on the Clock, so tests use a
// FakeClock), is disarmed the next time the rules are looked at.
//
// Owned by ProxyServer; lives and is touched only on the proxy thread (the dashboard reaches it
// with a queued call, as the control API's handler runs there already).
class FaultInjector final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(FaultInjector)
public:
    explicit FaultInjector(const Clock &clock, QObject *parent = nullptr);

    // Arms a rule: gives it its id and starts its for= time. Returns it as armed.
    FaultRule arm(FaultRule rule);
    // Disarms one rule; false when no armed rule has that id.
    bool disarm(int id);
    // Disarms every rule; returns how many there were.
    int clear();
    // The armed rules, in firing order (expired and spent ones dropped first).
    QList<FaultRule> rules();

    // What a call is, for the rules' scope.
    struct Target
    {
        QByteArray upstream;   // openai, anthropic
        QByteArray route;      // the route's path in the table
        QString model;         // the request body's model
        bool stream = false;   // the request asks for a stream
        ApiStyle style = ApiStyle::OpenAI;
        bool passThrough = false;   // a pass-through route: relayed as it comes, judged by status alone
    };
    struct Submitted
    {
        UpstreamCall *call = nullptr;   // nullptr: the pool's queue is full
        QString fault;                  // the label of the rule that fired (FaultRule::label()); empty: none
        // False when a scripted fault stands in for the provider (hang, reset, status, garbage):
        // nothing was sent upstream, so nothing can be billed for it.
        bool reachesProvider = true;
    };
    // The one upstream call of a new flight, parented to `owner`: the real one, or a fault.
    Submitted submit(UpstreamPool &pool, const UpstreamRequest &request, const Target &target, QObject *owner);

    // Faults injected since start, by upstream and kind (breakwater_faults_injected_total).
    using Counts = QMap<QPair<QByteArray, QByteArray>, quint64>;
    const Counts &injected() const { return m_injected; }
    const Clock &clock() const { return m_clock; }

Q_SIGNALS:
    // A rule was armed or disarmed (by hand, by its count or by its expiry).
    void rulesChanged();
    // A rule was disarmed by disarm() or clear(), not by its count or expiry (a fleet rule then
    // leaves the fleet: fleet/fleetfaults.h).
    void disarmed(const FaultRule &rule);

private:
    void dropFinished();
    bool matches(const FaultRule &rule, const Target &target) const;

    const Clock &m_clock;
    QList<FaultRule> m_rules;
    int m_nextId = 1;
    Counts m_injected;
};
