#pragma once

#include <functional>

#include <QByteArray>
#include <QJsonObject>
#include <QObject>
#include <QSslConfiguration>
#include <QUrl>

#include "livesettings.h"
#include "message.h"

class QNetworkAccessManager;
struct FaultRule;

// The dashboard's hands on a remote Breakwater (`breakwater --attach`): the breaker buttons,
// pausing admission, fault injection and the live settings, each one request to the remote's
// control API (controlapi.h, faults/faultroute.h) with the owner's token, as `breakwater fault`
// sends them. Asynchronous: each call returns at once, and what the remote did shows in its next
// snapshot on the event stream, as it does for a local proxy; a refusal comes as failed().
// Lives on the GUI thread.
class RemoteControl final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(RemoteControl)
public:
    RemoteControl(const QUrl &remote, const QByteArray &controlToken, const QSslConfiguration &ssl,
                  QObject *parent = nullptr);

    void setControlToken(const QByteArray &token) { m_token = token; }
    void actOnBreaker(const QString &upstream, BreakerAction action);
    void setAdmissionPaused(bool paused);
    void armFault(const FaultRule &rule);
    void disarmFault(int id);
    void clearFaults();
    // How one request ended: its HTTP status (0: no answer) and, unless it was a 2xx, what went
    // wrong, for a person (the remote's own message where it gave one).
    using Done = std::function<void(int status, const Message &why)>;
    // PATCH /breakwater/settings with these fields (LiveSettings' JSON names); `done` hears how
    // it ended, besides answered() and failed().
    void changeSettings(const QJsonObject &changes, Done done = {});

    int pending() const { return m_pending; }   // requests sent and not answered yet

Q_SIGNALS:
    void answered(int status);
    // A request the remote refused or never answered: what it said, for a person (translated()
    // in the window).
    void failed(const Message &why);

private:
    void send(const QByteArray &method, const QString &path, const QJsonObject &body = {}, Done done = {});

    QUrl m_remote;
    QByteArray m_token;
    QSslConfiguration m_ssl;
    QNetworkAccessManager *m_network = nullptr;
    int m_pending = 0;
};
