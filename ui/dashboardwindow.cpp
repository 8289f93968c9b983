#include "dashboardwindow.h"

#include <algorithm>
#include <initializer_list>

#include <QAbstractItemView>
#include <QAction>
#include <QActionGroup>
#include <QChartView>
#include <QDateTimeAxis>
#include <QApplication>
#include <QBuffer>
#include <QCloseEvent>
#include <QComboBox>
#include <QDateTime>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QGridLayout>
#include <QGraphicsLayout>
#include <QGroupBox>
#include <QLabel>
#include <QLegend>
#include <QMenu>
#include <QMessageBox>
#include <QPushButton>
#include <QScreen>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QStatusBar>
#include <QTabBar>
#include <QTabWidget>
#include <QToolBar>
#include <QToolButton>
#include <QUrl>
#include <QVBoxLayout>

#include "privatefiles.h"
#include "breakertimeline.h"
#include "chartlegend.h"
#include "dashboardmodel.h"
#include "dashboardstyle.h"
#include "democontroller.h"
#include "faultbanner.h"
#include "faultspanel.h"
#include "figurespanel.h"
#include "fittedlabel.h"
#include "fleetpanel.h"
#include "gettingstarted.h"
#include "inflightpanel.h"
#include "latencyscatter.h"
#include "latencystaircase.h"
#include "outcomechart.h"
#include "proxypanel.h"
#include "requestpanel.h"

using namespace Qt::StringLiterals;

namespace {

// Around a chart in its frame; a short Live tab (arrangeLive's `tight`) gives its charts the rest.
constexpr QMargins kFrameMargins(6, 4, 6, 6);
constexpr QMargins kTightFrameMargins(4, 2, 4, 2);

// A titled frame around one chart, with room for a control at the right of the title.
QGroupBox *framed(const QString &title, QWidget *content, QWidget *control = nullptr)
{
    auto *box = new QGroupBox;
    auto *layout = new QVBoxLayout(box);
    layout->setContentsMargins(kFrameMargins);
    layout->setSpacing(2);
    auto *header = new QHBoxLayout;
    auto *label = new QLabel(title);
    label->setObjectName(u"title"_s);
    QFont bold = label->font();
    bold.setBold(true);
    label->setFont(bold);
    header->addWidget(label);
    header->addStretch();
    if (control)
        header->addWidget(control);
    layout->addLayout(header);
    layout->addWidget(content, 1);
    return box;
}

// A scroll area that shows `content` whole when there is room and scrolls it when there is not.
QScrollArea *scrolling(QWidget *content, Qt::ScrollBarPolicy vertical)
{
    auto *area = new QScrollArea;
    area->setWidget(content);
    area->setWidgetResizable(true);
    area->setFrameShape(QFrame::NoFrame);
    area->setVerticalScrollBarPolicy(vertical);
    return area;
}

// The charts may shrink to this in a small window before the Live tab scrolls: at 1366x768 every
// chart fits whole, and below that nothing is cut, only scrolled.
constexpr int kChartMinimumHeight = 130;
constexpr int kChartMinimumWidth = 260;
// Below this window height the Live tab puts the charts side by side (arrangeLive).
constexpr int kCompactBelowHeight = 860;
// Below this Live tab height the side-by-side charts get tight (arrangeLive): side by side they
// need 397 px with two upstreams; a 1366x768 laptop at 100 % gives them about 485, at 125 % 298.
constexpr int kTightBelowHeight = 400;

// Between the upstream strip, the tiles and the tabs; a short Live tab whose texts need tall
// lines gives them the rest (arrangeLive).
constexpr int kHeaderSpacing = 4;
constexpr int kSqueezedHeaderSpacing = 2;

const QString kGeometryKey = u"window/geometry"_s;

// What `frame` needs now: its layouts and their items keep hints cached until the next layout pass,
// so a title just shortened or a legend just moved beside its plot would count as before (a window
// shrunk from a taller one to a laptop's at 125 % kept the long titles' widths and scrolled sideways).
int minimumWidthNow(QWidget *frame)
{
    for (QWidget *child : frame->findChildren<QWidget *>())
        child->updateGeometry();
    for (QLayout *layout : frame->findChildren<QLayout *>())
        layout->invalidate();
    return frame->minimumSizeHint().width();
}

} // namespace

