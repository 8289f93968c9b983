#pragma once

#include <functional>
#include <memory>

#include <QMainWindow>
#include <QMargins>
#include <QTimer>

#include "apptheme.h"

class BreakerTimeline;
class DashboardModel;
class DemoController;
struct CallRecord;
class FaultBanner;
class FaultsPanel;
class FiguresPanel;
class FittedLabel;
class FleetPanel;
class GettingStarted;
class InFlightPanel;
class LatencyScatter;
class LatencyStaircase;
class OutcomeChart;
class ProxyPanel;
class QAction;
class QActionGroup;
class QBoxLayout;
class QMenu;
class QChartView;
class QComboBox;
class QGridLayout;
class QLabel;
class QScrollArea;
class QSettings;
class QTabWidget;
class QToolButton;
class RequestPanel;

// The dashboard: where the proxy listens and how its upstreams are, headline figures, outcomes over
// time, the breaker timeline, the latency staircase, latency against arrival, and the request
// table; while no call has been seen, how to point an app at it. It renders a DashboardModel on a
// 100 ms timer (at most ~10 redraws a second however many events arrive) and skips work nobody can
// see or nothing changed: nothing while hidden or paused, the record-driven views only when records
// came or went, and the time-driven charts only while something in their window moves (a call in
// the window or in flight), in steps of seconds once the traffic has stopped: an idle dashboard
// repaints next to nothing, though snapshots keep arriving.
//
// Sizes: it opens at a size that fits the screen's available area (defaultSize) and remembers its
// geometry (saveGeometryTo / restoreGeometryFrom); the charts sit in a scroll area so the window
// can be made smaller than a 1366x768 screen. Sizes are in device-independent pixels, so a 4K
// screen at scale 2 gets the same layout.
class DashboardWindow final : public QMainWindow
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(DashboardWindow)
public:
    static constexpr int kRedrawIntervalMs = 100;
    // At rest (nothing came since the last tick, calls only in the window): the time-driven charts
    // step once a second; with nothing in the window either, the timer stops until the model changes.
    static constexpr int kRestIntervalMs = 1000;
    // Quiet (no call ended and no breaker moved for kQuietAfterMs, none in flight): the calls only
    // scroll towards the window's left edge, and the clock axis steps every kQuietIntervalMs, so it
    // is never more than that behind (issue 26: a step a second cost 0.57 % of a core). A call, a
    // tab or window chosen, or the window activated brings it up to the clock at once.
    static constexpr int kQuietIntervalMs = 5000;
    static constexpr qint64 kQuietAfterMs = 10'000;
    static constexpr int kScatterIntervalMs = 500;   // the scatter is the costliest chart to paint

    explicit DashboardWindow(DashboardModel *model, QWidget *parent = nullptr);
    ~DashboardWindow() override;

    // The views' clock (wall ms); tests pin it to replay a recorded sequence.
    void setClock(std::function<qint64()> nowMs) { m_nowMs = std::move(nowMs); }
    qint64 nowMs() const { return m_nowMs(); }
    void setWindowMs(qint64 windowMs);   // 1, 5 or 15 minutes
    qint64 windowMs() const { return m_windowMs; }
    void setPaused(bool paused);
    void setStaircaseBars(int bars);   // 20, 40, 100 or 200 newest requests
    bool isPaused() const { return m_paused; }
    // Base URL and mode for the proxy strip, the first-start guidance and the status bar; the demo's
    // actions for the Demo menu (may be null).
    void setProxyInfo(const QString &baseUrl, bool demo);
    // `breakwater --attach`: the window shows the remote at `remote` (http(s)://host:port): the
    // strip and the status bar say "attached to" it, TLS or cleartext, never "listening on"; the
    // guide, curl and HAR use its addresses; closing the window leaves the remote running.
    void setAttachedTo(const QString &remote);
    bool isAttached() const { return m_attached; }
    // "openai" -> where it calls; its userinfo is never shown.
    void setUpstreamUrl(const QString &upstream, const QString &url);
    void setDemoController(DemoController *demo);
    void setSettingsHandler(std::function<void()> openSettings);
    // View > Theme: System, Light or Dark, applied to the whole application at once; a choice in
    // the menu is also said by themeChosen (the app keeps it in the settings).
    void setTheme(apptheme::Theme theme);
    QMenu *viewMenu() const { return m_viewMenu; }
    // The controls Tab goes through, in that order: shown, enabled, taking focus by Tab.
    QList<QWidget *> tabOrder() const;

    // "Replot every chart for a past interval": the calls received in [fromMs, toMs] (at most the
    // widest window, 15 minutes, ending at toMs) are read from `source` (the call log; without one,
    // the records the model holds) into a model of their own, and the Live tab's charts show that
    // interval, with its breaker states at admission, until backToLive(). A bar above the tabs says
    // so. A right click on a breaker band asks for its interval.
    using HistorySource = std::function<QList<CallRecord>(qint64 fromMs, qint64 toMs)>;
    void setHistorySource(HistorySource source) { m_historySource = std::move(source); }
    void replotInterval(qint64 fromMs, qint64 toMs);
    void backToLive();
    bool isReplotting() const { return m_past != nullptr; }
    QString replotText() const;

    // Draws every view now from the model (tests call it; the timer draws only what is visible).
    void redraw()
    {
        draw(true);
        scheduleTicks();
    }
    // What the redraw timer does: draws what changed and sets when to look again (tests call it
    // with their clock instead of waiting for the timer).
    void tick();
    int redrawCount() const { return m_redraws; }
    int tickCount() const { return m_ticks; }   // redraw timer ticks seen (drawn or not)
    // The clock time at the right edge of the Live tab's time charts, as last drawn.
    qint64 chartsDrawnAtMs() const { return m_chartsDrawnAtMs; }
    // The redraw timer's interval now: kRedrawIntervalMs, kRestIntervalMs, kQuietIntervalMs, or 0
    // while it rests (hidden, minimised, paused, or nothing on screen moves with time).
    int redrawIntervalMs() const { return m_redrawTimer.isActive() ? m_redrawTimer.interval() : 0; }
    // The toolbar's Clear: every figure, chart, the breaker timeline, the table and the status bar.
    void clearAll();
    // outcomes-20270115-080001.png, breakers-..., staircase-..., latency-..., dashboard-...: stamped
    // with the time, so a later export never overwrites an earlier one. `written` gets the paths.
    bool exportCharts(const QString &directory, QString *error, QStringList *written = nullptr) const;
    // Writes the table as CSV and says so in the status bar (path and row count).
    bool exportTable(const QString &path);

    // Fits `available` (a screen's available geometry) with room for the window frame.
    static QSize defaultSize(const QRect &available);
    void saveGeometryTo(QSettings &settings) const;
    void restoreGeometryFrom(QSettings &settings);

    FiguresPanel *figures() const { return m_figures; }
    OutcomeChart *outcomeChart() const { return m_outcomes; }
    BreakerTimeline *breakerTimeline() const { return m_breakers; }
    LatencyStaircase *staircase() const { return m_staircase; }
    LatencyScatter *latencyScatter() const { return m_scatter; }
    RequestPanel *requests() const { return m_requests; }
    InFlightPanel *inFlight() const { return m_inFlight; }
    QTabWidget *tabs() const { return m_tabs; }
    // The Faults tab and the strip that says a rule is armed (its Clear all is the panel's).
    FaultsPanel *faultsPanel() const { return m_faultsPanel; }
    FaultBanner *faultBanner() const { return m_faultBanner; }
    ProxyPanel *proxyPanel() const { return m_proxyPanel; }
    // The Fleet tab: a tab only once a snapshot says --shared-state is on.
    FleetPanel *fleetPanel() const { return m_fleetPanel; }
    GettingStarted *gettingStarted() const { return m_gettingStarted; }
    QComboBox *staircaseRangeChoice() const { return m_barsChoice; }
    QLabel *statusInfo() const { return m_proxyInfo; }

