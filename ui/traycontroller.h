#pragma once

#include <functional>

#include <QIcon>
#include <QObject>
#include <QStringList>
#include <QTimer>
#include <QUrl>

#include "upstream/circuitbreaker.h"

class DashboardModel;
class DemoController;
class ProxyServer;
class QAction;
class QMenu;
class QSystemTrayIcon;
class QWidget;
struct CallRecord;

// The tray icon: its colour follows the worst breaker state, its tooltip shows the key figures, and
// its menu opens the dashboard, copies the base URLs and the lines to export them, starts demo
// scenarios, and quits. It notifies when a breaker opens or closes and when the spend limit refuses
// a call. With the proxy at hand it pauses and resumes admission (the icon gets a dark badge while
// paused) and lists each upstream's breaker state. Its "Fault injection"
// menu arms the presets and clears every rule; while any rule is armed the icon has a purple badge
// and the tooltip names the rules (from the model's snapshot, so rules armed elsewhere count too).
//
// Only exists where a system tray does: install() checks, and only then lets the app outlive its
// window (setQuitOnLastWindowClosed(false)); without a tray the window is the app. A tray that
// appears after the app started is TrayWatcher's business (traywatcher.h).
//
// Its words: "Breakwater :PORT" (two instances must not look alike), and an upstream the user pointed
// elsewhere is called by its host:port, not by core's provider name ("openai"), which stays in the
// records and metrics.
class TrayController final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(TrayController)
public:
    struct Wiring
    {
        DashboardModel *model = nullptr;
        QWidget *window = nullptr;
        QString openaiBaseUrl;        // http://HOST:PORT/v1
        QString anthropicBaseUrl;     // http://HOST:PORT
        DemoController *demo = nullptr;   // demo mode: the copied lines carry the demo keys
        // Where the upstreams are, for their names; empty (as in demo mode) keeps core's names.
        QUrl openaiUpstream = {};
        QUrl anthropicUpstream = {};
        // The fault-injection presets' target (faultcontrol.h queues onto its thread); null: no presets.
        ProxyServer *proxy = nullptr;
        // Attached to a remote Breakwater (attachstatus.h): how its connection is, when it is away
        // (shown under the title); null or empty: nothing to say.
        std::function<QString()> remoteStatus = {};
    };

    // A tray controller when `trayAvailable`, else nullptr and the app quits with its window.
    static TrayController *install(const Wiring &wiring, bool trayAvailable, QObject *parent = nullptr);

    TrayController(const Wiring &wiring, QObject *parent = nullptr);
    ~TrayController() override;

    QMenu *menu() const { return m_menu; }
    QString title() const;                                 // "Breakwater :8080"
    QString upstreamName(const QString &upstream) const;   // "openai", or "127.0.0.1:1" for a custom one
    QString toolTip() const;
    BreakerState shownState() const { return m_shownState; }
    bool showsFaultsArmed() const { return m_shownFaults; }
    bool showsAdmissionPaused() const { return m_shownPaused; }
    QAction *pauseAdmissionAction() const { return m_pauseAdmission; }   // null without Wiring::proxy
    QStringList breakerLines() const;   // the menu's "openai: breaker closed" lines
    QMenu *faultsMenu() const { return m_faultsMenu; }   // null without Wiring::proxy
    QString environmentLines() const;
    int notificationsShown() const { return m_notifications; }
    QString lastNotification() const { return m_lastNotification; }   // "title\nmessage"
    QIcon lastNotificationIcon() const { return m_lastNotificationIcon; }
    int toolTipUpdates() const { return m_toolTipUpdates; }

    // What the 1 s timer does: the tooltip and icon, each only when it changed (on D-Bus every change
    // is a signal to the tray host).
    void refresh();

    // A desktop notice: a freedesktop notification beside a StatusNotifier tray, Qt's balloon on XEmbed.
    void notify(const QString &title, const QString &message);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void refreshBreakerLines();
    void onTransition(const BreakerTransition &transition);
    void onSpendRefused(const CallRecord &record);
    void showWindow();

    Wiring m_wiring;
    QSystemTrayIcon *m_icon = nullptr;
    QMenu *m_menu = nullptr;
    QMenu *m_faultsMenu = nullptr;
    QTimer m_refresh;   // tooltip and icon, once a second
    BreakerState m_shownState = BreakerState::Closed;
    bool m_shownFaults = false;   // the icon has the armed badge
    bool m_shownPaused = false;   // ... and the paused one
    QAction *m_pauseAdmission = nullptr;
    QAction *m_breakersEnd = nullptr;   // the separator below the breaker lines
    QList<QAction *> m_breakerLines;
    bool m_toldStillRunning = false;   // the "still running" notice is given once
    QString m_shownToolTip;
    int m_toolTipUpdates = 0;
    qint64 m_lastSpendNoticeMs = 0;
    int m_notifications = 0;
    QString m_lastNotification;
    QIcon m_lastNotificationIcon;
    bool m_statusNotifierItem = false;   // found once, kept: Qt picks the kind of tray icon for good
};
