#pragma once

#include <QString>

class QIcon;

// Desktop notifications sent straight to org.freedesktop.Notifications, for when the tray icon is a
// StatusNotifierItem. Qt 6.4's QSystemTrayIcon::showMessage cannot do right there: with a
// MessageIcon it swaps the tray icon for a generic warning or information one while the message
// lasts (the colour is gone exactly when it matters), and with a QIcon it sends the notification
// at low urgency, which GNOME and KDE show no popup for. Sent here: normal urgency, the state icon
// as the notification's image, "Breakwater" as the sender, and the tray icon left alone.
// XEmbed trays have no notification server of their own: Qt's balloon serves them.
namespace desktopnotification {

// Whether this process's tray icon is registered with the StatusNotifierWatcher (a few blocking
// D-Bus calls of at most 500 ms each: call it when about to notify, not on a timer).
bool trayIsStatusNotifierItem();

// Fire and forget: no answer is awaited.
void send(const QString &summary, const QString &body, const QIcon &icon, int timeoutMs);

} // namespace desktopnotification
