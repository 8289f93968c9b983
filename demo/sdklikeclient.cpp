#include "sdklikeclient.h"

#include <QDateTime>
#include <QRandomGenerator>
#include <QTimer>

#include <cmath>

SdkLikeClient::SdkLikeClient(quint16 port, QByteArray path, HeaderList headers, QByteArray body,
                             std::chrono::milliseconds attemptTimeout, QObject *parent)
    : QObject(parent), m_port(port), m_path(std::move(path)), m_headers(std::move(headers)),
      m_body(std::move(body)), m_attemptTimeout(attemptTimeout)
{
}

void SdkLikeClient::start()
{
    m_started.start();
    m_startedAtMs = QDateTime::currentMSecsSinceEpoch();
    attempt();
}

void SdkLikeClient::attempt()
{
    HeaderList headers = m_headers;
    headers.append({"X-Stainless-Retry-Count", QByteArray::number(m_attempts)});
    m_attemptLog.append({m_attempts, QDateTime::currentMSecsSinceEpoch(), 0, 0, 0, {}, {}, {}});
    ++m_attempts;
    auto *call = new LoopbackClient(m_port, "POST", m_path, headers, m_body, this);
    const qsizetype index = m_attemptLog.size() - 1;
    connect(call, &LoopbackClient::headersReceived, this,
            [this, index] { m_attemptLog[index].firstByteAtMs = QDateTime::currentMSecsSinceEpoch(); });
    connect(call, &LoopbackClient::finished, this, [this, call] { onAttemptFinished(call); });
    // The SDK's own timeout (600 s by default) ends an attempt that never answers.
    call->setTimeout(m_attemptTimeout);
    call->start();
}

qint64 SdkLikeClient::retryDelayMs(const LoopbackResponse &response) const
{
    bool ok = false;
    const double ms = response.header("retry-after-ms").toDouble(&ok);
    if (ok && ms >= 0 && ms <= 60000)
        return qint64(ms);
    const double seconds = response.header("retry-after").toDouble(&ok);
    if (ok && seconds >= 0 && seconds <= 60)
        return qint64(seconds * 1000);
    const int retriesSoFar = m_attempts - 1;
    const double base = std::min(0.5 * std::pow(2.0, retriesSoFar), 8.0);
    const double jitter = 1.0 - 0.25 * QRandomGenerator::global()->generateDouble();
    return qint64(base * jitter * 1000);
}

void SdkLikeClient::onAttemptFinished(LoopbackClient *call)
{
    const LoopbackResponse response = call->response();
    call->deleteLater();
    Attempt &logged = m_attemptLog.last();
    logged.endAtMs = QDateTime::currentMSecsSinceEpoch();
    logged.status = response.status;
    logged.dedup = response.header("x-breakwater-dedup");
    logged.breaker = response.header("x-breakwater-breaker");
    logged.requestId = response.header("x-request-id");
    const QByteArray shouldRetry = response.header("x-should-retry");
    bool retry = false;
    if (shouldRetry == "true")
        retry = true;
    else if (shouldRetry == "false")
        retry = false;
    else if (response.status == 0)
        retry = true;   // connection error or the attempt's own timeout
    else
        retry = response.status == 408 || response.status == 409 || response.status == 429
                || response.status >= 500;
    if (retry && m_attempts <= kMaxRetries) {
        QTimer::singleShot(retryDelayMs(response), this, &SdkLikeClient::attempt);
        return;
    }
    m_response = response;
    m_waitedMs = m_started.elapsed();
    m_finished = true;
    Q_EMIT finished();
}
