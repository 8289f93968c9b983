#include "dashboardwindow.h"

#include <QAction>
#include <QComboBox>
#include <QDateTime>
#include <QDir>
#include <QFileDialog>
#include <QGridLayout>
#include <QGroupBox>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>
#include <QStatusBar>
#include <QTabWidget>
#include <QToolBar>
#include <QToolButton>
#include <QVBoxLayout>

#include "breakertimeline.h"
#include "dashboardmodel.h"
#include "dashboardstyle.h"
#include "democontroller.h"
#include "figurespanel.h"
#include "latencyscatter.h"
#include "latencystaircase.h"
#include "outcomechart.h"
#include "requestpanel.h"

using namespace Qt::StringLiterals;

namespace {

// A titled frame around one chart, with room for a control at the right of the title.
QGroupBox *framed(const QString &title, QWidget *content, QWidget *control = nullptr)
{
    auto *box = new QGroupBox;
    auto *layout = new QVBoxLayout(box);
    layout->setContentsMargins(6, 4, 6, 6);
    layout->setSpacing(2);
    auto *header = new QHBoxLayout;
    auto *label = new QLabel(title);
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

    m_barsChoice = new QComboBox;
    for (const int bars : {20, 40, 100, 200})
        m_barsChoice->addItem(u"last %1 requests"_s.arg(bars), bars);
    m_barsChoice->setCurrentIndex(3);
    connect(m_barsChoice, &QComboBox::currentIndexChanged, this, [this] {
        m_staircase->setBarLimit(m_barsChoice->currentData().toInt());
        m_staircase->refresh(*m_model);
    });

    auto *live = new QWidget;
    auto *grid = new QGridLayout(live);
    grid->setContentsMargins(4, 4, 4, 4);
    grid->addWidget(framed(u"Outcomes over time (requests per second, stacked)"_s, m_outcomes), 0, 0);
    grid->addWidget(framed(u"Breaker timeline"_s, m_breakers), 1, 0);
    grid->addWidget(framed(u"Latency vs arrival time"_s, m_scatter), 2, 0);
    grid->addWidget(framed(u"Latency staircase: arrival to last byte, by arrival"_s, m_staircase, m_barsChoice), 0, 1, 3, 1);
    grid->setRowStretch(0, 5);
    grid->setRowStretch(1, 0);
    grid->setRowStretch(2, 4);
    grid->setColumnStretch(0, 1);
    grid->setColumnStretch(1, 1);

    m_tabs = new QTabWidget;
    m_tabs->addTab(live, u"Live"_s);
    m_tabs->addTab(m_requests, u"Requests"_s);
    connect(m_tabs, &QTabWidget::currentChanged, this, [this] { draw(false); });   // catch up at once

    auto *central = new QWidget;
    auto *layout = new QVBoxLayout(central);
    layout->setContentsMargins(6, 6, 6, 0);
    layout->addWidget(m_figures);
    layout->addWidget(m_tabs, 1);
    setCentralWidget(central);

    buildToolBar();
    m_demoStatus = new QLabel;
    m_proxyInfo = new QLabel;
    statusBar()->addWidget(m_demoStatus, 1);
    statusBar()->addPermanentWidget(m_proxyInfo);

    m_redrawTimer.setInterval(kRedrawIntervalMs);
    connect(&m_redrawTimer, &QTimer::timeout, this, &DashboardWindow::onTick);
    m_redrawTimer.start();
    resize(1400, 900);
}

void DashboardWindow::buildToolBar()
{
    QToolBar *bar = addToolBar(u"Dashboard"_s);
    bar->setMovable(false);
    bar->setToolButtonStyle(Qt::ToolButtonTextOnly);
    m_pauseAction = bar->addAction(u"Pause"_s);
    m_pauseAction->setCheckable(true);
    m_pauseAction->setToolTip(u"Freeze the live view; events are still collected"_s);
    connect(m_pauseAction, &QAction::toggled, this, &DashboardWindow::setPaused);

    QAction *clear = bar->addAction(u"Clear"_s);
    clear->setToolTip(u"Start the figures, outcome charts and table afresh (breaker history stays)"_s);
    connect(clear, &QAction::triggered, this, [this] {
        m_model->clear();
        redraw();
    });

    bar->addSeparator();
    bar->addWidget(new QLabel(u" Window "_s));
    m_windowChoice = new QComboBox;
    for (const int minutes : {1, 5, 15})
        m_windowChoice->addItem(u"%1 min"_s.arg(minutes), minutes * 60'000);
    m_windowChoice->setCurrentIndex(1);
    connect(m_windowChoice, &QComboBox::currentIndexChanged, this,
            [this] { setWindowMs(m_windowChoice->currentData().toLongLong()); });
    bar->addWidget(m_windowChoice);

    bar->addSeparator();
    connect(bar->addAction(u"Export charts…"_s), &QAction::triggered, this, &DashboardWindow::chooseExportCharts);
    connect(bar->addAction(u"Export table…"_s), &QAction::triggered, this, &DashboardWindow::chooseExportTable);
    bar->addSeparator();
    connect(bar->addAction(u"Settings…"_s), &QAction::triggered, this, [this] {
        if (m_openSettings)
            m_openSettings();
    });
    m_demoButton = new QToolButton;
    m_demoButton->setText(u"Demo scenarios"_s);
    m_demoButton->setPopupMode(QToolButton::InstantPopup);
    m_demoButton->setMenu(new QMenu(m_demoButton));
    bar->addSeparator();
    m_demoMenuAction = bar->addWidget(m_demoButton);
    m_demoMenuAction->setVisible(false);   // only in --demo
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
    m_pauseAction->setText(paused ? u"Resume"_s : u"Pause"_s);
    setWindowTitle(paused ? u"Breakwater (paused)"_s : u"Breakwater"_s);
    if (!paused)
        redraw();
}

void DashboardWindow::setStaircaseBars(int bars)
{
    const int index = m_barsChoice->findData(bars);
    if (index >= 0)
        m_barsChoice->setCurrentIndex(index);
}

void DashboardWindow::setProxyInfo(const QString &baseUrl, bool demo)
{
    m_proxyInfo->setText(u"listening on %1%2"_s.arg(baseUrl, demo ? u"  ·  demo mode (mock provider)"_s : QString()));
}

void DashboardWindow::setDemoController(DemoController *demo)
{
    m_demoButton->menu()->clear();
    m_demoMenuAction->setVisible(demo != nullptr);
    if (!demo)
        return;
    demo->populate(m_demoButton->menu());
    connect(demo, &DemoController::statusChanged, m_demoStatus, &QLabel::setText);
}

void DashboardWindow::setSettingsHandler(std::function<void()> openSettings)
{
    m_openSettings = std::move(openSettings);
}

void DashboardWindow::onTick()
{
    // Nobody sees a hidden or paused window: the model keeps collecting, drawing waits.
    if (m_paused || !isVisible())
        return;
    draw(false);
}

void DashboardWindow::draw(bool everything)
{
    const qint64 now = m_nowMs();
    const qint64 from = now - m_windowMs;
    // Calls in flight age with the clock: their bars and the oldest one's age move without events.
    const bool inFlight = m_model->oldestInFlightMs() > 0;
    if (m_model->revision() != m_drawnRevision || inFlight) {
        m_drawnRevision = m_model->revision();
        m_figures->refresh(*m_model, now);
    }
    // The charts only while their tab shows; they also scroll with time, so not only on change.
    if (everything || m_tabs->currentIndex() == 0) {
        m_outcomes->refresh(*m_model, from, now);
        m_breakers->refresh(*m_model, from, now);
        if (everything || now - m_scatterDrawnAtMs >= kScatterIntervalMs) {
            m_scatterDrawnAtMs = now;
            m_scatter->refresh(*m_model, from, now);
        }
        if (m_staircaseRevision != m_model->revision() || inFlight) {
            m_staircaseRevision = m_model->revision();
            m_staircase->refresh(*m_model, now);
        }
    }
    if ((everything || m_tabs->currentIndex() == 1) && m_tableRevision != m_model->revision()) {
        m_tableRevision = m_model->revision();
        m_requests->refresh(*m_model);
    }
    ++m_redraws;
}

bool DashboardWindow::exportCharts(const QString &directory, QString *error) const
{
    const QList<std::pair<QString, QWidget *>> charts{{u"outcomes.png"_s, m_outcomes},
                                                      {u"breakers.png"_s, m_breakers},
                                                      {u"staircase.png"_s, m_staircase},
                                                      {u"latency.png"_s, m_scatter},
                                                      {u"dashboard.png"_s, centralWidget()}};
    for (const auto &[name, widget] : charts) {
        const QString path = QDir(directory).filePath(name);
        if (!widget->grab().save(path, "PNG")) {
            *error = u"could not write %1"_s.arg(path);
            return false;
        }
    }
    return true;
}

void DashboardWindow::chooseExportCharts()
{
    const QString directory = QFileDialog::getExistingDirectory(this, u"Export charts as PNG into"_s);
    if (directory.isEmpty())
        return;
    QString error;
    if (exportCharts(directory, &error))
        statusBar()->showMessage(u"Charts saved in %1"_s.arg(directory), 5000);
    else
        QMessageBox::warning(this, u"Export charts"_s, u"The charts were not saved: %1."_s.arg(error));
}

void DashboardWindow::chooseExportTable()
{
    const QString path = QFileDialog::getSaveFileName(this, u"Export the request table as CSV"_s,
                                                      u"breakwater-requests.csv"_s, u"CSV files (*.csv)"_s);
    if (path.isEmpty())
        return;
    QString error;
    if (m_requests->exportCsv(path, &error))
        statusBar()->showMessage(u"%1 rows saved to %2"_s.arg(m_requests->rowCount()).arg(path), 5000);
    else
        QMessageBox::warning(this, u"Export table"_s, u"The table was not saved: %1."_s.arg(error));
}
