// The tray on a real desktop, offscreen: bringing a minimised dashboard back, a tray that appears
// after the app (the availability is injected and flipped), the grace that keeps the proxy alive
// meanwhile, the tooltip sent only when it changes, the state icon on notifications, the copied
// export lines, and the tray's names (custom upstreams, the title, the port).

#include "dashboardmodel.h"
#include "dashboardstyle.h"
#include "dashboardwindow.h"
#include "democontroller.h"
#include "proxyharness.h"
#include "proxyserver.h"
#include "traycontroller.h"
#include "traywatcher.h"

#include <QApplication>
#include <QClipboard>
#include <QMenu>
#include <QSignalSpy>
#include <QSystemTrayIcon>
#include <QTest>

using namespace Qt::StringLiterals;

namespace {

constexpr qint64 T = 1'800'000'000'000;

TrayController::Wiring wiringFor(DashboardModel *model, QWidget *window, quint16 port = 8080)
{
    return {model, window, u"http://127.0.0.1:%1/v1"_s.arg(port), u"http://127.0.0.1:%1"_s.arg(port), nullptr};
}

QAction *action(const TrayController &tray, const QString &text)
{
    for (QAction *candidate : tray.menu()->actions()) {
        if (candidate->text() == text)
            return candidate;
    }
    return nullptr;
}

CallRecord record(const QByteArray &id, qint64 at)
{
    CallRecord r;
    r.requestId = id;
    r.route = "/v1/chat/completions";
    r.upstream = "openai";
    r.outcome = Outcome::Miss;
    r.status = 200;
    r.receivedAtMs = at;
    r.endAtMs = at + 400;
    return r;
}

ProxySnapshot idleSnapshot(qint64 at)
{
    ProxySnapshot s;
    s.atMs = at;
    s.upstreams = {{"openai", BreakerState::Closed, 0, 0, 64}, {"anthropic", BreakerState::Closed, 0, 0, 64}};
    return s;
}

QImage pixels(const QIcon &icon)
{
    return icon.pixmap(QSize(22, 22)).toImage().convertToFormat(QImage::Format_ARGB32);
}

} // namespace

class TestTray final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void cleanup() { QApplication::setQuitOnLastWindowClosed(true); }

    void openDashboard_restoresMinimisedWindow_data();
    void openDashboard_restoresMinimisedWindow();
    void lateTray_isInstalledWhenItAppears();
    void lateTray_foundByTheTimer();
    void trayAtStart_installedAtOnce();
    void noTray_windowClosedInGrace_comesBackMinimised();
    void noTray_windowOpenAfterGrace_isTheAppAgain();
    void toolTip_sentOnlyWhenItChanges();
    void notification_carriesTheStateIcon();
    void copiedLines_carryKeyLines_data();
    void copiedLines_carryKeyLines();
    void upstreamNames_data();
    void upstreamNames();
    void customUpstream_namedByHostPort_inMessagesAndTooltip();
    void title_showsThePort();
};

void TestTray::openDashboard_restoresMinimisedWindow_data()
{
    QTest::addColumn<int>("how");   // 0: the menu's "Open dashboard", else an activation reason
    QTest::addColumn<bool>("maximised");
    QTest::newRow("menu") << 0 << false;
    QTest::newRow("click") << int(QSystemTrayIcon::Trigger) << false;
    QTest::newRow("double-click") << int(QSystemTrayIcon::DoubleClick) << false;
    QTest::newRow("menu, maximised before") << 0 << true;
}

void TestTray::openDashboard_restoresMinimisedWindow()
{
    QFETCH(int, how);
    QFETCH(bool, maximised);
    DashboardModel model;
    DashboardWindow window(&model);
    std::unique_ptr<TrayController> tray(TrayController::install(wiringFor(&model, &window), true));
    window.show();
    window.setWindowState(maximised ? Qt::WindowMaximized | Qt::WindowMinimized : Qt::WindowMinimized);
    QVERIFY(window.isMinimized());

    if (how == 0) {
        action(*tray, u"Open dashboard"_s)->trigger();
    } else {
        auto *icon = tray->findChild<QSystemTrayIcon *>();
        QVERIFY(icon);
        Q_EMIT icon->activated(QSystemTrayIcon::ActivationReason(how));
    }
    QVERIFY(!window.isMinimized());
    QVERIFY(window.isVisible());
    QCOMPARE(window.isMaximized(), maximised);

    // Closed to the tray (hidden, not minimised) comes back too.
    window.close();
    QVERIFY(!window.isVisible());
    action(*tray, u"Open dashboard"_s)->trigger();
    QVERIFY(window.isVisible());
    QVERIFY(!window.isMinimized());
}

