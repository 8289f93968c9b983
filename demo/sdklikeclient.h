#pragma once

#include "http/apierror.h"
#include "loopbackclient.h"

#include <QElapsedTimer>
#include <QObject>

// A client that retries exactly as the official SDKs do: up to 2 retries; `x-should-retry:
// true/false` decides first; else 408, 409, 429 and >= 500 are retried, and so are connection
// errors; the delay is retry-after-ms, else retry-after (<= 60 s), else 0.5 s x 2^n (capped at 8 s)
// less up to 25 % jitter. The bench replays the field test's scenarios with it (bench/fieldtest.h),
// and the drill tests use it as the app under test. Every attempt is kept with its times and the
// headers that say how it was served (attemptLog()).
class SdkLikeClient final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(SdkLikeClient)
public:
    SdkLikeClient(quint16 port, QByteArray path, HeaderList headers, QByteArray body,
                  std::chrono::milliseconds attemptTimeout, QObject *parent = nullptr);

    // One HTTP request of the call, as sent and as answered.
    struct Attempt
    {
        int retryCount = 0;          // its X-Stainless-Retry-Count: 0 = the first try
        qint64 sentAtMs = 0;         // wall clock
        qint64 firstByteAtMs = 0;    // the answer's head arrived; 0 = no answer
        qint64 endAtMs = 0;          // answered in full, or given up (connection lost, timed out)
        int status = 0;              // 0 = no answer
        QByteArray dedup;            // x-breakwater-dedup, x-breakwater-breaker, x-request-id as answered
        QByteArray breaker;
        QByteArray requestId;
    };

    void start();
    bool isFinished() const { return m_finished; }
    int attempts() const { return m_attempts; }
    qint64 startedAtMs() const { return m_startedAtMs; }   // wall clock of start()
    qint64 waitedMs() const { return m_waitedMs; }
    const LoopbackResponse &response() const { return m_response; }
    const QList<Attempt> &attemptLog() const { return m_attemptLog; }

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
    qint64 m_startedAtMs = 0;
    QList<Attempt> m_attemptLog;
    int m_attempts = 0;
    qint64 m_waitedMs = 0;
    bool m_finished = false;
    LoopbackResponse m_response;
};
