#pragma once

#include <QByteArray>
#include <QList>
#include <QObject>

#include <chrono>

#include "http/apierror.h"

class SdkLikeClient;

// The app's side of a field-test scenario: calls sent as the official SDKs send them
// (SdkLikeClient: their retries, their headers) at planned times after start(), to one target (a
// port and a path on loopback). done() once every planned call was sent and has finished.
// Lives on the thread that creates it and needs its event loop.
class AppTraffic final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(AppTraffic)
public:
    struct Planned
    {
        qint64 atMs = 0;     // after start()
        QByteArray body;
    };

    AppTraffic(quint16 port, QByteArray path, QList<Planned> plan, std::chrono::milliseconds attemptTimeout,
               QObject *parent = nullptr);

    void start();
    bool isDone() const { return m_finished == m_plan.size(); }
    int sent() const { return int(m_calls.size()); }
    int planned() const { return int(m_plan.size()); }
    // In the plan's order; a call not sent yet is missing.
    const QList<SdkLikeClient *> &calls() const { return m_calls; }

Q_SIGNALS:
    void done();

private:
    void send(qsizetype index);

    quint16 m_port;
    QByteArray m_path;
    QList<Planned> m_plan;
    std::chrono::milliseconds m_attemptTimeout;
    QList<SdkLikeClient *> m_calls;
    qsizetype m_finished = 0;
};
