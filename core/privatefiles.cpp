#include "privatefiles.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLoggingCategory>
#include <QSaveFile>
#include <QTemporaryFile>

#include <cerrno>
#include <cstring>

#include <unistd.h>

Q_LOGGING_CATEGORY(lcPrivateFiles, "breakwater.files", QtInfoMsg)

using namespace Qt::StringLiterals;

namespace {

using Permissions = QFileDevice::Permissions;
constexpr Permissions kOwnerBits = QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner;
constexpr Permissions kOthersBits = QFileDevice::ReadGroup | QFileDevice::WriteGroup | QFileDevice::ExeGroup
                                    | QFileDevice::ReadOther | QFileDevice::WriteOther | QFileDevice::ExeOther;
constexpr Permissions kFolderMode = kOwnerBits;                                          // 0700
constexpr Permissions kFileMode = QFileDevice::ReadOwner | QFileDevice::WriteOwner;      // 0600

// "0755", as ls and chmod say it.
QString octal(Permissions permissions)
{
    const int bits = int(permissions.toInt());
    const int mode = ((bits >> 12) & 7) << 6 | ((bits >> 4) & 7) << 3 | (bits & 7);
    return u"0%1"_s.arg(mode, 3, 8, QChar(u'0'));
}

// Takes group's and others' bits off an existing file or folder; says so if there were any.
void tighten(const QString &path, const QString &what, QStringList &changes)
{
    const QFileInfo info(path);
    if (!info.exists())
        return;
    const Permissions before = info.permissions() & (kOwnerBits | kOthersBits);
    if (!(before & kOthersBits))
        return;
    const Permissions after = before & kOwnerBits;
    if (!QFile::setPermissions(path, after))
        return;
    changes.append(u"%1 %2: %3 -> %4"_s.arg(what, path, octal(before), octal(after)));
    qCInfo(lcPrivateFiles).noquote() << "only the owner may read it now:" << changes.last();
}

} // namespace

QStringList makePrivateFolder(const QString &folder, bool tightenExisting)
{
    QStringList changes;
    const QFileInfo info(folder);
    if (!info.exists()) {
        // mkdir's mode is cut by the umask: set it again after. Failures are the caller's to report.
        const QString parent = info.absolutePath();
        if (QDir().mkpath(parent) && QDir().mkdir(info.absoluteFilePath(), kFolderMode))
            QFile::setPermissions(info.absoluteFilePath(), kFolderMode);
    } else if (tightenExisting && info.isDir()) {
        tighten(info.absoluteFilePath(), u"folder"_s, changes);
    }
    return changes;
}

QStringList makePrivateDatabase(const QString &path)
{
    const QFileInfo info(path);
    QStringList changes = makePrivateFolder(info.absolutePath(), false);
    if (!info.exists()) {
        // Created here rather than by SQLite, which would create it 0644 (its default, less the umask).
        QFile file(path);
        if (file.open(QIODevice::WriteOnly | QIODevice::NewOnly, kFileMode))
            file.setPermissions(kFileMode);
    }
    for (const QString &suffix : {u""_s, u"-wal"_s, u"-shm"_s, u"-journal"_s})
        tighten(path + suffix, u"file"_s, changes);
    return changes;
}

Result writePrivateFile(const QString &path, const QByteArray &bytes)
{
    // QSaveFile creates its temporary file 0666 less the umask, or with the mode of the file it
    // replaces: the mode is set on the temporary file before a byte is written, and the rename
    // keeps it.
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return Failure{u"%1: %2"_s.arg(path, file.errorString())};
    if (!file.setPermissions(kFileMode) || file.write(bytes) != bytes.size()) {
        const QString why = file.errorString();
        file.cancelWriting();
        return Failure{u"%1: %2"_s.arg(path, why)};
    }
    if (!file.commit())
        return Failure{u"%1: %2"_s.arg(path, file.errorString())};
    return {};
}

Result createPrivateFile(const QString &path, const QByteArray &content)
{
    const QFileInfo info(path);
    makePrivateFolder(info.absolutePath(), false);
    QTemporaryFile temporary(info.absoluteFilePath() + u".XXXXXX"_s);
    if (!temporary.open())
        return Failure{temporary.errorString()};
    temporary.setPermissions(kFileMode);   // QTemporaryFile makes it 0600 already; said, not assumed
    if (temporary.write(content) != content.size() || !temporary.flush() || ::fsync(temporary.handle()) != 0)
        return Failure{temporary.errorString()};
    // link(2) puts the whole file in place at once and refuses a name that exists (rename would
    // replace it); the temporary name is removed by QTemporaryFile either way.
    if (::link(QFile::encodeName(temporary.fileName()).constData(), QFile::encodeName(info.absoluteFilePath()).constData()) != 0)
        return Failure{QString::fromLocal8Bit(std::strerror(errno))};
    return {};
}

QString looseMode(const QString &path)
{
    const QFileInfo info(path);
    if (!info.exists())
        return {};
    const Permissions mode = info.permissions() & (kOwnerBits | kOthersBits);
    return mode & kOthersBits ? octal(mode) : QString();
}