void TestTray::lateTray_isInstalledWhenItAppears()
{
    DashboardModel model;
    DashboardWindow window(&model);
    bool available = false;
    int asked = 0;
    TrayWatcher watcher(wiringFor(&model, &window), [&] {
        ++asked;
        return available;
    });
    QSignalSpy installed(&watcher, &TrayWatcher::trayInstalled);
    QCOMPARE(asked, 1);
    QVERIFY(!watcher.tray());
    // Meanwhile the proxy must outlive a closed window.
    QVERIFY(watcher.isKeepingAlive());
    QVERIFY(!QApplication::quitOnLastWindowClosed());
    window.show();
    window.close();
    QVERIFY(!QApplication::quitOnLastWindowClosed());

    watcher.check();
    watcher.check();
    QCOMPARE(asked, 3);
    QVERIFY(!watcher.tray());

    available = true;
    watcher.check();
    QVERIFY(watcher.tray());
    QCOMPARE(installed.count(), 1);
    QVERIFY(!QApplication::quitOnLastWindowClosed());   // now the tray keeps the app
    QVERIFY(!watcher.isKeepingAlive());
    watcher.check();   // found: no more looking, no second tray
    QCOMPARE(asked, 4);
    QCOMPARE(installed.count(), 1);
    QVERIFY(action(*watcher.tray(), u"Open dashboard"_s));
}

void TestTray::lateTray_foundByTheTimer()
{
    DashboardModel model;
    DashboardWindow window(&model);
    bool available = false;
    TrayWatcher watcher(wiringFor(&model, &window), [&] { return available; });
    QVERIFY(!watcher.tray());
    available = true;
    QTRY_VERIFY_WITH_TIMEOUT(watcher.tray(), 5 * TrayWatcher::kCheckMs);
    QCOMPARE(watcher.checks(), 1);
}

void TestTray::trayAtStart_installedAtOnce()
{
    DashboardModel model;
    DashboardWindow window(&model);
    TrayWatcher watcher(wiringFor(&model, &window), [] { return true; });
    QVERIFY(watcher.tray());
    QVERIFY(!QApplication::quitOnLastWindowClosed());
    QVERIFY(!watcher.isKeepingAlive());
}

void TestTray::noTray_windowClosedInGrace_comesBackMinimised()
{
    DashboardModel model;
    DashboardWindow window(&model);
    TrayWatcher watcher(wiringFor(&model, &window), [] { return false; });
    window.show();
    window.close();
    for (int i = 1; i < TrayWatcher::kGraceChecks; ++i)
        watcher.check();
    QVERIFY(watcher.isKeepingAlive());
    QVERIFY(!window.isVisible());
    QVERIFY(!QApplication::quitOnLastWindowClosed());

    watcher.check();   // the grace is over: no tray, so the window is the app again
    QVERIFY(!watcher.isKeepingAlive());
    QVERIFY(QApplication::quitOnLastWindowClosed());
    QVERIFY(window.isVisible());
    QVERIFY(window.isMinimized());
    QVERIFY(!watcher.tray());
}

void TestTray::noTray_windowOpenAfterGrace_isTheAppAgain()
{
    DashboardModel model;
    DashboardWindow window(&model);
    bool available = false;
    TrayWatcher watcher(wiringFor(&model, &window), [&] { return available; });
    window.show();
    for (int i = 0; i < TrayWatcher::kGraceChecks; ++i)
        watcher.check();
    QVERIFY(QApplication::quitOnLastWindowClosed());
    QVERIFY(window.isVisible());
    QVERIFY(!window.isMinimized());

    // A tray that comes even later is still used.
    available = true;
    watcher.check();
    QVERIFY(watcher.tray());
    QVERIFY(!QApplication::quitOnLastWindowClosed());
}

