#include "loginautostart.h"

#include <algorithm>

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSaveFile>
#include <QStandardPaths>

using namespace Qt::StringLiterals;

namespace {

// Exec= quoting of the Desktop Entry spec: a path with a reserved character is put in double
// quotes, with ", `, $ and \ escaped by a backslash (and that backslash doubled by the string
// escaping of the file format).
QString quotedForExec(const QString &path)
{
    static const QString reserved = u" \t\n\"'\\><~|&;$*?#()`"_s;
    if (std::none_of(path.begin(), path.end(), [](QChar c) { return reserved.contains(c); }))
        return path;
    QString quoted;
    for (const QChar c : path) {
        if (c == u'"' || c == u'`' || c == u'$')
            quoted += u"\\\\"_s;
        else if (c == u'\\')
            quoted += u"\\\\\\"_s;
        quoted += c;
    }
    return u'"' + quoted + u'"';
}

} // namespace

QString LoginAutostart::entryPath()
{
    return QStandardPaths::writableLocation(QStandardPaths::GenericConfigLocation)
        + u"/autostart/io.github.breakwater.Breakwater.desktop"_s;
}

bool LoginAutostart::isEnabled()
{
    QFile file(entryPath());
    if (!file.open(QIODevice::ReadOnly))
        return false;
    while (!file.atEnd()) {
        if (file.readLine().trimmed() == "Hidden=true")
            return false;
    }
    return true;
}

QByteArray LoginAutostart::entryText(const QString &executable)
{
    return "[Desktop Entry]\n"
           "Type=Application\n"
           "Name=Breakwater\n"
           "Comment=Local LLM proxy, started in the tray when you log in\n"
           "Exec=" + quotedForExec(executable).toUtf8() + " --minimized\n"
           "Icon=io.github.breakwater.Breakwater\n"
           "Terminal=false\n"
           "X-GNOME-Autostart-enabled=true\n";
}

Result LoginAutostart::setEnabled(bool enabled, const QString &executable)
{
    const QString path = entryPath();
    if (!enabled) {
        if (!QFile::exists(path) || QFile::remove(path))
            return {};
        return Failure{Message(QT_TRANSLATE_NOOP("Message", "cannot remove %1")).arg(path)};
    }
    // Shown in the dashboard's language (message.h); %2 is Qt's own text, translated by Qt.
    if (!QDir().mkpath(QFileInfo(path).absolutePath()))
        return Failure{Message(QT_TRANSLATE_NOOP("Message", "cannot create the folder of %1")).arg(path)};
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(entryText(executable)) < 0 || !file.commit())
        return Failure{Message(QT_TRANSLATE_NOOP("Message", "cannot write %1: %2")).arg(path).arg(file.errorString())};
    return {};
}
