#include "remotetokens.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLoggingCategory>
#include <QStandardPaths>

#include "privatefiles.h"

using namespace Qt::StringLiterals;

Q_LOGGING_CATEGORY(lcRemoteTokens, "breakwater.attach.tokens")

namespace {

QJsonObject readRemotes(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(file.readAll()).object().value(u"remotes"_s).toObject();
}

} // namespace

RemoteTokens::RemoteTokens(QString path)
    : m_path(std::move(path))
{
}

QString RemoteTokens::defaultPath()
{
    return QStandardPaths::writableLocation(QStandardPaths::GenericConfigLocation) + u"/breakwater/attach-tokens.json"_s;
}

QString RemoteTokens::key(const QUrl &remote)
{
    const QString scheme = remote.scheme().toLower();
    const int port = remote.port(scheme == u"https"_s ? 443 : 80);
    return u"%1://%2:%3"_s.arg(scheme, remote.host().toLower()).arg(port);
}

QByteArray RemoteTokens::tokenFor(const QUrl &remote) const
{
    if (!QFileInfo::exists(m_path))
        return {};
    if (const QString mode = looseMode(m_path); !mode.isEmpty()) {
        qCWarning(lcRemoteTokens).noquote() << "not using the tokens in" << m_path << "- others may read it (mode"
                                            << mode << ")";
        return {};
    }
    return readRemotes(m_path).value(key(remote)).toString().toUtf8();
}

Result RemoteTokens::remember(const QUrl &remote, const QByteArray &token)
{
    makePrivateFolder(QFileInfo(m_path).absolutePath(), QFileInfo(m_path).absolutePath() == QFileInfo(defaultPath()).absolutePath());
    QJsonObject remotes = looseMode(m_path).isEmpty() ? readRemotes(m_path) : QJsonObject();
    remotes.insert(key(remote), QString::fromUtf8(token));
    return writePrivateFile(m_path, QJsonDocument(QJsonObject{{u"remotes"_s, remotes}}).toJson());
}