Q_SIGNALS:
    void themeChosen(apptheme::Theme theme);

protected:
    // Without a tray, closing the last window ends the proxy that apps may be pointed at: ask first.
    void closeEvent(QCloseEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;
    bool eventFilter(QObject *watched, QEvent *event) override;
    // Tab and Shift+Tab go through the controls in the order they are laid out (rows top to
    // bottom, left to right in a row), wherever and whenever each was made.
    bool focusNextPrevChild(bool next) override;
    void showEvent(QShowEvent *event) override;
    void hideEvent(QHideEvent *event) override;
    void changeEvent(QEvent *event) override;

private:
    void fitToScreen();
    void placeGuide();   // the first-start guide over the top of the Live tab
    static void fitTimeTicks(QChartView *view, qreal plotWidth);
    bool seen() const;        // shown, not minimised, not paused: worth drawing
    void wake();              // the model changed: ticks at kRedrawIntervalMs
    void scheduleTicks();     // after a tick: on, at rest, quiet, or stopped
    // How often something on the shown tab moves with the clock alone: kRestIntervalMs,
    // kQuietIntervalMs, or 0 (nothing does).
    int restIntervalMs() const;
    // A call or a breaker transition lies in the window ending `nowMs` (or left it within a quiet
    // step, so the step after it left draws it gone): the time charts scroll.
    bool chartsScroll(qint64 nowMs) const;
    qint64 newestActivityMs() const;   // the newest call's end or breaker transition
    void fitFiguresStrip();
    // `compact`: a laptop's height, the charts side by side; `tight`: shorter still (a laptop at
    // 125 %), the outcomes' legend beside their plot and the breaker timeline's rows lower.
    void arrangeLive(bool compact, bool tight);
    void fitOutcomesLegend();
    void draw(bool everything);
    void syncRequestTable();   // the Requests table brought up to the model, when it changed
    void buildToolBar();
    void buildViewMenu();
    void styleCharts();   // the Qt Charts in the palette's colours (apptheme::styleChart)
    void nameForScreenReaders();   // accessible names and descriptions of the views
    void chooseExportCharts();
    void chooseExportTable();
    void drawPast();

    DashboardModel *m_model;
    std::function<qint64()> m_nowMs;
    std::function<void()> m_openSettings;
    HistorySource m_historySource;
    std::unique_ptr<DashboardModel> m_past;   // while replotting a past interval
    qint64 m_pastFromMs = 0;
    qint64 m_pastToMs = 0;
    QWidget *m_replotBar = nullptr;
    QLabel *m_replotText = nullptr;
    QTimer m_redrawTimer;
    qint64 m_windowMs = 5 * 60'000;
    bool m_paused = false;
    quint64 m_drawnRevision = ~quint64(0);
    quint64 m_tickedRevision = ~quint64(0);   // the model's revision at the previous tick
    qint64 m_scatterDrawnAtMs = 0;
    qint64 m_chartsDrawnAtMs = 0;
    int m_redraws = 0;
    int m_ticks = 0;
    // What the views were drawn from: records and clears, breaker transitions, upstreams known.
    struct DataKey
    {
        quint64 records = 0;
        quint64 clears = 0;
        quint64 transitions = 0;
        qsizetype upstreams = 0;
        bool operator==(const DataKey &) const = default;
    };
    DataKey dataKey() const;
    DataKey m_chartsKey{~quint64(0)};
    DataKey m_staircaseKey{~quint64(0)};
    DataKey m_tableKey{~quint64(0)};
    quint64 m_transitionsSeen = 0;
    qint64 m_newestTransitionMs = 0;
    qint64 m_chartsWindowMs = 0;   // the window the charts were drawn with

    FiguresPanel *m_figures = nullptr;
    OutcomeChart *m_outcomes = nullptr;
    BreakerTimeline *m_breakers = nullptr;
    LatencyStaircase *m_staircase = nullptr;
    LatencyScatter *m_scatter = nullptr;
    RequestPanel *m_requests = nullptr;
    InFlightPanel *m_inFlight = nullptr;
    int m_inFlightTabCount = -1;   // the count in the In flight tab's title
    QTabWidget *m_tabs = nullptr;
    ProxyPanel *m_proxyPanel = nullptr;
    GettingStarted *m_gettingStarted = nullptr;
    FaultsPanel *m_faultsPanel = nullptr;
    FaultBanner *m_faultBanner = nullptr;
    FleetPanel *m_fleetPanel = nullptr;
    QScrollArea *m_figuresStrip = nullptr;
    QGridLayout *m_liveGrid = nullptr;
    QBoxLayout *m_outcomesLayout = nullptr;   // the outcomes' legend and chart, in the frame
    QWidget *m_outcomesFrame = nullptr;
    QWidget *m_breakersFrame = nullptr;
    QWidget *m_scatterFrame = nullptr;
    QWidget *m_staircaseFrame = nullptr;
    bool m_liveArranged = false;
    bool m_compact = false;
    bool m_tight = false;
    bool m_tallLines = false;   // the texts need taller lines than the font's own (dashboardstyle)
    QMarginsF m_chartLayoutMargins;   // Qt Charts' own, around the charts' plots when not tight
    QAction *m_pauseAction = nullptr;
    QMenu *m_viewMenu = nullptr;
    QActionGroup *m_themes = nullptr;
    QComboBox *m_windowChoice = nullptr;
    QComboBox *m_barsChoice = nullptr;
    QAction *m_demoMenuAction = nullptr;
    QToolButton *m_demoButton = nullptr;
    FittedLabel *m_demoStatus = nullptr;
    QLabel *m_proxyInfo = nullptr;
    bool m_attached = false;
};
