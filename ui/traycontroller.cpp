#include "traycontroller.h"

#include <QApplication>
#include <QClipboard>
#include <QDateTime>
#include <QMenu>
#include <QSystemTrayIcon>
#include <QWidget>

#include "dashboardmodel.h"
#include "dashboardstyle.h"
#include "democontroller.h"

using namespace Qt::StringLiterals;

namespace {
constexpr int kRefreshMs = 1000;
constexpr qint64 kSpendNoticeGapMs = 60'000;   // one spend-limit notice a minute, not one per refusal
} // namespace

TrayController *TrayController::install(const Wiring &wiring, bool trayAvailable, QObject *parent)
{
    if (!trayAvailable)
        return nullptr;
    QApplication::setQuitOnLastWindowClosed(false);   // the tray keeps the app; Quit is in its menu
    return new TrayController(wiring, parent);
}

TrayController::TrayController(const Wiring &wiring, QObject *parent)
    : QObject(parent)
    , m_wiring(wiring)
{
    m_menu = new QMenu;
    connect(m_menu->addAction(u"Open dashboard"_s), &QAction::triggered, this, &TrayController::showWindow);
    m_menu->addSeparator();
    connect(m_menu->addAction(u"Copy OpenAI base URL"_s), &QAction::triggered, this,
            [this] { QApplication::clipboard()->setText(m_wiring.openaiBaseUrl); });
    connect(m_menu->addAction(u"Copy Anthropic base URL"_s), &QAction::triggered, this,
            [this] { QApplication::clipboard()->setText(m_wiring.anthropicBaseUrl); });
    connect(m_menu->addAction(u"Copy export lines"_s), &QAction::triggered, this,
            [this] { QApplication::clipboard()->setText(environmentLines()); });
    if (m_wiring.demo) {
        m_menu->addSeparator();
        QMenu *demo = m_menu->addMenu(u"Demo scenarios"_s);
        m_wiring.demo->populate(demo);
    }
    m_menu->addSeparator();
    connect(m_menu->addAction(u"Quit Breakwater"_s), &QAction::triggered, qApp, &QCoreApplication::quit);

    m_icon = new QSystemTrayIcon(dashboardstyle::trayIcon(BreakerState::Closed), this);
    m_icon->setContextMenu(m_menu);
    connect(m_icon, &QSystemTrayIcon::activated, this, [this](QSystemTrayIcon::ActivationReason reason) {
        if (reason == QSystemTrayIcon::Trigger || reason == QSystemTrayIcon::DoubleClick)
            showWindow();
    });
    connect(m_wiring.model, &DashboardModel::breakerTransitioned, this, &TrayController::onTransition);
    connect(m_wiring.model, &DashboardModel::spendRefused, this, &TrayController::onSpendRefused);
    m_refresh.setInterval(kRefreshMs);
    connect(&m_refresh, &QTimer::timeout, this, &TrayController::refresh);
    m_refresh.start();
    refresh();
    m_icon->show();
}

TrayController::~TrayController()
{
    delete m_menu;   // a context menu has no parent widget to delete it
}

QString TrayController::environmentLines() const
{
    return u"export OPENAI_BASE_URL=%1\nexport ANTHROPIC_BASE_URL=%2\n"_s.arg(m_wiring.openaiBaseUrl,
                                                                          m_wiring.anthropicBaseUrl);
}

QString TrayController::toolTip() const
{
    const DashboardModel &model = *m_wiring.model;
    const DashboardModel::Totals &totals = model.totals();
    QStringList breakers;
    for (const QString &upstream : model.upstreams())
        breakers << upstream + u' ' + dashboardstyle::breakerLabel(model.breakerState(upstream));
    return u"Breakwater on %1\n%2 requests, %3 upstream calls, %4 joined, %5 cache hits\n"
           "in flight %6, queued %7\nbreakers: %8"_s
        .arg(m_wiring.openaiBaseUrl)
        .arg(totals.requests)
        .arg(totals.upstreamCalls())
        .arg(totals.count(DashboardModel::Category::Joined))
        .arg(totals.count(DashboardModel::Category::Hit))
        .arg(model.inFlight())
        .arg(model.queued())
        .arg(breakers.isEmpty() ? u"–"_s : breakers.join(u", "_s));
}

void TrayController::refresh()
{
    m_icon->setToolTip(toolTip());
    const BreakerState worst = m_wiring.model->worstBreakerState();
    if (worst != m_shownState) {
        m_shownState = worst;
        m_icon->setIcon(dashboardstyle::trayIcon(worst));
    }
}

void TrayController::onTransition(const BreakerTransition &transition)
{
    if (transition.to == BreakerState::Open) {
        notify(u"%1 breaker open"_s.arg(transition.upstream),
               u"Breakwater stopped calling %1: %2"_s.arg(transition.upstream, transition.reason), true);
    } else if (transition.to == BreakerState::Closed && transition.from != BreakerState::Closed) {
        notify(u"%1 breaker closed"_s.arg(transition.upstream),
               u"%1 answers again: %2"_s.arg(transition.upstream, transition.reason), false);
    }
    refresh();   // the icon's colour should not lag a second behind the notice
}

void TrayController::onSpendRefused(const CallRecord &)
{
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    if (now - m_lastSpendNoticeMs < kSpendNoticeGapMs)
        return;
    m_lastSpendNoticeMs = now;
    notify(u"Spend limit reached"_s, u"Breakwater is refusing calls that would pass today's spend limit."_s, true);
}

void TrayController::notify(const QString &title, const QString &message, bool warning)
{
    ++m_notifications;
    m_icon->showMessage(title, message, warning ? QSystemTrayIcon::Warning : QSystemTrayIcon::Information, 8000);
}

void TrayController::showWindow()
{
    m_wiring.window->show();
    m_wiring.window->raise();
    m_wiring.window->activateWindow();
}
