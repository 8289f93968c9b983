#pragma once

#include <QObject>
#include <QTimer>

#include "upstream/circuitbreaker.h"

class DashboardModel;
class DemoController;
class QMenu;
class QSystemTrayIcon;
class QWidget;
struct CallRecord;

// The tray icon: its colour follows the worst breaker state, its tooltip shows the key figures, and
// its menu opens the dashboard, copies the base URLs and the lines to export them, starts demo
// scenarios, and quits. It notifies when a breaker opens or closes and when the spend limit refuses
// a call. (Pausing the proxy is not offered: the proxy has no pause yet.)
//
// Only exists where a system tray does: install() checks, and only then lets the app outlive its
// window (setQuitOnLastWindowClosed(false)); without a tray the window is the app.
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
        DemoController *demo = nullptr;
    };

    // A tray controller when `trayAvailable`, else nullptr and the app quits with its window.
    static TrayController *install(const Wiring &wiring, bool trayAvailable, QObject *parent = nullptr);

    TrayController(const Wiring &wiring, QObject *parent = nullptr);
    ~TrayController() override;

    QMenu *menu() const { return m_menu; }
    QString toolTip() const;
    BreakerState shownState() const { return m_shownState; }
    QString environmentLines() const;
    int notificationsShown() const { return m_notifications; }

private:
    void refresh();
    void onTransition(const BreakerTransition &transition);
    void onSpendRefused(const CallRecord &record);
    void showWindow();
    void notify(const QString &title, const QString &message, bool warning);

    Wiring m_wiring;
    QSystemTrayIcon *m_icon = nullptr;
    QMenu *m_menu = nullptr;
    QTimer m_refresh;   // tooltip and icon, once a second
    BreakerState m_shownState = BreakerState::Closed;
    qint64 m_lastSpendNoticeMs = 0;
    int m_notifications = 0;
};
