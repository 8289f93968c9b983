#include "attach/remotecontrol.h"

#include <QJsonDocument>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>

#include "faults/faultrule.h"
#include "http/apierror.h"

using namespace Qt::StringLiterals;

namespace {
constexpr int kRequestTimeoutMs = 10'000;
}

RemoteControl::RemoteControl(const QUrl &remote, const QByteArray &controlToken, const QSslConfiguration &ssl,
                             QObject *parent)
    : QObject(parent),
      m_remote(remote),
      m_token(controlToken),
      m_ssl(ssl),
      m_network(new QNetworkAccessManager(this))
{
}

void RemoteControl::actOnBreaker(const QString &upstream, BreakerAction action)
{
    send("POST", u"/breakwater/breaker/%1/%2"_s.arg(upstream, QString::fromLatin1(breakerActionName(action))));
}

void RemoteControl::setAdmissionPaused(bool paused)
{
    send("POST", paused ? u"/breakwater/admission/pause"_s : u"/breakwater/admission/resume"_s);
}

void RemoteControl::armFault(const FaultRule &rule)
{
    send("POST", u"/breakwater/faults"_s, {{u"rule"_s, rule.text()}});
}

void RemoteControl::disarmFault(int id)
{
    send("DELETE", u"/breakwater/faults/%1"_s.arg(id));
}

void RemoteControl::clearFaults()
{
    send("DELETE", u"/breakwater/faults"_s);
}

void RemoteControl::changeSettings(const QJsonObject &changes, Done done)
{
    send("PATCH", u"/breakwater/settings"_s, changes, std::move(done));
}

void RemoteControl::send(const QByteArray &method, const QString &path, const QJsonObject &body, Done done)
{
    QUrl url = m_remote;
    url.setPath(path);
    url.setQuery(QString());
    QNetworkRequest request(url);
    request.setRawHeader("Authorization", "Bearer " + m_token);
    request.setTransferTimeout(kRequestTimeoutMs);
    if (url.scheme() == u"https"_s)
        request.setSslConfiguration(m_ssl);
    QByteArray bytes;
    if (!body.isEmpty()) {
        request.setHeader(QNetworkRequest::ContentTypeHeader, u"application/json"_s);
        bytes = QJsonDocument(body).toJson(QJsonDocument::Compact);
    }
    QNetworkReply *reply = m_network->sendCustomRequest(request, method, bytes);
    ++m_pending;
    connect(reply, &QNetworkReply::finished, this, [this, reply, method, path, done = std::move(done)] {
        reply->deleteLater();
        --m_pending;
        const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        if (status >= 200 && status < 300) {
            if (done)
                done(status, Message());
            Q_EMIT answered(status);
            return;
        }
        // The remote's own sentence when it sent one (Message::toJson: this window's language), else its text.
        const QJsonObject error = QJsonDocument::fromJson(reply->readAll()).object().value(u"error"_s).toObject();
        const Message said = messageIn(error, u"message"_s, kSentenceField);
        const Message why = said.isEmpty() ? Message(reply->errorString()) : said;
        if (done)
            done(status, why);
        //: %1 %2 is the request ("POST /breakwater/breaker/openai/open"), %3 what went wrong
        Q_EMIT failed(Message(QT_TRANSLATE_NOOP("Message", "%1 %2 failed: %3"))
                          .arg(QString::fromLatin1(method)).arg(path).arg(why));
        Q_EMIT answered(status);
    });
}
