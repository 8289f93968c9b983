#pragma once

#include "http/apierror.h"

#include <QObject>
#include <QString>
#include <QTimer>
#include <QUrl>

#include <chrono>

class CircuitBreaker;
struct BreakerTransition;
class UpstreamCall;
class UpstreamPool;

// While a breaker is open, asks the provider cheaply whether it is back (GET the model list, with
// the most recent credential seen for that upstream, held in memory only), once per interval. The
// first answer that is not a server error moves the breaker to half-open, so recovery does not wait
// for the full cool-down. Probes are not billed: listing models costs no tokens.
// Lives on the proxy thread. A probe goes out on the upstream's own engine (same TLS trust, proxy
// rule and protocol as the calls it stands for), outside the pool's count, so a full pool of hung
// calls cannot hold back the question whether the provider is back.
class BreakerProbe final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(BreakerProbe)
public:
    BreakerProbe(CircuitBreaker *breaker, UpstreamPool *pool, const QUrl &modelsUrl, std::chrono::milliseconds interval,
                 std::chrono::milliseconds timeout, QObject *parent = nullptr);

    // Headers to probe with: the credential and API-version headers of the latest request.
    void rememberCredentials(const HeaderList &headers);
    int probesSent() const { return m_probesSent; }
    // The "probe now" button: asks at once instead of at the next interval, also for a breaker
    // opened by hand (which is otherwise not probed). False when the breaker is not open.
    bool probeNow();
    // A live change of the upstream timeout: for the probes sent from now on.
    void setTimeout(std::chrono::milliseconds timeout) { m_timeout = timeout; }
    // The newest probe that ended: when (wall ms, the breaker's clock; 0 = none yet), what it saw
    // ("200", "503", "timeout", "unreachable") and whether that counted as the provider being back.
    qint64 lastProbeAtMs() const { return m_lastProbeAtMs; }
    QString lastProbeResult() const { return m_lastProbeResult; }
    bool lastProbeAlive() const { return m_lastProbeAlive; }

private:
    void onBreakerChanged(const BreakerTransition &transition);
    void probe();

    CircuitBreaker *m_breaker;
    QUrl m_modelsUrl;
    std::chrono::milliseconds m_timeout;
    UpstreamPool *m_pool;
    UpstreamCall *m_pending = nullptr;   // a child, until it finishes
    HeaderList m_credentials;
    QTimer m_timer;
    int m_probesSent = 0;
    qint64 m_lastProbeAtMs = 0;
    QString m_lastProbeResult;
    bool m_lastProbeAlive = false;
};
