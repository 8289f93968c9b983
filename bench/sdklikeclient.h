#pragma once

#include "http/apierror.h"
#include "loopbackclient.h"

#include <QElapsedTimer>
#include <QObject>

// A client that retries exactly as the official SDKs do: up to 2 retries; `x-should-retry:
// true/false` decides first; else 408, 409, 429 and >= 500 are retried, and so are connection
// errors; the delay is retry-after-ms, else retry-after (<= 60 s), else 0.5 s x 2^n (capped at 8 s)
// less up to 25 % jitter. The bench uses it to replay the field test's outage and hang scenarios.
class SdkLikeClient final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(SdkLikeClient)
public:
    SdkLikeClient(quint16 port, QByteArray path, HeaderList headers, QByteArray body,
                  std::chrono::milliseconds attemptTimeout, QObject *parent = nullptr);

    void start();
    bool isFinished() const { return m_finished; }
    int attempts() const { return m_attempts; }
    qint64 waitedMs() const { return m_waitedMs; }
    const LoopbackResponse &response() const { return m_response; }

    static constexpr int kMaxRetries = 2;

Q_SIGNALS:
    void finished();

private:
    void attempt();
    void onAttemptFinished(LoopbackClient *call);
    qint64 retryDelayMs(const LoopbackResponse &response) const;

    quint16 m_port;
    QByteArray m_path;
    HeaderList m_headers;
    QByteArray m_body;
    std::chrono::milliseconds m_attemptTimeout;
    QElapsedTimer m_started;
    int m_attempts = 0;
    qint64 m_waitedMs = 0;
    bool m_finished = false;
    LoopbackResponse m_response;
};