DashboardWindow::DashboardWindow(DashboardModel *model, QWidget *parent)
    : QMainWindow(parent)
    , m_model(model)
    , m_nowMs([] { return QDateTime::currentMSecsSinceEpoch(); })
{
    setWindowTitle(u"Breakwater"_s);
    setWindowIcon(dashboardstyle::appIcon());

    m_figures = new FiguresPanel;
    m_outcomes = new OutcomeChart;
    m_breakers = new BreakerTimeline;
    m_staircase = new LatencyStaircase;
    m_scatter = new LatencyScatter;
    m_requests = new RequestPanel;
    m_inFlight = new InFlightPanel;

    m_barsChoice = new QComboBox;
    for (const int bars : {20, 40, 100, 200})
        m_barsChoice->addItem(tr("last %1 requests").arg(bars), bars);
    m_barsChoice->setCurrentIndex(3);
    connect(m_barsChoice, &QComboBox::currentIndexChanged, this, [this] {
        m_staircase->setBarLimit(m_barsChoice->currentData().toInt());
        m_staircase->refresh(*m_model);
    });

    auto *live = new QWidget;
    m_liveGrid = new QGridLayout(live);
    m_liveGrid->setContentsMargins(4, 4, 4, 4);
    for (QChartView *chart : std::initializer_list<QChartView *>{m_outcomes, m_scatter})
        chart->setMinimumSize(kChartMinimumWidth, kChartMinimumHeight);
    // As many time labels as fit the plot's width, whenever it changes (a resize, the legend
    // moving beside the plot in the compact layout); the outcomes chart places its own.
    connect(m_scatter->chart(), &QChart::plotAreaChanged, this, [this](const QRectF &plot) { fitTimeTicks(m_scatter, plot.width()); });
    m_staircase->setMinimumHeight(kChartMinimumHeight);
    // The outcomes' legend above their plot, wrapping, so the plot keeps the frame's width (beside
    // it in a short Live tab: arrangeLive).
    auto *outcomes = new QWidget;
    m_outcomesLayout = new QVBoxLayout(outcomes);
    m_outcomesLayout->setContentsMargins(0, 0, 0, 0);
    m_outcomesLayout->setSpacing(2);
    m_outcomesLayout->addWidget(m_outcomes->legend());
    m_outcomesLayout->addWidget(m_outcomes, 1);
    m_outcomes->legend()->show();
    m_outcomesFrame = framed(tr("Outcomes over time (requests per second, stacked)"), outcomes);
    // The timeline's legend is in its title row when tight (it shows it only then).
    m_breakersFrame = framed(tr("Breaker timeline"), m_breakers, m_breakers->legend());
    m_scatterFrame = framed(tr("Latency vs arrival time"), m_scatter);
    m_staircaseFrame = framed(tr("Latency staircase: arrival to last byte, by arrival"), m_staircase, m_barsChoice);
    // Measured on the tabs' titles, in the window's language (arrangeLive).
    m_tallLines = dashboardstyle::needsTallerLines(font(), tr("Live") + tr("Requests") + tr("In flight"));
    arrangeLive(false, false);

    m_tabs = new QTabWidget;
    m_tabs->addTab(scrolling(live, Qt::ScrollBarAsNeeded), tr("Live"));
    m_tabs->addTab(m_requests, tr("Requests"));
    m_tabs->addTab(m_inFlight, tr("In flight"));
    // A breaker band clicked: the calls received in it, in the table.
    connect(m_breakers, &BreakerTimeline::bandClicked, this, [this](const QString &, qint64 fromMs, qint64 toMs) {
        m_requests->setTimeRange(fromMs, toMs);
        m_requests->refresh(*m_model);
        m_tabs->setCurrentWidget(m_requests);
    });
    connect(m_breakers, &BreakerTimeline::replotRequested, this, &DashboardWindow::replotInterval);
    m_faultsPanel = new FaultsPanel;
    m_tabs->addTab(m_faultsPanel, tr("Faults"));
    m_fleetPanel = new FleetPanel(this);   // a tab with --shared-state only (draw)
    m_fleetPanel->hide();
    connect(m_tabs, &QTabWidget::currentChanged, this, [this] {   // catch up at once
        draw(false);
        scheduleTicks();
    });
    // Every tab as wide as the widest title a count can make ("Faults (12 armed)"): a count that
    // changes no longer moves the tabs after it, where a click was aimed (with room for the tab's margins).
    const QFontMetrics tabFont = m_tabs->tabBar()->fontMetrics();
    m_tabs->tabBar()->setStyleSheet(u"QTabBar::tab { min-width: %1px; }"_s.arg(
        std::max(tabFont.horizontalAdvance(tr("Faults (000 armed)")), tabFont.horizontalAdvance(tr("In flight (00000)")))));

    m_proxyPanel = new ProxyPanel;
    m_gettingStarted = new GettingStarted;
    // The tiles keep their size; a narrow window scrolls them sideways rather than cutting them.
    m_figuresStrip = scrolling(m_figures, Qt::ScrollBarAlwaysOff);
    m_figuresStrip->setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);

    auto *central = new QWidget;
    auto *layout = new QVBoxLayout(central);
    layout->setContentsMargins(6, 4, 6, 0);
    layout->setSpacing(kHeaderSpacing);
    m_faultBanner = new FaultBanner;
    connect(m_faultBanner, &FaultBanner::clearRequested, m_faultsPanel, &FaultsPanel::clearRequested);
    connect(m_faultBanner, &FaultBanner::showRequested, this, [this] { m_tabs->setCurrentWidget(m_faultsPanel); });
    // The strip's Resume does what the proxy panel's toggle does (livecontrol wires that signal).
    connect(m_faultBanner, &FaultBanner::resumeAdmissionRequested, this,
            [this] { Q_EMIT m_proxyPanel->admissionPauseRequested(false); });
    // Nothing above the tabs comes and goes with the traffic, so nothing under it moves (issue 27:
    // the first call removed the guide and everything rose 74 px; an armed rule's strip pushed it
    // all 32 px down): the strip sits beside the tabs, in the tab bar's own height, and the guide
    // lies over the empty Live tab until the first call.
    m_tabs->setCornerWidget(m_faultBanner, Qt::TopRightCorner);
    m_gettingStarted->setParent(m_tabs->widget(0));
    m_gettingStarted->setAutoFillBackground(true);
    m_tabs->widget(0)->installEventFilter(this);
    m_figuresStrip->installEventFilter(this);
    layout->addWidget(m_proxyPanel);
    layout->addWidget(m_figuresStrip);
    m_replotBar = new QWidget;
    auto *replot = new QHBoxLayout(m_replotBar);
    replot->setContentsMargins(0, 0, 0, 0);
    m_replotText = new QLabel;
    auto *backToLive = new QPushButton(tr("Back to live"));
    connect(backToLive, &QPushButton::clicked, this, &DashboardWindow::backToLive);
    replot->addWidget(m_replotText);
    replot->addWidget(backToLive);
    replot->addStretch();
    m_replotBar->hide();
    layout->addWidget(m_replotBar);
    layout->addWidget(m_tabs, 1);
    setCentralWidget(central);

    buildToolBar();
    m_demoStatus = new FittedLabel;
    m_proxyInfo = new QLabel;
    statusBar()->addWidget(m_demoStatus, 1);
    statusBar()->addPermanentWidget(m_proxyInfo);

    // Transitions are counted here: the model's revision also moves with every snapshot.
    connect(m_model, &DashboardModel::breakerTransitioned, this, [this](const BreakerTransition &transition) {
        ++m_transitionsSeen;
        m_newestTransitionMs = std::max(m_newestTransitionMs, transition.atMs);
    });

    styleCharts();
    nameForScreenReaders();
    m_redrawTimer.setInterval(kRedrawIntervalMs);
    connect(&m_redrawTimer, &QTimer::timeout, this, &DashboardWindow::tick);
    connect(m_model, &DashboardModel::changed, this, &DashboardWindow::wake);
    const QRect available = screen()->availableGeometry();
    resize(defaultSize(available));
    move(available.center() - rect().center());
    fitFiguresStrip();
}

DashboardWindow::~DashboardWindow() = default;

QSize DashboardWindow::defaultSize(const QRect &available)
{
    // Room for a title bar and borders, which the window manager adds outside this size.
    return {std::min(1600, available.width() * 95 / 100), std::min(1000, available.height() * 90 / 100)};
}

void DashboardWindow::saveGeometryTo(QSettings &settings) const
{
    settings.setValue(kGeometryKey, saveGeometry());
}

