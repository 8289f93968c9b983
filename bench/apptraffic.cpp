#include "apptraffic.h"

#include <QTimer>

#include "proxyharness.h"
#include "sdklikeclient.h"

AppTraffic::AppTraffic(quint16 port, QByteArray path, QList<Planned> plan, std::chrono::milliseconds attemptTimeout,
                       QObject *parent)
    : QObject(parent), m_port(port), m_path(std::move(path)), m_plan(std::move(plan)), m_attemptTimeout(attemptTimeout)
{
}

void AppTraffic::start()
{
    // Sent in the plan's order: a call planned at 0 goes now, the others on a precise timer each.
    for (qsizetype i = 0; i < m_plan.size(); ++i) {
        if (m_plan[i].atMs <= 0)
            send(i);
        else
            QTimer::singleShot(std::chrono::milliseconds(m_plan[i].atMs), Qt::PreciseTimer, this, [this, i] { send(i); });
    }
    if (m_plan.isEmpty())
        Q_EMIT done();
}

void AppTraffic::send(qsizetype index)
{
    auto *call = new SdkLikeClient(m_port, m_path, kOpenAiAuth, m_plan[index].body, m_attemptTimeout, this);
    m_calls.append(call);
    connect(call, &SdkLikeClient::finished, this, [this] {
        if (++m_finished == m_plan.size())
            Q_EMIT done();
    });
    call->start();
}
