#include "upstream/breakerprobe.h"

#include "clock.h"
#include "http/protocol.h"
#include "upstream/circuitbreaker.h"

#include <QLoggingCategory>
#include <QNetworkAccessManager>
#include <QNetworkReply>

using namespace Qt::StringLiterals;

Q_LOGGING_CATEGORY(lcProbe, "breakwater.breaker.probe", QtInfoMsg)

BreakerProbe::BreakerProbe(CircuitBreaker *breaker, const QUrl &modelsUrl, std::chrono::milliseconds interval,
                           std::chrono::milliseconds timeout, QObject *parent)
    : QObject(parent),
      m_breaker(breaker),
      m_modelsUrl(modelsUrl),
      m_timeout(timeout),
      m_network(new QNetworkAccessManager(this))
{
    // Never follow a redirect: the probe carries the user's credential, and a 3xx pointing at
    // another host would hand it over there (Qt follows same-scheme redirects by default). A 3xx is
    // an answer like any other; the pool's managers are set the same way.
    m_network->setRedirectPolicy(QNetworkRequest::ManualRedirectPolicy);
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
    QNetworkRequest request(m_modelsUrl);
    for (const auto &[name, value] : combineRepeated(m_credentials))
        request.setRawHeader(name, value);
    request.setTransferTimeout(int(m_timeout.count()));
    ++m_probesSent;
    m_pending = m_network->get(request);
    connect(m_pending, &QNetworkReply::finished, this, [this, reply = m_pending] {
        m_pending = nullptr;
        reply->deleteLater();
        const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        // Any answer that is not a server error or a rate limit means the provider is serving again
        // (a 401 from a stale key still shows it is up).
        const bool alive = status > 0 && status < 500 && status != 429;
        qCDebug(lcProbe) << m_breaker->upstream() << "probe ->" << status << reply->errorString();
        m_lastProbeAtMs = m_breaker->clock().wallMs();
        m_lastProbeAlive = alive;
        if (status > 0)
            m_lastProbeResult = QString::number(status);
        else if (reply->error() == QNetworkReply::OperationCanceledError || reply->error() == QNetworkReply::TimeoutError)
            m_lastProbeResult = u"timeout"_s;   // the transfer timeout aborts the reply
        else
            m_lastProbeResult = u"unreachable"_s;
        if (alive)
            m_breaker->probeSucceeded();
    });
}