void TestTray::toolTip_sentOnlyWhenItChanges()
{
    DashboardModel model;
    DashboardWindow window(&model);
    model.setSnapshot(idleSnapshot(T));
    std::unique_ptr<TrayController> tray(TrayController::install(wiringFor(&model, &window), true));
    auto *icon = tray->findChild<QSystemTrayIcon *>();
    QVERIFY(icon);
    QCOMPARE(tray->toolTipUpdates(), 1);
    QCOMPARE(icon->toolTip(), tray->toolTip());

    // Idle: seconds pass, snapshots keep coming, nothing changes.
    for (int second = 1; second <= 5; ++second) {
        model.setSnapshot(idleSnapshot(T + second * 1000));
        tray->refresh();
    }
    QCOMPARE(tray->toolTipUpdates(), 1);

    model.addRecord(record("r-1", T + 6000));
    tray->refresh();
    QCOMPARE(tray->toolTipUpdates(), 2);
    QVERIFY(icon->toolTip().contains(u"1 request,"_s));
    tray->refresh();
    QCOMPARE(tray->toolTipUpdates(), 2);
}

void TestTray::notification_carriesTheStateIcon()
{
    DashboardModel model;
    DashboardWindow window(&model);
    std::unique_ptr<TrayController> tray(TrayController::install(wiringFor(&model, &window), true));
    const QImage red = pixels(dashboardstyle::trayIcon(BreakerState::Open));
    const QImage green = pixels(dashboardstyle::trayIcon(BreakerState::Closed));
    QVERIFY(red != green);

    model.addTransition({u"openai"_s, T, BreakerState::Closed, BreakerState::Open, u"5 consecutive failures"_s});
    QCOMPARE(tray->notificationsShown(), 1);
    QCOMPARE(pixels(tray->lastNotificationIcon()), red);
    model.addTransition({u"openai"_s, T + 60000, BreakerState::Open, BreakerState::HalfOpen, u"probe succeeded"_s});
    QCOMPARE(tray->notificationsShown(), 1);   // half-open is shown by colour, not announced
    model.addTransition({u"openai"_s, T + 61000, BreakerState::HalfOpen, BreakerState::Closed, u"trial succeeded"_s});
    QCOMPARE(tray->notificationsShown(), 2);
    QCOMPARE(pixels(tray->lastNotificationIcon()), green);
}

void TestTray::copiedLines_carryKeyLines_data()
{
    QTest::addColumn<bool>("demo");
    QTest::addColumn<QString>("expected");
    // The demo's lines are the README's block, ports aside.
    QTest::newRow("demo") << true
                          << u"export OPENAI_BASE_URL=http://127.0.0.1:%1/v1 OPENAI_API_KEY=sk-demo\n"
                             "export ANTHROPIC_BASE_URL=http://127.0.0.1:%1 ANTHROPIC_API_KEY=sk-ant-demo\n"_s;
    QTest::newRow("real providers") << false
                                    << u"export OPENAI_BASE_URL=http://127.0.0.1:%1/v1\n"
                                       "export ANTHROPIC_BASE_URL=http://127.0.0.1:%1\n"
                                       "# export OPENAI_API_KEY=...     (your own keys: Breakwater passes them through)\n"
                                       "# export ANTHROPIC_API_KEY=...\n"_s;
}

void TestTray::copiedLines_carryKeyLines()
{
    QFETCH(bool, demo);
    QFETCH(QString, expected);
    ProxyHarness harness;
    DashboardModel model;
    DashboardWindow window(&model);
    DemoController demoController(&model, harness.port(), harness.mock(), harness.config());
    TrayController::Wiring wiring = wiringFor(&model, &window, harness.port());
    wiring.demo = demo ? &demoController : nullptr;
    std::unique_ptr<TrayController> tray(TrayController::install(wiring, true));
    expected = expected.arg(harness.port());
    QCOMPARE(tray->environmentLines(), expected);

    QApplication::clipboard()->clear();
    action(*tray, u"Copy export lines"_s)->trigger();
    QCOMPARE(QApplication::clipboard()->text(), expected);
}

