#pragma once

#include <functional>

#include <QMainWindow>
#include <QTimer>

class BreakerTimeline;
class DashboardModel;
class DemoController;
class FiguresPanel;
class LatencyScatter;
class LatencyStaircase;
class OutcomeChart;
class QAction;
class QComboBox;
class QLabel;
class QTabWidget;
class QToolButton;
class RequestPanel;

// The dashboard: headline figures, outcomes over time, the breaker timeline, the latency staircase,
// latency against arrival, and the request table. It renders a DashboardModel on a 100 ms timer
// (at most ~10 redraws a second however many events arrive) and skips work nobody can see: nothing
// while hidden or paused, and the record-driven views only when the model changed.
class DashboardWindow final : public QMainWindow
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(DashboardWindow)
public:
    static constexpr int kRedrawIntervalMs = 100;
    static constexpr int kScatterIntervalMs = 500;   // the scatter is the costliest chart to paint

    explicit DashboardWindow(DashboardModel *model, QWidget *parent = nullptr);

    // The views' clock (wall ms); tests pin it to replay a recorded sequence.
    void setClock(std::function<qint64()> nowMs) { m_nowMs = std::move(nowMs); }
    void setWindowMs(qint64 windowMs);   // 1, 5 or 15 minutes
    qint64 windowMs() const { return m_windowMs; }
    void setPaused(bool paused);
    void setStaircaseBars(int bars);   // 20, 40, 100 or 200 newest requests
    bool isPaused() const { return m_paused; }
    // Base URL and mode for the status bar; the demo's actions for the Demo menu (may be null).
    void setProxyInfo(const QString &baseUrl, bool demo);
    void setDemoController(DemoController *demo);
    void setSettingsHandler(std::function<void()> openSettings);

    // Draws every view now from the model (tests call it; the timer draws only what is visible).
    void redraw() { draw(true); }
    int redrawCount() const { return m_redraws; }
    bool exportCharts(const QString &directory, QString *error) const;   // outcomes.png, breakers.png, ...

    FiguresPanel *figures() const { return m_figures; }
    OutcomeChart *outcomeChart() const { return m_outcomes; }
    BreakerTimeline *breakerTimeline() const { return m_breakers; }
    LatencyStaircase *staircase() const { return m_staircase; }
    LatencyScatter *latencyScatter() const { return m_scatter; }
    RequestPanel *requests() const { return m_requests; }
    QTabWidget *tabs() const { return m_tabs; }

private:
    void onTick();
    void draw(bool everything);
    void buildToolBar();
    void chooseExportCharts();
    void chooseExportTable();

    DashboardModel *m_model;
    std::function<qint64()> m_nowMs;
    std::function<void()> m_openSettings;
    QTimer m_redrawTimer;
    qint64 m_windowMs = 5 * 60'000;
    bool m_paused = false;
    quint64 m_drawnRevision = ~quint64(0);
    quint64 m_staircaseRevision = ~quint64(0);
    quint64 m_tableRevision = ~quint64(0);
    qint64 m_scatterDrawnAtMs = 0;
    int m_redraws = 0;

    FiguresPanel *m_figures = nullptr;
    OutcomeChart *m_outcomes = nullptr;
    BreakerTimeline *m_breakers = nullptr;
    LatencyStaircase *m_staircase = nullptr;
    LatencyScatter *m_scatter = nullptr;
    RequestPanel *m_requests = nullptr;
    QTabWidget *m_tabs = nullptr;
    QAction *m_pauseAction = nullptr;
    QComboBox *m_windowChoice = nullptr;
    QComboBox *m_barsChoice = nullptr;
    QAction *m_demoMenuAction = nullptr;
    QToolButton *m_demoButton = nullptr;
    QLabel *m_demoStatus = nullptr;
    QLabel *m_proxyInfo = nullptr;
};
