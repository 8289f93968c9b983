#include "upstream/breakerprobe.h"

#include "clock.h"
#include "http/protocol.h"
#include "upstream/circuitbreaker.h"

#include "upstream/upstreampool.h"

#include <QLoggingCategory>

using namespace Qt::StringLiterals;

Q_LOGGING_CATEGORY(lcProbe, "breakwater.breaker.probe", QtInfoMsg)

// The probe never follows a redirect (the engine follows none): it carries the user's credential,
// and a 3xx pointing at another host would hand it over there. A 3xx is an answer like any other.
BreakerProbe::BreakerProbe(CircuitBreaker *breaker, UpstreamPool *pool, const QUrl &modelsUrl,
                           std::chrono::milliseconds interval, std::chrono::milliseconds timeout, QObject *parent)
    : QObject(parent),
      m_breaker(breaker),
      m_modelsUrl(modelsUrl),
      m_timeout(timeout),
      m_pool(pool)
{
    m_timer.setInterval(interval);
    connect(&m_timer, &QTimer::timeout, this, &BreakerProbe::probe);
    connect(breaker, &CircuitBreaker::stateChanged, this, &BreakerProbe::onBreakerChanged);
}

void BreakerProbe::rememberCredentials(const HeaderList &headers)
{
    // The credential headers are the table's (http/protocol.h); the routing sends this upstream
    // only requests of its own API, so none of them is another API's key.
    static const QList<QByteArray> apiHeaders{"anthropic-version", "openai-organization", "openai-project"};
    HeaderList kept;
    for (const auto &[name, value] : headers) {
        const QByteArray lower = name.toLower();
        if (isCredentialHeader(lower) || apiHeaders.contains(lower))
            kept.append({name, value});
    }
    if (!kept.isEmpty())
        m_credentials = kept;
}

void BreakerProbe::onBreakerChanged(const BreakerTransition &transition)
{
    // Judged from the transition being announced: the probe runs exactly while the breaker is open,
    // unless a person opened it (CircuitBreaker::forceOpen): probing would undo that in a second.
    if (transition.to == BreakerState::Open && !m_breaker->openedByHand()) {
        if (!m_timer.isActive())
            m_timer.start();
    } else {
        m_timer.stop();
    }
}

bool BreakerProbe::probeNow()
{
    if (m_breaker->state() != BreakerState::Open)
        return false;
    probe();
    return true;
}

void BreakerProbe::probe()
{
    if (m_pending || m_breaker->state() != BreakerState::Open)
        return;
    UpstreamRequest request;
    request.method = "GET";
    request.url = m_modelsUrl;
    request.headers = m_credentials;
    request.timeout = m_timeout;
    ++m_probesSent;
    m_pending = m_pool->submitUncounted(request, this);
    // The answer's body is not needed: only whether one came, and its status.
    connect(m_pending, &UpstreamCall::finished, this, [this, call = m_pending](const UpstreamResult &result) {
        m_pending = nullptr;
        call->deleteLater();
        const int status = result.status;
        // Any answer that is not a server error or a rate limit means the provider is serving again
        // (a 401 from a stale key still shows it is up).
        const bool alive = result.failure == UpstreamFailure::None && status > 0 && status < 500 && status != 429;
        qCDebug(lcProbe) << m_breaker->upstream() << "probe ->" << status << result.detail;
        m_lastProbeAtMs = m_breaker->clock().wallMs();
        m_lastProbeAlive = alive;
        if (result.failure == UpstreamFailure::None && status > 0)
            m_lastProbeResult = QString::number(status);
        else if (result.failure == UpstreamFailure::Timeout)
            m_lastProbeResult = u"timeout"_s;
        else
            m_lastProbeResult = u"unreachable"_s;
        if (alive)
            m_breaker->probeSucceeded();
    });
}
