#pragma once

#include <QObject>
#include <QPointer>
#include <QTimer>

#include <optional>

#include "faults/faultrule.h"
#include "http/eventstream.h"
#include "http/streamverdict.h"
#include "upstream/upstreamcall.h"

class UpstreamPool;

// Plays one injected fault as an UpstreamCall that behaves exactly as a real one would: the same
// signals in the same order (started, headersReceived, bodyReceived..., finished last), the same
// UpstreamFailure for the same misbehaviour, so the flight, StreamVerdict, the breaker, spend, the
// call log and the charts cannot tell it from the provider's own failure.
//  - status, garbage, reset and hang make no upstream call: the answer is core's own
//    (faultanswers.h); a hang sends nothing and ends as UpstreamFailure::Timeout when the request's
//    timeout (our --timeout) expires, as the pool's own timer would end a real one.
//  - delay, slow-stream, cut and error-event wrap a real call from the pool and hold back, space out
//    or end its answer: a cut ends as UpstreamFailure::Cut (the connection "drops"), an error event
//    is the provider's own inside the 200 and then the stream ends. A delay or a gap as long as the
//    timeout is a timeout.
// UpstreamCall::cancel and the pool's stop (the end of a drain) end it within a 100 ms poll, as
// they end a real exchange (Cancelled, Shutdown). A wrapped call's `finished` comes only after the
// real call's, so the real call is never deleted while its exchange still posts to it.
//
// Lives on the proxy thread, a child of the call it plays (and so of the flight that owns it).
class FaultCall final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(FaultCall)
public:
    struct Context
    {
        ApiStyle style = ApiStyle::OpenAI;   // the route's API: the shape of the provider's errors
        QByteArray route;                    // the route's path (the Responses API's error event)
        qint64 wallMs = 0;                   // now, for a 429's reset time
        bool passThrough = false;            // a pass-through route, which is judged by its status alone
    };

    // The call, parented to `owner`, which starts on the next turn of the event loop. nullptr when
    // the rule wraps a real call and the pool's queue is full.
    static UpstreamCall *play(const FaultRule &rule, const Context &context, const UpstreamRequest &request,
                              UpstreamPool &pool, QObject *owner);

private:
    FaultCall(const FaultRule &rule, const Context &context, std::chrono::milliseconds timeout,
              UpstreamPool &pool, UpstreamCall *outer);

    void startScripted();
    void follow(UpstreamCall *inner);
    void onHeaders(int status, const HeaderList &headers);
    void onBody(const QByteArray &piece);
    void onInnerFinished(const UpstreamResult &result);
    void relayEvent(const QByteArray &event);
    void fire();   // the cut or the error event, now
    void endEarly(UpstreamResult result);
    void openGate();
    void step();
    void poll();
    void finish(const UpstreamResult &result);
    QList<QByteArray> completeEvents(const QByteArray &piece);

    FaultRule m_rule;
    Context m_context;
    std::chrono::milliseconds m_timeout;
    QPointer<UpstreamPool> m_pool;
    UpstreamCall *m_outer = nullptr;          // the parent: the call the flight follows
    QPointer<UpstreamCall> m_inner;           // the real call, for the kinds that wrap one
    QTimer m_poll;                            // cancel and pool stop
    QTimer m_timer;                           // the hang's timeout, the delay, the gap between events
    bool m_gateOpen = true;                   // delay: closed until the delay has passed
    std::optional<std::pair<int, HeaderList>> m_heldHeaders;
    QByteArray m_heldBody;                    // delay: the answer's bytes behind the gate
    QList<QByteArray> m_heldEvents;           // slow-stream: complete events not yet let out
    QByteArray m_partial;                     // the bytes of an event whose end has not come
    EventStreamParser m_parser;               // finds where each event ends
    bool m_eventStream = false;               // the answer is an event stream
    int m_status = 0;
    qint64 m_eventsOut = 0;
    StreamVerdict m_relayed;                  // what the events relayed so far say of the stream's end
    bool m_stopped = false;                   // nothing more of the real answer is relayed
    std::optional<UpstreamResult> m_innerResult;
    std::optional<UpstreamResult> m_endWith;  // what the call ends as instead of the real result
    bool m_finished = false;
};
