#include "controltoken.h"

#include <algorithm>
#include <array>

#include <QFile>
#include <QFileInfo>
#include <QLoggingCategory>
#include <QRandomGenerator>
#include <QStandardPaths>

#include "privatefiles.h"

Q_LOGGING_CATEGORY(lcControlToken, "breakwater.controltoken", QtInfoMsg)

using namespace Qt::StringLiterals;

namespace {

constexpr int kRandomWords = 8;            // 32 bytes, 256 bits
constexpr qsizetype kMinimumLength = 32;   // what a token file must hold at least
constexpr qint64 kMaximumFileBytes = 4096;

QByteArray newToken()
{
    std::array<quint32, kRandomWords> words{};
    // system(): the operating system's cryptographically secure source (getrandom on Linux).
    QRandomGenerator::system()->fillRange(words.data(), qsizetype(words.size()));
    const QByteArray bytes(reinterpret_cast<const char *>(words.data()), qsizetype(sizeof words));
    return bytes.toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals);
}

// A token goes into an Authorization header: visible ASCII, no spaces, and long enough to guess never.
bool isWellFormed(const QByteArray &token)
{
    return token.size() >= kMinimumLength
           && std::all_of(token.begin(), token.end(), [](char c) { return c > ' ' && c < 0x7f; });
}

} // namespace

QString defaultControlTokenFile()
{
    return QStandardPaths::writableLocation(QStandardPaths::GenericConfigLocation) + u"/breakwater/control-token"_s;
}

Expected<QByteArray> readControlToken(const QString &path)
{
    const QFileInfo info(path);
    if (!info.exists())
        return Failure{u"no control token at %1: Breakwater makes it at its first start (is it running as "
                       "this user? --control-token FILE names another file)"_s.arg(path)};
    if (const QString mode = looseMode(path); !mode.isEmpty())
        return Failure{u"refusing the control token at %1: other users may read or change it (mode %2), so it may be "
                       "known already; delete it (Breakwater makes a new one at its next start) or make it "
                       "private with chmod 600"_s.arg(path, mode)};
    QFile file(path);
    if (!info.isFile() || !file.open(QIODevice::ReadOnly))
        return Failure{u"cannot read the control token at %1: %2"_s.arg(
            path, info.isFile() ? file.errorString() : u"not a file"_s)};
    const QByteArray token = file.read(kMaximumFileBytes).trimmed();
    if (!isWellFormed(token))
        return Failure{u"%1 holds no control token (at least %2 visible ASCII characters, no spaces); delete "
                       "it and Breakwater makes a new one at its next start"_s.arg(path).arg(kMinimumLength)};
    return token;
}

Expected<QByteArray> loadOrCreateControlToken(const QString &path, bool ownFolder)
{
    makePrivateFolder(QFileInfo(path).absolutePath(), ownFolder);
    if (!QFileInfo::exists(path)) {
        const Result created = createPrivateFile(path, newToken() + '\n');
        // Lost a race with another Breakwater starting at the same moment: its token is the one.
        if (!created.ok() && !QFileInfo::exists(path))
            return Failure{u"cannot make the control token at %1: %2"_s.arg(path, created.error())};
        if (created.ok())
            qCInfo(lcControlToken).noquote() << "made a new control token at" << path;
    }
    return readControlToken(path);
}
