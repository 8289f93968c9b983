#include "desktopnotification.h"

#include <QCoreApplication>
#include <QDBusArgument>
#include <QDBusConnection>
#include <QDBusConnectionInterface>
#include <QDBusMessage>
#include <QDBusReply>
#include <QDBusVariant>
#include <QIcon>
#include <QImage>

using namespace Qt::StringLiterals;

namespace {

constexpr int kDBusTimeoutMs = 500;
constexpr int kImageSize = 64;
constexpr uchar kUrgencyNormal = 1;   // the spec's byte: 0 low, 1 normal, 2 critical

// The spec's image-data hint, (iiibiiay): the icon's pixels, RGBA, 8 bits a channel.
QDBusArgument imageData(const QIcon &icon)
{
    const QImage image = icon.pixmap(QSize(kImageSize, kImageSize)).toImage().convertToFormat(QImage::Format_RGBA8888);
    QDBusArgument argument;
    argument.beginStructure();
    argument << image.width() << image.height() << int(image.bytesPerLine()) << image.hasAlphaChannel() << 8 << 4
             << QByteArray(reinterpret_cast<const char *>(image.constBits()), image.sizeInBytes());
    argument.endStructure();
    return argument;
}

} // namespace

namespace desktopnotification {

bool trayIsStatusNotifierItem()
{
    QDBusConnection bus = QDBusConnection::sessionBus();
    if (!bus.isConnected() || !bus.interface())
        return false;
    const QString watcher = u"org.kde.StatusNotifierWatcher"_s;
    QDBusMessage get = QDBusMessage::createMethodCall(watcher, u"/StatusNotifierWatcher"_s,
                                                      u"org.freedesktop.DBus.Properties"_s, u"Get"_s);
    get << watcher << u"RegisteredStatusNotifierItems"_s;
    const QDBusMessage reply = bus.call(get, QDBus::Block, kDBusTimeoutMs);
    if (reply.type() != QDBusMessage::ReplyMessage || reply.arguments().isEmpty())
        return false;
    // Items are "SERVICE/PATH" or "SERVICE"; Qt registers ours from a connection of its own, so the
    // service's process tells whose it is.
    const QStringList items = reply.arguments().constFirst().value<QDBusVariant>().variant().toStringList();
    for (const QString &item : items) {
        const QString service = item.section(u'/', 0, 0);
        const QDBusReply<uint> pid = bus.interface()->servicePid(service);
        if (pid.isValid() && qint64(pid.value()) == QCoreApplication::applicationPid())
            return true;
    }
    return false;
}

void send(const QString &summary, const QString &body, const QIcon &icon, int timeoutMs)
{
    QDBusMessage notify = QDBusMessage::createMethodCall(u"org.freedesktop.Notifications"_s,
                                                         u"/org/freedesktop/Notifications"_s,
                                                         u"org.freedesktop.Notifications"_s, u"Notify"_s);
    const QVariantMap hints{{u"urgency"_s, QVariant::fromValue(kUrgencyNormal)},
                            {u"desktop-entry"_s, u"io.github.breakwater.Breakwater"_s},
                            {u"image-data"_s, QVariant::fromValue(imageData(icon))}};
    notify << u"Breakwater"_s << uint(0) << QString() << summary << body << QStringList() << hints << timeoutMs;
    QDBusConnection::sessionBus().send(notify);
}

} // namespace desktopnotification