void TestTray::upstreamNames_data()
{
    QTest::addColumn<QString>("upstream");
    QTest::addColumn<QUrl>("url");
    QTest::addColumn<QString>("expected");
    QTest::newRow("openai itself") << u"openai"_s << QUrl(u"https://api.openai.com/v1"_s) << u"openai"_s;
    QTest::newRow("anthropic itself") << u"anthropic"_s << QUrl(u"https://api.anthropic.com"_s) << u"anthropic"_s;
    QTest::newRow("demo: no url") << u"openai"_s << QUrl() << u"openai"_s;
    QTest::newRow("local server") << u"openai"_s << QUrl(u"http://127.0.0.1:1/v1"_s) << u"127.0.0.1:1"_s;
    QTest::newRow("default http port") << u"openai"_s << QUrl(u"http://127.0.0.1/v1"_s) << u"127.0.0.1:80"_s;
    QTest::newRow("https elsewhere") << u"anthropic"_s << QUrl(u"https://llm.example.com"_s) << u"llm.example.com:443"_s;
    QTest::newRow("ipv6") << u"openai"_s << QUrl(u"http://[::1]:8000/v1"_s) << u"[::1]:8000"_s;
}

void TestTray::upstreamNames()
{
    QFETCH(QString, upstream);
    QFETCH(QUrl, url);
    QFETCH(QString, expected);
    DashboardModel model;
    DashboardWindow window(&model);
    TrayController::Wiring wiring = wiringFor(&model, &window);
    (upstream == u"openai"_s ? wiring.openaiUpstream : wiring.anthropicUpstream) = url;
    TrayController tray(wiring);
    QCOMPARE(tray.upstreamName(upstream), expected);
}

void TestTray::customUpstream_namedByHostPort_inMessagesAndTooltip()
{
    DashboardModel model;
    DashboardWindow window(&model);
    TrayController::Wiring wiring = wiringFor(&model, &window);
    wiring.openaiUpstream = QUrl(u"http://127.0.0.1:1/v1"_s);
    wiring.anthropicUpstream = QUrl(u"https://api.anthropic.com"_s);
    TrayController tray(wiring);
    model.setSnapshot(idleSnapshot(T));
    model.addTransition({u"openai"_s, T, BreakerState::Closed, BreakerState::Open, u"5 consecutive failures"_s});
    QCOMPARE(tray.lastNotification(), u"127.0.0.1:1 breaker open\n"
                                       "Breakwater :8080 stopped calling 127.0.0.1:1: 5 consecutive failures"_s);
    QVERIFY(tray.toolTip().contains(u"breakers: 127.0.0.1:1 open, anthropic closed"_s));
    QVERIFY(!tray.toolTip().contains(u"openai"_s));
    model.addTransition({u"openai"_s, T + 1000, BreakerState::Open, BreakerState::Closed, u"trial succeeded"_s});
    QCOMPARE(tray.lastNotification(), u"127.0.0.1:1 breaker closed\n"
                                       "Breakwater :8080 calls 127.0.0.1:1 again: trial succeeded"_s);
}

void TestTray::title_showsThePort()
{
    DashboardModel model;
    DashboardWindow window(&model);
    TrayController first(wiringFor(&model, &window, 8080));
    TrayController second(wiringFor(&model, &window, 8081));
    QCOMPARE(first.title(), u"Breakwater :8080"_s);
    QCOMPARE(second.title(), u"Breakwater :8081"_s);
    // The title comes first: D-Bus hosts get the whole tooltip as its title (Qt has no subtitle).
    QCOMPARE(first.toolTip().section(u'\n', 0, 0), u"Breakwater :8080"_s);
    QCOMPARE(first.toolTip().section(u'\n', 1, 1), u"http://127.0.0.1:8080/v1"_s);
    QCOMPARE(second.toolTip().section(u'\n', 0, 0), u"Breakwater :8081"_s);
}

QTEST_MAIN(TestTray)
#include "tst_tray.moc"
