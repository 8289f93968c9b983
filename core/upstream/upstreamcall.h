#pragma once

#include "http/apierror.h"

#include <QObject>
#include <QUrl>

#include <atomic>
#include <chrono>
#include <functional>
#include <utility>

// One exchange with an upstream, as the proxy thread sees it. The exchange itself runs on one of
// the engine's event loops (UpstreamPool admits it, upstreamengine.h); this object lives on the
// proxy thread and receives, through queued signals, the status and headers, each body piece as it
// arrives, and the end. Owned by the Flight that started it; `finished` is always the last signal.

struct UpstreamRequest
{
    QByteArray method = "POST";
    QUrl url;
    HeaderList headers;   // already filtered: no hop-by-hop, Host or Content-Length
    QByteArray body;
    std::chrono::milliseconds timeout{60000};  // to the first byte and between pieces
};

enum class UpstreamFailure : quint8 {
    None,         // the upstream answered in full (any HTTP status)
    Unreachable,  // connection refused, host unknown, reset before any answer
    Timeout,      // our own --timeout expired (first byte or a gap in the body)
    Cut,          // the answer began but the connection ended before it was complete
    Shutdown,     // Breakwater is stopping
    Cancelled,    // nobody waits for the answer any more and it cannot be reused (Flight::cancel)
};

struct UpstreamResult
{
    UpstreamFailure failure = UpstreamFailure::None;
    QString detail;      // network error text, for the error message and the log
    int status = 0;      // the upstream's HTTP status, 0 when it sent none
};

class UpstreamCall final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(UpstreamCall)
public:
    explicit UpstreamCall(QObject *parent = nullptr) : QObject(parent) {}

    // Asks the exchange to end now (proxy thread); it ends as UpstreamFailure::Cancelled, with
    // `finished` still to come (queued). A call still waiting in the pool's queue never starts.
    void cancel()
    {
        m_cancelled = true;
        if (m_interrupt)
            std::exchange(m_interrupt, {})();
    }
    bool isCancelled() const { return m_cancelled.load(); }
    // Set by the pool that admitted the call: what `cancel` does to reach the exchange.
    void setInterrupt(std::function<void()> interrupt) { m_interrupt = std::move(interrupt); }

Q_SIGNALS:
    void started(qint64 queueWaitMs);
    void headersReceived(int status, const HeaderList &headers);
    void bodyReceived(const QByteArray &piece);
    void finished(const UpstreamResult &result);

private:
    std::atomic<bool> m_cancelled{false};
    std::function<void()> m_interrupt;
};

Q_DECLARE_METATYPE(UpstreamResult)