void DashboardWindow::restoreGeometryFrom(QSettings &settings)
{
    // restoreGeometry() moves a window saved on a screen that is gone back onto one that exists.
    const QByteArray saved = settings.value(kGeometryKey).toByteArray();
    if (!saved.isEmpty() && restoreGeometry(saved))
        fitToScreen();
}

void DashboardWindow::fitToScreen()
{
    // restoreGeometry() keeps a size saved on a bigger screen (a laptop taken off its monitor):
    // fit size and position to the screen the window opens on. Maximised stays maximised.
    if (isMaximized() || isFullScreen())
        return;
    QScreen *screen = QGuiApplication::screenAt(geometry().center());
    if (!screen)
        screen = this->screen();
    const QRect available = screen->availableGeometry();
    const QRect frame = frameGeometry(), inside = geometry();
    QMargins margins(inside.left() - frame.left(), inside.top() - frame.top(), frame.right() - inside.right(),
                     frame.bottom() - inside.bottom());
    const bool framed = !margins.isNull();
    if (!framed)
        margins = QMargins(8, 32, 8, 8);   // not shown yet: leave room for a title bar and borders
    const QSize size = inside.size().boundedTo(available.size().shrunkBy(margins)).expandedTo(minimumSize());
    const QPoint lowest = available.topLeft() + (framed ? QPoint(margins.left(), margins.top()) : QPoint());
    const QPoint highest(available.right() + 1 - margins.right() - size.width(),
                         available.bottom() + 1 - margins.bottom() - size.height());
    const QPoint position(std::clamp(inside.x(), lowest.x(), std::max(lowest.x(), highest.x())),
                          std::clamp(inside.y(), lowest.y(), std::max(lowest.y(), highest.y())));
    setGeometry(QRect(position, size));
}

