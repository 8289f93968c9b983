#include "processstats.h"

#include <QDir>
#include <QFile>
#include <QString>

using namespace Qt::StringLiterals;

namespace {

QString procPath(qint64 pid, const char *entry)
{
    return u"/proc/%1/%2"_s.arg(pid > 0 ? QString::number(pid) : u"self"_s, QLatin1StringView(entry));
}

int entryCount(const QString &path, QDir::Filters filters)
{
    const QDir dir(path);
    return dir.exists() ? int(dir.entryList(filters | QDir::NoDotAndDotDot).size()) : -1;
}

} // namespace

namespace processstats {

qint64 residentKiB(qint64 pid)
{
    QFile status(procPath(pid, "status"));
    if (!status.open(QIODevice::ReadOnly))
        return -1;
    for (const QByteArray &line : status.readAll().split('\n')) {
        if (line.startsWith("VmRSS:"))
            return line.mid(6).trimmed().split(' ').value(0).toLongLong();
    }
    return -1;
}

int threadCount(qint64 pid)
{
    return entryCount(procPath(pid, "task"), QDir::Dirs);
}

int openDescriptors(qint64 pid)
{
    return entryCount(procPath(pid, "fd"), QDir::AllEntries | QDir::System);
}

} // namespace processstats
