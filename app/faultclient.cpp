#include "faultclient.h"

#include <cstdio>

#include <QEventLoop>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QTimer>

#include "commandline.h"
#include "controltoken.h"

using namespace Qt::StringLiterals;

namespace {

QString describe(const QJsonObject &rule)
{
    QString text = rule.value(u"label"_s).toString() + u"  fired "_s + QString::number(rule.value(u"fired"_s).toInt());
    if (!rule.value(u"left"_s).isNull())
        text += u", %1 left"_s.arg(rule.value(u"left"_s).toInt());
    if (!rule.value(u"expires_in_s"_s).isNull())
        text += u", expires in %1 s"_s.arg(rule.value(u"expires_in_s"_s).toDouble(), 0, 'f', 1);
    if (rule.value(u"fleet"_s).toBool())
        text += u", on the whole fleet"_s;
    return text;
}

void print(const QString &line)
{
    std::fputs(qPrintable(line + u'\n'), stdout);
}

} // namespace

int runFaultCommand(const CommandLine &options)
{
    const FaultCommand &command = options.faultCommand;
    const ProxyConfig &config = options.config;
    const QString host = config.listenAddress.protocol() == QAbstractSocket::IPv6Protocol
                             ? u'[' + config.listenAddress.toString() + u']' : config.listenAddress.toString();
    const QString where = u"%1:%2"_s.arg(host).arg(config.listenPort);
    QString path = u"/breakwater/faults"_s;
    if (command.action == FaultCommand::Action::Clear && !command.argument.isEmpty())
        path += u'/' + command.argument;
    // The owner's token, from the file the running instance made (or read) at its start.
    const QString tokenFile = options.controlTokenFile.isEmpty() ? defaultControlTokenFile() : options.controlTokenFile;
    const Expected<QByteArray> token = readControlToken(tokenFile);
    if (!token.ok()) {
        std::fprintf(stderr, "breakwater: %s\n", qPrintable(token.error()));
        return 1;
    }
    QNetworkRequest request(QUrl(u"http://%1%2"_s.arg(where, path)));
    request.setHeader(QNetworkRequest::ContentTypeHeader, u"application/json"_s);
    request.setRawHeader("Authorization", "Bearer " + token.value());
    request.setTransferTimeout(10'000);

    QNetworkAccessManager manager;
    QNetworkReply *reply = nullptr;
    switch (command.action) {
    case FaultCommand::Action::Add: {
        QJsonObject body{{u"rule"_s, command.argument}};
        if (command.fleet)
            body.insert(u"fleet"_s, true);   // armed on every instance of the running one's fleet
        reply = manager.post(request, QJsonDocument(body).toJson(QJsonDocument::Compact));
        break;
    }
    case FaultCommand::Action::List: reply = manager.get(request); break;
    case FaultCommand::Action::Clear: reply = manager.deleteResource(request); break;
    case FaultCommand::Action::None: return 2;
    }
    QEventLoop loop;
    QObject::connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
    loop.exec();
    reply->deleteLater();

    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    const QJsonObject answer = QJsonDocument::fromJson(reply->readAll()).object();
    if (status == 0) {
        std::fprintf(stderr, "breakwater: nothing answers at %s (%s); is Breakwater running there? "
                             "Give its address with --listen HOST:PORT.\n",
                     qPrintable(where), qPrintable(reply->errorString()));
        return 1;
    }
    if (status >= 400) {
        const QString message = answer.value(u"error"_s).toObject().value(u"message"_s).toString();
        std::fprintf(stderr, "breakwater: %s answered %d: %s\n", qPrintable(where), status,
                     qPrintable(message.isEmpty() ? reply->errorString() : message));
        return 1;
    }
    switch (command.action) {
    case FaultCommand::Action::Add:
        print(u"armed "_s + describe(answer));
        break;
    case FaultCommand::Action::List: {
        const QJsonArray rules = answer.value(u"faults"_s).toArray();
        if (rules.isEmpty())
            print(u"no fault rules armed at %1"_s.arg(where));
        for (const QJsonValue &rule : rules)
            print(describe(rule.toObject()));
        break;
    }
    case FaultCommand::Action::Clear:
        if (command.argument.isEmpty())
            print(u"disarmed %1 fault rule(s)"_s.arg(answer.value(u"cleared"_s).toInt()));
        else
            print(u"disarmed "_s + answer.value(u"deleted"_s).toObject().value(u"label"_s).toString());
        break;
    case FaultCommand::Action::None:
        break;
    }
    return 0;
}