void DashboardWindow::buildToolBar()
{
    QToolBar *bar = addToolBar(tr("Dashboard"));
    bar->setMovable(false);
    bar->setToolButtonStyle(Qt::ToolButtonTextOnly);
    m_pauseAction = bar->addAction(tr("Pause"));
    m_pauseAction->setCheckable(true);
    m_pauseAction->setToolTip(tr("Freeze the live view; events are still collected"));
    connect(m_pauseAction, &QAction::toggled, this, &DashboardWindow::setPaused);

    QAction *clear = bar->addAction(tr("Clear"));
    clear->setToolTip(tr("Start every figure, chart, the breaker timeline and the table afresh"));
    connect(clear, &QAction::triggered, this, &DashboardWindow::clearAll);

    bar->addSeparator();
    bar->addWidget(new QLabel(tr(" Window ")));
    m_windowChoice = new QComboBox;
    for (const int minutes : {1, 5, 15})
        m_windowChoice->addItem(tr("%1 min").arg(minutes), minutes * 60'000);
    m_windowChoice->setCurrentIndex(1);
    connect(m_windowChoice, &QComboBox::currentIndexChanged, this,
            [this] { setWindowMs(m_windowChoice->currentData().toLongLong()); });
    bar->addWidget(m_windowChoice);

    bar->addSeparator();
    connect(bar->addAction(tr("Export charts…")), &QAction::triggered, this, &DashboardWindow::chooseExportCharts);
    connect(bar->addAction(tr("Export table…")), &QAction::triggered, this, &DashboardWindow::chooseExportTable);
    bar->addSeparator();
    connect(bar->addAction(tr("Settings…")), &QAction::triggered, this, [this] {
        if (m_openSettings)
            m_openSettings();
    });
    buildViewMenu();
    auto *view = new QToolButton;
    view->setText(m_viewMenu->title());
    view->setPopupMode(QToolButton::InstantPopup);
    view->setMenu(m_viewMenu);
    bar->addWidget(view);
    m_demoButton = new QToolButton;
    m_demoButton->setText(tr("Demo scenarios"));
    m_demoButton->setPopupMode(QToolButton::InstantPopup);
    m_demoButton->setMenu(new QMenu(m_demoButton));
    bar->addSeparator();
    m_demoMenuAction = bar->addWidget(m_demoButton);
    m_demoMenuAction->setVisible(false);   // only in --demo

    // On the window itself too, so Ctrl+Q works wherever the focus is.
    QAction *quit = new QAction(tr("Quit Breakwater"), this);
    quit->setShortcuts(dashboardstyle::quitShortcuts());
    quit->setShortcutContext(Qt::ApplicationShortcut);
    quit->setToolTip(tr("Stop the proxy and quit (%1)").arg(quit->shortcut().toString(QKeySequence::NativeText)));
    connect(quit, &QAction::triggered, qApp, &QCoreApplication::quit);
    addAction(quit);
    bar->addSeparator();
    bar->addAction(quit);
    // A toolbar's buttons take no focus by default: every one of them reachable by Tab too.
    for (QAction *action : bar->actions()) {
        if (QWidget *button = bar->widgetForAction(action); button && !qobject_cast<QLabel *>(button))
            button->setFocusPolicy(Qt::StrongFocus);
    }
}

void DashboardWindow::clearAll()
{
    m_model->clear();
    m_model->clearBreakerHistory(m_nowMs());
    m_demoStatus->setWholeText({});
    statusBar()->clearMessage();
    redraw();
}

void DashboardWindow::closeEvent(QCloseEvent *event)
{
    // With a tray (or while waiting for one) the app outlives its window: closing only hides it.
    // Attached to a remote, nothing here serves anyone: closing only ends this dashboard.
    if (m_attached || !QApplication::quitOnLastWindowClosed() || !isVisible()) {
        QMainWindow::closeEvent(event);
        return;
    }
    QMessageBox ask(QMessageBox::Warning, tr("Quit Breakwater?"),
                    tr("There is no system tray to keep Breakwater in, so closing this window stops the proxy. "
                       "Apps pointed at %1 will fail to connect until it runs again.").arg(m_proxyPanel->listenUrl()),
                    QMessageBox::NoButton, this);
    ask.addButton(tr("Quit Breakwater"), QMessageBox::AcceptRole);
    QPushButton *keep = ask.addButton(tr("Keep running"), QMessageBox::RejectRole);
    ask.setDefaultButton(keep);
    ask.exec();
    if (ask.clickedButton() == keep) {
        event->ignore();
        return;
    }
    QMainWindow::closeEvent(event);
}

void DashboardWindow::resizeEvent(QResizeEvent *event)
{
    QMainWindow::resizeEvent(event);
    // The Live tab's own height decides `tight`, again when it is resized (eventFilter).
    arrangeLive(height() < kCompactBelowHeight, m_tabs->widget(0)->height() < kTightBelowHeight);
    fitFiguresStrip();
}

void DashboardWindow::arrangeLive(bool compact, bool tight)
{
    tight = tight && compact;
    if (m_liveArranged && compact == m_compact && tight == m_tight)
        return;
    const bool wasCompact = m_liveArranged && m_compact;
    const bool wasTight = m_liveArranged && m_tight;
    m_liveArranged = true;
    m_compact = compact;
    m_tight = tight;
    for (QWidget *frame : {m_outcomesFrame, m_breakersFrame, m_scatterFrame, m_staircaseFrame}) {
        m_liveGrid->removeWidget(frame);
        // Side by side the columns share the width by their stretch, not by the staircase's
        // wide size hint (its minimum still holds).
        QSizePolicy policy = frame->sizePolicy();
        policy.setHorizontalPolicy(compact ? QSizePolicy::Ignored : QSizePolicy::Preferred);
        frame->setSizePolicy(policy);
    }
    for (int i = 0; i < 3; ++i) {
        m_liveGrid->setRowStretch(i, 0);
        m_liveGrid->setColumnStretch(i, 0);
    }
    if (compact) {
        // A laptop's height: three charts side by side over the breaker timeline, so each keeps
        // room for its axes and legend instead of three squeezed ones in a column.
        m_liveGrid->addWidget(m_outcomesFrame, 0, 0);
        m_liveGrid->addWidget(m_scatterFrame, 0, 1);
        m_liveGrid->addWidget(m_breakersFrame, 1, 0, 1, 2);
        m_liveGrid->addWidget(m_staircaseFrame, 0, 2, 2, 1);
        m_liveGrid->setRowStretch(0, 1);
        // Widths after what the legends need (the scatter's has 7 entries); the time charts drop
        // clock labels to fit (eventFilter), the titles are shorter and the legends a little smaller.
        m_liveGrid->setColumnStretch(0, tight ? 12 : 9);   // tight: the outcomes' legend beside their plot
        m_liveGrid->setColumnStretch(1, 11);
        m_liveGrid->setColumnStretch(2, tight ? 10 : 11);
    } else {
        m_liveGrid->addWidget(m_outcomesFrame, 0, 0);
        m_liveGrid->addWidget(m_breakersFrame, 1, 0);
        m_liveGrid->addWidget(m_scatterFrame, 2, 0);
        m_liveGrid->addWidget(m_staircaseFrame, 0, 1, 3, 1);
        m_liveGrid->setRowStretch(0, 5);
        m_liveGrid->setRowStretch(2, 4);
        m_liveGrid->setColumnStretch(0, 1);
        m_liveGrid->setColumnStretch(1, 1);
    }
    const QList<std::pair<QWidget *, std::pair<QString, QString>>> titles{
        {m_outcomesFrame, {tr("Outcomes over time (requests per second, stacked)"), tr("Outcomes (requests/s, stacked)")}},
        {m_scatterFrame, {tr("Latency vs arrival time"), tr("Latency vs arrival")}},
        {m_staircaseFrame, {tr("Latency staircase: arrival to last byte, by arrival"), tr("Latency staircase")}},
    };
    for (const auto &[frame, names] : titles) {
        auto *title = frame->findChild<QLabel *>(u"title"_s);
        title->setText(compact ? names.second : names.first);
        title->setToolTip(names.first);
    }
    if (compact != wasCompact) {
        QLegend *legend = m_scatter->chart()->legend();
        QFont font = legend->font();
        font.setPointSizeF(font.pointSizeF() * (compact ? 0.85 : 1 / 0.85));
        legend->setFont(font);
        // Seven entries in a row do not fit a third of a laptop's width ("joi...", "fai..."):
        // there they stand in a column beside the plot.
        legend->setAlignment(compact ? Qt::AlignRight : Qt::AlignTop);
        m_outcomes->setCompact(compact);
    }
    if (tight != wasTight) {
        // A laptop at 125 %: every chart keeps a plot about 100 px high or more, and nothing scrolls.
        // The frames and the grid give up a few pixels, the charts their layouts' margins (9 px a
        // side, around their own), the outcomes' legend stands in a column beside the plot instead
        // of four lines above it, and the breaker timeline's rows are lower, its legend in its title
        // row.
        m_liveGrid->setContentsMargins(tight ? QMargins(2, 2, 2, 2) : QMargins(4, 4, 4, 4));
        m_liveGrid->setSpacing(tight ? 4 : -1);
        for (QWidget *frame : {m_outcomesFrame, m_breakersFrame, m_scatterFrame, m_staircaseFrame})
            frame->layout()->setContentsMargins(tight ? kTightFrameMargins : kFrameMargins);
        for (QChartView *chart : std::initializer_list<QChartView *>{m_outcomes, m_scatter}) {
            if (m_chartLayoutMargins.isNull()) {
                qreal left = 0, top = 0, right = 0, bottom = 0;
                chart->chart()->layout()->getContentsMargins(&left, &top, &right, &bottom);
                m_chartLayoutMargins = QMarginsF(left, top, right, bottom);
            }
            const QMarginsF margins = tight ? QMarginsF() : m_chartLayoutMargins;
            chart->chart()->layout()->setContentsMargins(margins.left(), margins.top(), margins.right(), margins.bottom());
        }
        m_outcomesLayout->setDirection(tight ? QBoxLayout::RightToLeft : QBoxLayout::TopToBottom);
        m_outcomesLayout->setAlignment(m_outcomes->legend(), tight ? Qt::AlignVCenter : Qt::Alignment());
        fitOutcomesLegend();
        m_breakers->setShort(tight);
        // And where the texts need taller lines than the font's own (a CJK translation's, about
        // 4 px a line at 125 %: the tab scrolled, 300 px in 266), the header and two charts give
        // up those lines' extra: shorter tiles, closer rows, the outcomes' legend at the font's
        // line spacing and no title under the scatter's clock labels.
        const bool squeezed = tight && m_tallLines;
        m_figures->setShort(squeezed);
        if (QLayout *header = centralWidget() ? centralWidget()->layout() : nullptr)
            header->setSpacing(squeezed ? kSqueezedHeaderSpacing : kHeaderSpacing);
        m_outcomes->legend()->setDense(squeezed);
        m_scatter->setShort(squeezed);
        fitFiguresStrip();
    }
}

void DashboardWindow::fitOutcomesLegend()
{
    // An eleventh of the tab's width at most (the frame's would follow the legend): the outcomes' chart
    // keeps the width its axes need, the failure line's long name wraps.
    m_outcomes->legend()->setColumnWidth(m_tight ? m_tabs->widget(0)->width() / 11 : 0);
    // And every frame at least as wide as what it holds (their width policy ignores their hints):
    // the outcomes' frame, narrower than chart and legend side by side, drew the chart over the
    // legend, and the staircase's went 6 px under its minimum.
    for (QWidget *frame : {m_outcomesFrame, m_breakersFrame, m_scatterFrame, m_staircaseFrame})
        frame->setMinimumWidth(m_tight ? minimumWidthNow(frame) : 0);
}

void DashboardWindow::placeGuide()
{
    // Across the top of the Live tab, over the charts (empty while it shows), as tall as it needs.
    QWidget *live = m_tabs->widget(0);
    m_gettingStarted->setGeometry(0, 0, live->width(), m_gettingStarted->heightForWidth(live->width()) > 0
                                                           ? m_gettingStarted->heightForWidth(live->width())
                                                           : m_gettingStarted->sizeHint().height());
    m_gettingStarted->raise();
}

bool DashboardWindow::eventFilter(QObject *watched, QEvent *event)
{
    if (m_tabs && watched == m_tabs->widget(0) && event->type() == QEvent::Resize) {
        placeGuide();
        arrangeLive(m_compact, m_tabs->widget(0)->height() < kTightBelowHeight);
        fitOutcomesLegend();
    }
    if (watched == m_figuresStrip && event->type() == QEvent::Resize)
        fitFiguresStrip();   // its own width, once laid out (the window's resize comes before it)
    return QMainWindow::eventFilter(watched, event);
}

void DashboardWindow::fitTimeTicks(QChartView *view, qreal plotWidth)
{
    // A time axis prints a clock time per tick: only as many ticks as their labels fit side by side,
    // rather than labels cut to "11:4...".
    const int labelWidth = view->fontMetrics().horizontalAdvance(u"00:00:00"_s) * 5 / 4;
    const int ticks = std::clamp(int(plotWidth) / std::max(labelWidth, 1) + 1, 2, 7);
    for (QAbstractAxis *axis : view->chart()->axes(Qt::Horizontal)) {
        if (auto *time = qobject_cast<QDateTimeAxis *>(axis); time && time->tickCount() != ticks)
            time->setTickCount(ticks);
    }
}

void DashboardWindow::fitFiguresStrip()
{
    // The fault strip takes the tab bar's free width (the tabs' titles change with their counts).
    m_faultBanner->setPreferredWidth(std::max(m_tabs->width() - m_tabs->tabBar()->sizeHint().width() - 24, 200));
    // The tiles that do not fit the strip's width go on a second row; as tall as the rows, plus
    // the scroll bar's height only when even one row's tiles are wider than the strip.
    m_figures->wrapTo(m_figuresStrip->contentsRect().width());
    const int tilesWidth = m_figures->minimumSizeHint().width();
    const bool scrolls = tilesWidth > m_figuresStrip->viewport()->width() && m_figuresStrip->width() < tilesWidth;
    const int height = m_figures->sizeHint().height()
        + (scrolls ? m_figuresStrip->horizontalScrollBar()->sizeHint().height() : 0);
    if (m_figuresStrip->height() != height || m_figuresStrip->minimumHeight() != height)
        m_figuresStrip->setFixedHeight(height);
}

void DashboardWindow::setWindowMs(qint64 windowMs)
{
    m_windowMs = windowMs;
    const int index = m_windowChoice->findData(windowMs);
    if (index >= 0 && index != m_windowChoice->currentIndex())
        m_windowChoice->setCurrentIndex(index);
    redraw();
}

void DashboardWindow::setPaused(bool paused)
{
    m_paused = paused;
    if (m_pauseAction->isChecked() != paused)
        m_pauseAction->setChecked(paused);
    m_pauseAction->setText(paused ? tr("Resume") : tr("Pause"));
    // Only the drawing stops: the proxy still admits calls, which "Breakwater (paused)" denied.
    setWindowTitle(paused ? tr("Breakwater (charts paused)") : u"Breakwater"_s);
    if (!paused)
        redraw();
    scheduleTicks();
}

void DashboardWindow::setStaircaseBars(int bars)
{
    const int index = m_barsChoice->findData(bars);
    if (index >= 0)
        m_barsChoice->setCurrentIndex(index);
}

void DashboardWindow::setProxyInfo(const QString &baseUrl, bool demo)
{
    m_proxyInfo->setText(tr("listening on %1%2").arg(baseUrl, demo ? tr("  ·  demo mode (mock provider)") : QString()));
    m_proxyPanel->setListenUrl(baseUrl, demo);
    m_requests->setOrigin(baseUrl.endsWith(u"/v1"_s) ? baseUrl.chopped(3) : baseUrl);   // curl and HAR URLs
    QString anthropicBase = baseUrl;   // the same address; the Anthropic SDK adds /v1 itself
    if (anthropicBase.endsWith(u"/v1"_s))
        anthropicBase.chop(3);
    m_gettingStarted->setBaseUrls(baseUrl, anthropicBase, demo);
}

void DashboardWindow::setAttachedTo(const QString &remote)
{
    setProxyInfo(remote + u"/v1"_s, false);   // the addresses members use are the remote's
    m_attached = true;
    m_proxyPanel->setAttachedTo(remote);
    const bool tls = QUrl(remote).scheme() == u"https"_s;
    //: the status bar of `breakwater --attach`; %1 is the remote's address
    m_proxyInfo->setText(tls ? tr("attached to %1 (TLS)").arg(remote) : tr("attached to %1 (cleartext, no TLS)").arg(remote));
}

void DashboardWindow::setUpstreamUrl(const QString &upstream, const QString &fullUrl)
{
    // Shown and offered without its user:password, which is no one's to see on a screen or a screenshot.
    const QString url = QUrl(fullUrl).toString(QUrl::RemoveUserInfo);
    m_proxyPanel->setUpstreamUrl(upstream, url);
    m_requests->setUpstreamUrl(upstream, url);   // offered by Replay…
    m_drawnRevision = ~quint64(0);   // the strip shows it at the next tick
    wake();
}

void DashboardWindow::setDemoController(DemoController *demo)
{
    m_demoButton->menu()->clear();
    m_demoMenuAction->setVisible(demo != nullptr);
    if (!demo)
        return;
    demo->populate(m_demoButton->menu());
    connect(demo, &DemoController::statusChanged, m_demoStatus, [this](const QString &text) {
        // "Outage: 75 requests, 48 upstream calls; 48 miss, 27 refused; status ...; slowest 104 ms":
        // on a narrow status bar the middle parts give way before the slowest call, never cut.
        const QStringList pieces = text.split(u"; "_s);
        QList<FittedLabel::Part> parts;
        for (qsizetype i = 0; i < pieces.size(); ++i) {
            const bool first = i == 0, last = i + 1 == pieces.size();
            parts.append({{pieces[i], first ? pieces[i] : QString()}, first ? 99 : last ? 50 : int(pieces.size() - i)});
        }
        m_demoStatus->setParts(parts, u"; "_s);
    });
}

void DashboardWindow::setSettingsHandler(std::function<void()> openSettings)
{
    m_openSettings = std::move(openSettings);
}

void DashboardWindow::tick()
{
    ++m_ticks;
    // Nobody sees a hidden, minimised or paused window: the model keeps collecting, drawing waits.
    if (seen())
        draw(false);
    scheduleTicks();
}

bool DashboardWindow::seen() const
{
    return !m_paused && isVisible() && !isMinimized();
}

void DashboardWindow::wake()
{
    // Never restarted while on: a steady stream of events must not keep pushing the tick away.
    if (seen() && (!m_redrawTimer.isActive() || m_redrawTimer.interval() != kRedrawIntervalMs))
        m_redrawTimer.start(kRedrawIntervalMs);
}

qint64 DashboardWindow::newestActivityMs() const
{
    const qint64 newestRecordMs = m_model->records().empty() ? 0 : m_model->records().back().endAtMs;
    return std::max(newestRecordMs, m_newestTransitionMs);
}

bool DashboardWindow::chartsScroll(qint64 nowMs) const
{
    return newestActivityMs() >= nowMs - m_windowMs - kQuietIntervalMs;
}

int DashboardWindow::restIntervalMs() const
{
    if (m_model->inFlight() > 0 || m_model->queued() > 0 || m_model->oldestInFlightMs() > 0
        || m_model->flightsListed() > 0)
        return kRestIntervalMs;   // their ages and bars grow
    if (m_past || m_tabs->currentIndex() != 0)
        return 0;   // the other tabs and a replotted interval stand still
    const qint64 now = m_nowMs();
    if (!chartsScroll(now))
        return 0;
    return newestActivityMs() >= now - kQuietAfterMs ? kRestIntervalMs : kQuietIntervalMs;
}

void DashboardWindow::scheduleTicks()
{
    // An idle dashboard rests (issue 26: 4 % of a core with nothing to show but the clock axis):
    // ten ticks a second only while things arrive, one while calls are in flight or have just
    // ended, one every few seconds while the charts merely scroll, none when nothing on screen moves
    // with time; the model's changed() wakes it again.
    const quint64 revision = m_model->revision();
    const bool arriving = revision != m_tickedRevision;
    m_tickedRevision = revision;
    int interval = 0;
    if (seen())
        interval = arriving ? kRedrawIntervalMs : restIntervalMs();
    if (interval == 0)
        m_redrawTimer.stop();
    else if (!m_redrawTimer.isActive() || m_redrawTimer.interval() != interval)
        m_redrawTimer.start(interval);
}

void DashboardWindow::showEvent(QShowEvent *event)
{
    QMainWindow::showEvent(event);
    wake();   // catch up with what came while hidden
}

void DashboardWindow::hideEvent(QHideEvent *event)
{
    QMainWindow::hideEvent(event);
    m_redrawTimer.stop();   // hidden in the tray: draws nothing
}

void DashboardWindow::changeEvent(QEvent *event)
{
    QMainWindow::changeEvent(event);
    if (event->type() == QEvent::PaletteChange) {
        // A theme chosen in View, or the desktop's changed. A style sheet's palette(base) was
        // resolved when it was applied, and Qt skips widgets with one: applied again, it follows.
        styleCharts();
        for (QWidget *widget : findChildren<QWidget *>()) {
            if (!widget->styleSheet().isEmpty())
                widget->setStyleSheet(widget->styleSheet());
        }
        return;
    }
    if (event->type() == QEvent::ActivationChange) {
        // The user comes to the window: a clock axis that steps every few seconds catches up now.
        if (isActiveWindow())
            wake();
        return;
    }
    if (event->type() != QEvent::WindowStateChange)
        return;
    if (isMinimized())
        m_redrawTimer.stop();
    else
        wake();
}

void DashboardWindow::styleCharts()
{
    for (QChartView *view : std::initializer_list<QChartView *>{m_outcomes, m_scatter}) {
        apptheme::styleChart(view->chart(), palette());
        view->setBackgroundBrush(palette().base());
    }
}

void DashboardWindow::nameForScreenReaders()
{
    const QList<std::tuple<QWidget *, QString, QString>> views{
        {m_outcomes, tr("Outcomes over time"),
         tr("Requests per second, stacked by how they were served: in flight, miss, joined, cache hit, bypass, refused, failed")},
        {m_breakers, tr("Breaker timeline"),
         tr("Each upstream's circuit breaker over time: closed, half-open or open, with its transitions")},
        {m_scatter, tr("Latency vs arrival time"),
         tr("Each call's latency by the time it arrived, coloured by how it was served or why it failed")},
        {m_staircase, tr("Latency staircase"),
         tr("The newest requests as bars from arrival to last byte, in order of arrival")},
        {m_figures, tr("Figures"), tr("Requests, upstream calls, joined, cache hits, refused, failed, cost and calls in flight")},
        {m_requests, tr("Requests"), tr("The table of recent requests, newest first")},
        {m_inFlight, tr("In flight"), tr("The upstream calls running or queued now")},
        {m_faultsPanel, tr("Faults"), tr("Fault injection rules armed on this proxy")},
        {m_fleetPanel, tr("Fleet"), tr("The instances sharing this Redis, each one's calls, and the fleet's totals")},
        {m_tabs, tr("Dashboard views"), tr("Live charts, the request table, the calls in flight and fault injection")},
    };
    for (const auto &[widget, name, description] : views) {
        widget->setAccessibleName(name);
        widget->setAccessibleDescription(description);
    }
    // A table's Tab moves out of it (its arrow keys move between cells), not to its next cell.
    for (QAbstractItemView *table : findChildren<QAbstractItemView *>()) {
        table->setTabKeyNavigation(false);
        for (QWidget *panel = table->parentWidget(); table->accessibleName().isEmpty() && panel; panel = panel->parentWidget())
            table->setAccessibleName(panel->accessibleName());   // the panel's name
    }
}

QList<QWidget *> DashboardWindow::tabOrder() const
{
    QList<QWidget *> controls;
    for (QWidget *widget : findChildren<QWidget *>()) {
        if ((widget->focusPolicy() & Qt::TabFocus) && widget->isVisible() && widget->isEnabled()
            && !widget->focusProxy() && widget->window() == this && !widget->visibleRegion().isEmpty())
            controls << widget;
    }
    const auto place = [this](const QWidget *widget) { return QRect(widget->mapTo(this, QPoint(0, 0)), widget->size()); };
    // Rows top to bottom: a control whose top is below the row's lowest middle starts the next row.
    std::stable_sort(controls.begin(), controls.end(),
                     [&](const QWidget *a, const QWidget *b) { return place(a).center().y() < place(b).center().y(); });
    QList<QWidget *> ordered;
    for (qsizetype start = 0; start < controls.size();) {
        qsizetype end = start + 1;
        int rowBottom = place(controls[start]).bottom();
        while (end < controls.size() && place(controls[end]).center().y() <= rowBottom) {
            rowBottom = std::max(rowBottom, place(controls[end]).bottom());
            ++end;
        }
        QList<QWidget *> row = controls.mid(start, end - start);
        std::stable_sort(row.begin(), row.end(), [&](const QWidget *a, const QWidget *b) { return place(a).x() < place(b).x(); });
        ordered << row;
        start = end;
    }
    return ordered;
}

bool DashboardWindow::focusNextPrevChild(bool next)
{
    const QList<QWidget *> controls = tabOrder();
    if (controls.isEmpty())
        return QMainWindow::focusNextPrevChild(next);
    const qsizetype at = controls.indexOf(focusWidget());
    const qsizetype count = controls.size();
    const qsizetype to = at < 0 ? (next ? 0 : count - 1) : (at + (next ? 1 : count - 1)) % count;
    controls[to]->setFocus(next ? Qt::TabFocusReason : Qt::BacktabFocusReason);
    return true;
}

void DashboardWindow::buildViewMenu()
{
    m_viewMenu = new QMenu(tr("View"), this);
    m_viewMenu->addSection(tr("Theme"));
    m_themes = new QActionGroup(this);
    const QList<std::pair<apptheme::Theme, QString>> themes{
        //: The desktop's own colours
        {apptheme::Theme::System, tr("System")},
        {apptheme::Theme::Light, tr("Light")},
        {apptheme::Theme::Dark, tr("Dark")},
    };
    for (const auto &[theme, name] : themes) {
        QAction *action = m_viewMenu->addAction(name);
        action->setCheckable(true);
        action->setData(int(theme));
        action->setChecked(theme == apptheme::current());
        m_themes->addAction(action);
        connect(action, &QAction::triggered, this, [this, theme = theme] {
            setTheme(theme);
            Q_EMIT themeChosen(theme);
        });
    }
}

void DashboardWindow::setTheme(apptheme::Theme theme)
{
    if (theme != apptheme::current())
        apptheme::apply(theme);
    for (QAction *action : m_themes->actions())
        action->setChecked(action->data().toInt() == int(theme));
    styleCharts();
}

DashboardWindow::DataKey DashboardWindow::dataKey() const
{
    return {m_model->recordSequence(), m_model->clearCount(), m_transitionsSeen, m_model->upstreams().size()};
}

void DashboardWindow::draw(bool everything)
{
    const qint64 now = m_nowMs();
    const qint64 from = now - m_windowMs;
    // Calls in flight age with the clock: their bars and the oldest one's age move without events.
    const bool inFlight = m_model->oldestInFlightMs() > 0 || m_model->flightsListed() > 0;
    if (everything || m_model->revision() != m_drawnRevision || inFlight) {
        m_drawnRevision = m_model->revision();
        m_figures->refresh(*m_model, now);
        m_proxyPanel->refresh(*m_model);
        m_faultBanner->refresh(m_model->snapshot());
        m_faultsPanel->refresh(m_model->snapshot());
        const int faults = int(m_model->snapshot().faults.size());
        const int faultsTab = m_tabs->indexOf(m_faultsPanel);
        m_tabs->setTabText(faultsTab, faults > 0 ? tr("Faults (%1 armed)").arg(faults) : tr("Faults"));
        m_tabs->tabBar()->setTabTextColor(faultsTab, faults > 0 ? dashboardstyle::injectedColor() : QColor());
        if (const FleetView &fleet = m_model->snapshot().fleet; fleet.enabled) {
            if (m_tabs->indexOf(m_fleetPanel) < 0)
                m_tabs->addTab(m_fleetPanel, FleetPanel::tabTitle(fleet));
            const int fleetTab = m_tabs->indexOf(m_fleetPanel);
            m_fleetPanel->refresh(fleet);
            m_tabs->setTabText(fleetTab, FleetPanel::tabTitle(fleet));
            m_tabs->tabBar()->setTabTextColor(fleetTab, fleet.shared ? QColor() : dashboardstyle::breakerColor(BreakerState::Open));
        }
        const bool empty = m_model->records().empty() && m_model->totals().requests == 0;
        if (m_gettingStarted->isVisibleTo(this) != empty) {
            m_gettingStarted->setVisible(empty);
            placeGuide();
        }
        fitFiguresStrip();
    }
    const DataKey key = dataKey();
    // The charts only while their tab shows. They scroll with time, but scrolling moves something
    // only while a call or a transition is in the window or calls are in flight; otherwise only the
    // time labels would change, and an idle window should cost nothing.
    // While a past interval is replotted, the charts keep it (drawPast) until back to live.
    if (!m_past && (everything || m_tabs->currentIndex() == 0)) {
        const bool moving = chartsScroll(now) || m_model->inFlight() > 0 || m_model->queued() > 0;
        if (everything || moving || key != m_chartsKey || m_chartsWindowMs != m_windowMs) {
            const bool changed = everything || key != m_chartsKey || m_chartsWindowMs != m_windowMs;
            m_chartsKey = key;
            m_chartsWindowMs = m_windowMs;
            m_chartsDrawnAtMs = now;
            m_outcomes->refresh(*m_model, from, now);
            m_breakers->refresh(*m_model, from, now);
            if (changed || now - m_scatterDrawnAtMs >= kScatterIntervalMs) {
                m_scatterDrawnAtMs = now;
                m_scatter->refresh(*m_model, from, now);
            }
        }
        if (everything || m_staircaseKey != key || inFlight) {
            m_staircaseKey = key;
            m_staircase->refresh(*m_model, now);
        }
    }
    if (everything || m_tabs->currentIndex() == 1)
        syncRequestTable();
    // The In flight list while its tab shows (an empty one that stays empty repaints nothing), and
    // its count in the tab's title always, so a hang is seen from the other tabs too.
    const ProxySnapshot &snapshot = m_model->snapshot();
    if (everything || m_tabs->currentWidget() == m_inFlight)
        m_inFlight->refresh(snapshot, now);
    const int flights = m_model->flightsListed();
    if (flights != m_inFlightTabCount) {
        m_inFlightTabCount = flights;
        m_tabs->setTabText(m_tabs->indexOf(m_inFlight), flights > 0 ? tr("In flight (%1)").arg(flights) : tr("In flight"));
    }
    ++m_redraws;
}

void DashboardWindow::syncRequestTable()
{
    const DataKey key = dataKey();
    if (m_tableKey == key)
        return;
    m_tableKey = key;
    m_requests->refresh(*m_model);
}

void DashboardWindow::replotInterval(qint64 fromMs, qint64 toMs)
{
    constexpr qint64 kWidestMs = 15 * 60'000;   // the widest window; the model keeps buckets for it
    toMs = std::max(toMs, fromMs + 1);
    fromMs = std::max(fromMs, toMs - kWidestMs);
    QList<CallRecord> records;
    if (m_historySource) {
        records = m_historySource(fromMs, toMs);
    } else {
        for (const CallRecord &record : m_model->records()) {
            if (record.receivedAtMs >= fromMs && record.receivedAtMs <= toMs)
                records.append(record);
        }
    }
    m_past = std::make_unique<DashboardModel>();
    m_past->addHistory(records);
    m_pastFromMs = fromMs;
    m_pastToMs = toMs;
    m_replotText->setText(tr("The charts show %1–%2, replotted from the %3 (%4 calls)")
                              .arg(dashboardstyle::formatClock(fromMs, false), dashboardstyle::formatClock(toMs, false),
                                   m_historySource ? tr("call log") : tr("calls held"))
                              .arg(records.size()));
    m_replotBar->show();
    m_tabs->setCurrentIndex(0);
    drawPast();
}

void DashboardWindow::drawPast()
{
    m_outcomes->refresh(*m_past, m_pastFromMs, m_pastToMs);
    m_breakers->refresh(*m_past, m_pastFromMs, m_pastToMs);
    m_scatter->refresh(*m_past, m_pastFromMs, m_pastToMs);
    m_staircase->refresh(*m_past, m_pastToMs);
}

void DashboardWindow::backToLive()
{
    m_past.reset();
    m_replotBar->hide();
    m_replotText->clear();
    redraw();
}

QString DashboardWindow::replotText() const
{
    return m_replotText->text();
}

bool DashboardWindow::exportCharts(const QString &directory, QString *error, QStringList *written) const
{
    const QList<std::pair<QString, QWidget *>> charts{{u"outcomes"_s, m_outcomes},
                                                      {u"breakers"_s, m_breakers},
                                                      {u"staircase"_s, m_staircase},
                                                      {u"latency"_s, m_scatter},
                                                      {u"dashboard"_s, centralWidget()}};
    // One stamp for the set; a second export within the same second gets "-2", "-3", ...
    const QString stamp = QDateTime::fromMSecsSinceEpoch(m_nowMs()).toString(u"yyyyMMdd-HHmmss"_s);
    const QDir dir(directory);
    QString suffix;
    for (int n = 2; std::any_of(charts.cbegin(), charts.cend(), [&](const auto &chart) {
             return QFileInfo::exists(dir.filePath(chart.first + u'-' + stamp + suffix + u".png"_s));
         }); ++n)
        suffix = u'-' + QString::number(n);
    for (const auto &[name, widget] : charts) {
        const QString path = dir.filePath(name + u'-' + stamp + suffix + u".png"_s);
        // Encoded here and written 0600, as every export: the charts show models, costs and errors.
        QByteArray png;
        QBuffer buffer(&png);
        if (!buffer.open(QIODevice::WriteOnly) || !widget->grab().save(&buffer, "PNG")) {
            *error = tr("could not draw %1").arg(path);
            return false;
        }
        if (const Result written = writePrivateFile(path, png); !written.ok()) {
            *error = tr("could not write %1").arg(written.error());
            return false;
        }
        if (written)
            written->append(path);
    }
    return true;
}

bool DashboardWindow::exportTable(const QString &path)
{
    // The table is filled only while its tab shows: bring it up to date, or an export from another
    // tab saves whatever it held when last seen (issue 27: "0 rows saved" from the Live tab).
    syncRequestTable();
    QString error;
    if (!m_requests->exportCsv(path, &error)) {
        QMessageBox::warning(this, tr("Export table"), tr("The table was not saved: %1.").arg(error));
        return false;
    }
    statusBar()->showMessage(tr("%1 rows saved to %2").arg(m_requests->rowCount()).arg(QDir::toNativeSeparators(path)), 15'000);
    return true;
}

void DashboardWindow::chooseExportCharts()
{
    const QString directory = QFileDialog::getExistingDirectory(this, tr("Export charts as PNG into"));
    if (directory.isEmpty())
        return;
    QString error;
    QStringList written;
    if (exportCharts(directory, &error, &written))
        statusBar()->showMessage(tr("%1 charts saved in %2 (%3, ...)").arg(written.size())
                                     .arg(QDir::toNativeSeparators(directory), QFileInfo(written.first()).fileName()), 15'000);
    else
        QMessageBox::warning(this, tr("Export charts"), tr("The charts were not saved: %1.").arg(error));
}

void DashboardWindow::chooseExportTable()
{
    const QString name = u"breakwater-requests-%1.csv"_s.arg(QDateTime::currentDateTime().toString(u"yyyyMMdd-HHmmss"_s));
    const QString path = QFileDialog::getSaveFileName(this, tr("Export the request table as CSV"), name,
                                                      tr("CSV files (*.csv)"));
    if (!path.isEmpty())
        exportTable(path);
}
