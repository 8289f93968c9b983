#include "traywatcher.h"

#include <cstdlib>

#include <QApplication>
#include <QDBusConnection>
#include <QDBusConnectionInterface>
#include <QDBusMessage>
#include <QDBusVariant>
#include <QGuiApplication>
#include <QLoggingCategory>
#include <QSystemTrayIcon>
#include <QWidget>

#ifdef BREAKWATER_HAVE_XCB
#include <xcb/xcb.h>
#endif

using namespace Qt::StringLiterals;

namespace {

Q_LOGGING_CATEGORY(lcTray, "breakwater.ui.tray", QtInfoMsg)

constexpr int kDBusTimeoutMs = 500;

// A StatusNotifier host (KDE, XFCE, GNOME's AppIndicator extension) has registered with the watcher.
bool statusNotifierHostRunning()
{
    const QString watcher = u"org.kde.StatusNotifierWatcher"_s;
    QDBusConnection bus = QDBusConnection::sessionBus();
    if (!bus.isConnected() || !bus.interface() || !bus.interface()->isServiceRegistered(watcher).value())
        return false;
    QDBusMessage get = QDBusMessage::createMethodCall(watcher, u"/StatusNotifierWatcher"_s,
                                                      u"org.freedesktop.DBus.Properties"_s, u"Get"_s);
    get << watcher << u"IsStatusNotifierHostRegistered"_s;
    const QDBusMessage reply = bus.call(get, QDBus::Block, kDBusTimeoutMs);
    return reply.type() == QDBusMessage::ReplyMessage && !reply.arguments().isEmpty()
        && reply.arguments().constFirst().value<QDBusVariant>().variant().toBool();
}

#if defined(BREAKWATER_HAVE_XCB) && QT_CONFIG(xcb)
constexpr bool kCanSeeXEmbed = true;

int x11ScreenNumber()
{
    const QString display = qEnvironmentVariable("DISPLAY");   // [host]:display[.screen]
    const QString afterColon = display.mid(display.lastIndexOf(u':') + 1);
    const qsizetype dot = afterColon.indexOf(u'.');
    return dot < 0 ? 0 : afterColon.mid(dot + 1).toInt();
}

// An XEmbed tray (trayer, stalonetray, most panels) owns the system tray spec's selection.
bool xembedTrayRunning()
{
    const auto *x11 = qGuiApp->nativeInterface<QNativeInterface::QX11Application>();
    if (!x11)
        return false;
    xcb_connection_t *connection = x11->connection();
    const QByteArray selection = "_NET_SYSTEM_TRAY_S" + QByteArray::number(x11ScreenNumber());
    const std::unique_ptr<xcb_intern_atom_reply_t, decltype(&std::free)> atom(
        xcb_intern_atom_reply(connection,
                              xcb_intern_atom(connection, 0, quint16(selection.size()), selection.constData()),
                              nullptr),
        &std::free);
    if (!atom)
        return false;
    const std::unique_ptr<xcb_get_selection_owner_reply_t, decltype(&std::free)> owner(
        xcb_get_selection_owner_reply(connection, xcb_get_selection_owner(connection, atom->atom), nullptr),
        &std::free);
    return owner && owner->owner != XCB_NONE;
}
#else
constexpr bool kCanSeeXEmbed = false;
bool xembedTrayRunning() { return false; }
#endif

} // namespace

std::function<bool()> TrayWatcher::systemTray()
{
    return [looks = 0, xembedBefore = false]() mutable {
        const bool x11 = QGuiApplication::platformName() == u"xcb"_s;
        const bool bus = QDBusConnection::sessionBus().isConnected();
        // Where we cannot see every kind of tray ourselves (Windows, macOS, X11 without xcb headers
        // at build time), Qt's answer is the only one.
        if ((x11 && !kCanSeeXEmbed) || (!x11 && !bus))
            return QSystemTrayIcon::isSystemTrayAvailable();
        const bool statusNotifier = bus && statusNotifierHostRunning();
        const bool xembed = x11 && xembedTrayRunning();
        // A panel that hosts both kinds (XFCE's) takes the X selection and registers on D-Bus within
        // milliseconds of each other, in either order: an XEmbed tray alone that appeared while we
        // watched is believed at the next look, when the D-Bus side has had its chance.
        const bool xembedSettled = xembed && (!bus || looks == 0 || xembedBefore);
        ++looks;
        xembedBefore = xembed;
        if (statusNotifier || xembedSettled)
            return QSystemTrayIcon::isSystemTrayAvailable();
        return false;
    };
}

TrayWatcher::TrayWatcher(const TrayController::Wiring &wiring, std::function<bool()> trayAvailable,
                         QObject *parent)
    : QObject(parent)
    , m_wiring(wiring)
    , m_trayAvailable(std::move(trayAvailable))
{
    if (m_trayAvailable()) {
        install();
        return;
    }
    qCInfo(lcTray) << "no system tray yet; looking for one";
    QApplication::setQuitOnLastWindowClosed(false);   // the grace: see the class comment
    connect(qApp, &QGuiApplication::lastWindowClosed, this, &TrayWatcher::onLastWindowClosed);
    m_timer.setInterval(kCheckMs);
    connect(&m_timer, &QTimer::timeout, this, &TrayWatcher::check);
    m_timer.start();
}

TrayWatcher::~TrayWatcher() = default;

void TrayWatcher::check()
{
    if (m_tray)
        return;
    ++m_checks;
    if (m_trayAvailable()) {
        qCInfo(lcTray) << "a system tray appeared; Breakwater is in it";
        install();
    } else if (m_checks == kGraceChecks) {
        endGrace();
    }
}

void TrayWatcher::install()
{
    m_timer.stop();
    disconnect(qApp, &QGuiApplication::lastWindowClosed, this, &TrayWatcher::onLastWindowClosed);
    m_tray.reset(TrayController::install(m_wiring, true));
    Q_EMIT trayInstalled();
}

void TrayWatcher::endGrace()
{
    disconnect(qApp, &QGuiApplication::lastWindowClosed, this, &TrayWatcher::onLastWindowClosed);
    QApplication::setQuitOnLastWindowClosed(true);
    m_timer.setInterval(kLateCheckMs);
    if (m_wiring.window->isVisible()) {
        qCInfo(lcTray) << "no system tray: closing the window quits Breakwater";
        return;
    }
    qCInfo(lcTray) << "no system tray appeared: the window is back, minimised; closing it quits Breakwater";
    m_wiring.window->showMinimized();
}

void TrayWatcher::onLastWindowClosed()
{
    qCInfo(lcTray).noquote() << u"the window is closed and no system tray has appeared yet: still serving on "
                                "%1, and looking for a tray"_s.arg(m_wiring.openaiBaseUrl);
}
