#pragma once

#include <functional>
#include <memory>

#include <QObject>
#include <QTimer>

#include "traycontroller.h"

// Finds the system tray, also when it appears after Breakwater: at login the panel often starts
// after the autostarted app. Until a tray is there it looks again every second, and for the first
// minute (kGraceChecks) it keeps the proxy alive when the window is closed, since apps may already
// be pointed at it: the window is hidden, not the end. A minute without a tray and the window is
// the app again; a window closed meanwhile comes back minimised, so nothing runs out of reach.
//
// Why it looks rather than listens: a StatusNotifier host's registration is a D-Bus signal that Qt
// 6.4's QDBusConnection::connect takes only by a SLOT() string, an XEmbed tray's arrival needs
// XFixes selection events, and elsewhere (Windows, macOS) there is nothing to listen to. A look is
// cheap: the first minute costs 0.03-0.07 % of a core (offscreen, with a session bus or without;
// issue 26).
//
// Lives on the GUI thread; owns the TrayController once there is one.
class TrayWatcher final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(TrayWatcher)
public:
    static constexpr int kCheckMs = 1000;
    static constexpr int kLateCheckMs = 5000;   // after the grace, a tray may still come: look less often
    static constexpr int kGraceChecks = 60;

    // `trayAvailable` is asked at once and then on every check (tests flip it).
    explicit TrayWatcher(const TrayController::Wiring &wiring,
                         std::function<bool()> trayAvailable = systemTray(), QObject *parent = nullptr);
    ~TrayWatcher() override;

    // The desktop's answer: QSystemTrayIcon::isSystemTrayAvailable(), asked only once a tray host
    // is there. Qt 6.4 decides at its first look whether the tray is a StatusNotifier (D-Bus) one and
    // never looks again, so asking before the panel runs would pin it to XEmbed, which D-Bus-only
    // hosts lack. Looks for a StatusNotifier host on D-Bus and an XEmbed tray's X selection itself.
    static std::function<bool()> systemTray();

    TrayController *tray() const { return m_tray.get(); }
    bool isKeepingAlive() const { return m_checks < kGraceChecks && !m_tray; }
    int checks() const { return m_checks; }

    // What the timer does: look for the tray once.
    void check();

Q_SIGNALS:
    void trayInstalled();

private:
    void install();
    void endGrace();
    void onLastWindowClosed();

    TrayController::Wiring m_wiring;
    std::function<bool()> m_trayAvailable;
    std::unique_ptr<TrayController> m_tray;
    QTimer m_timer;
    int m_checks = 0;
};
