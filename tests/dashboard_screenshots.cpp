// dashboard_screenshots: runs the real dashboard against a real Breakwater and its mock provider,
// plays the demo's scenarios (herd, outage, hang, a burst at full concurrency and one at a time) and
// saves the window after each as a PNG (and the In flight list during the hang), at the size the window opens with on each screen size
// given (default 1366x768, a laptop, and 1920x1080): herd-1366x768.png, ... Not a ctest test: run
// it under xvfb-run (or QT_QPA_PLATFORM=offscreen) to refresh the README's pictures.
//
//   xvfb-run -a dashboard_screenshots OUTPUT_DIR [OUTAGE_TIME_SCALE] [WIDTHxHEIGHT ...]
//
// The outage is time-scaled (default 0.2: one prompt every 0.4 s for 30 s, 503s from 3 s to
// 15 s) so a run takes about a minute; the herd and the bursts run at the field test's speed.
// Last, fault injection: the demo's injected hang with two more rules armed from the Faults tab,
// seen on the Live tab (injected-hang-*.png) and on the Faults tab (faults-*.png); then a burst
// while admission is paused (paused-admission-*.png). The outage is also saved in the dark theme
// (outage-dark-*.png). Under LANGUAGE=zh_CN only the outage pair is saved, as outage-zh_CN-*.png
// and outage-dark-zh_CN-*.png. Then the fallback scenario at its worst, the provider answering 529
// and a second one standing in (fallback-*.png, and its Requests tab); SCREENSHOTS_ONLY=fallback
// takes only that one. Last, where redis-server is installed, a fleet (--shared-state): this
// Breakwater and two more processes on one Redis, its Fleet tab (fleet-*.png);
// BREAKWATER_SCREENSHOTS=fleet takes only that one.

#include <cstdio>

#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTest>

#include "apptranslation.h"
#include "dashboardmodel.h"
#include "dashboardwindow.h"
#include "democontroller.h"
#include "desktopapp.h"
#include "inflightpanel.h"
#include "faultcontrol.h"
#include "faultspanel.h"
#include "fleet/redistarget.h"
#include "fleetpanel.h"
#include "fleettest.h"
#include "livecontrol.h"
#include "proxyharness.h"
#include "requestpanel.h"

using namespace Qt::StringLiterals;
using namespace std::chrono_literals;

namespace {

bool runScenario(DemoController &demo, const std::function<bool()> &start)
{
    QSignalSpy finished(demo.scenarios(), &DemoScenarios::finished);
    if (!start())
        return false;
    return finished.wait(10 * 60 * 1000);
}

// A translated run's pictures say their language; it saves only the outage's.
QString g_language;

// Saves `name`-WxH.png for each screen size, the window at the size it opens with there.
void save(DashboardWindow &window, const QString &directory, QString name, const QList<QSize> &screens)
{
    if (!g_language.isEmpty() && !name.startsWith(u"outage"_s))
        return;
    if (!g_language.isEmpty())
        name += u'-' + g_language;
    QTest::qWait(1200);   // a redraw tick and the last snapshot
    for (const QSize &screen : screens) {
        window.resize(DashboardWindow::defaultSize(QRect(QPoint(), screen)));
        QTest::qWait(50);   // the layout settles
        window.redraw();
        const QString path = QDir(directory).filePath(u"%1-%2x%3.png"_s.arg(name).arg(screen.width()).arg(screen.height()));
        if (!window.grab().save(path))
            std::fprintf(stderr, "cannot write %s\n", qPrintable(path));
        else
            std::printf("saved %s\n", qPrintable(path));
    }
}

// The window says where `harness` listens and calls, as the app's does.
void pointAt(DashboardWindow &window, const ProxyHarness &harness, bool demo)
{
    window.setProxyInfo(harness.proxy()->baseUrl(), demo);
    window.setUpstreamUrl(u"openai"_s, harness.config().openaiUpstream.toString());
    window.setUpstreamUrl(u"anthropic"_s, harness.config().anthropicUpstream.toString());
}

// A fleet of three on one Redis: this Breakwater in the process (its window) and two `breakwater`
// processes, all calling one mock. A herd spread over the three (one call for the fleet) and
// different prompts on each (4, 3 and 2 calls); the Fleet tab once every instance lists all three.
void saveFleet(const QString &directory, const QList<QSize> &screens)
{
    if (QStandardPaths::findExecutable(u"redis-server"_s).isEmpty()) {
        std::fprintf(stderr, "no redis-server: no fleet picture\n");
        return;
    }
    FleetTest fleet(QStringLiteral(BREAKWATER_APP));
    if (!fleet.startRedis() || fleet.startInstance() < 0 || fleet.startInstance() < 0) {
        std::fprintf(stderr, "the fleet did not start: no fleet picture\n");
        return;
    }
    fleet.onMock<int>([](MockProvider *mock) { mock->setLatency(400ms); return 0; });
    ProxyHarness here([&fleet](ProxyConfig &config) {
        config.sharedState = parseRedisTarget(fleet.redisUrl()).value();
        config.openaiUpstream = fleet.mock()->openaiBaseUrl();
        config.anthropicUpstream = fleet.mock()->anthropicBaseUrl();
    });
    DashboardModel model;
    connectProxyToModel(here.proxy(), &model);
    DashboardWindow window(&model);
    pointAt(window, here, false);
    window.show();
    window.setWindowMs(60'000);
    if (!QTest::qWaitFor([&] { return model.snapshot().fleet.shared; }, 10'000))
        std::fprintf(stderr, "this instance never shared the fleet's state\n");
    const QList<quint16> ports{here.port(), fleet.port(0), fleet.port(1)};
    const HeaderList headers{{"Authorization", "Bearer sk-fleet-picture"}, {"Content-Type", "application/json"}};
    QList<LoopbackClient *> calls;
    const auto send = [&](quint16 port, const QString &prompt) {
        auto *call = new LoopbackClient(port, "POST", "/v1/chat/completions", headers, chatBody(prompt));
        call->setTimeout(30s);
        call->start();
        calls.append(call);
    };
    for (int i = 0; i < 30; ++i)
        send(ports[i % 3], u"one herd for the whole fleet"_s);
    for (int i = 0; i < 9; ++i)
        send(ports[i < 4 ? 0 : i < 7 ? 1 : 2], u"a prompt of its own, %1"_s.arg(i));
    if (!QTest::qWaitFor([&] { return allFinished(calls); }, 60'000))
        std::fprintf(stderr, "some calls never finished\n");
    qDeleteAll(calls);
    // Each instance's figures ride on its next heartbeat, read back a second later.
    if (!QTest::qWaitFor([&] { return model.snapshot().fleet.totals().requests == 39; }, 10'000))
        std::fprintf(stderr, "the fleet view did not count all 39 requests\n");
    window.tabs()->setCurrentWidget(window.fleetPanel());
    save(window, directory, u"fleet"_s, screens);
}

} // namespace

int main(int argc, char *argv[])
{
    QApplication app(argc, argv);
    if (apptranslation::install(&app, QLocale::system()))
        g_language = QLocale::system().name();
    const QString out = argc > 1 ? QString::fromLocal8Bit(argv[1]) : u"docs/screenshots"_s;
    const double outageScale = argc > 2 ? QString::fromLocal8Bit(argv[2]).toDouble() : 0.2;
    QList<QSize> screens;
    for (int i = 3; i < argc; ++i) {
        const QStringList size = QString::fromLocal8Bit(argv[i]).split(u'x');
        if (size.size() == 2 && size[0].toInt() > 0 && size[1].toInt() > 0)
            screens.append(QSize(size[0].toInt(), size[1].toInt()));
    }
    if (screens.isEmpty())
        screens = {QSize(1366, 768), QSize(1920, 1080)};
    QDir().mkpath(out);
    if (qEnvironmentVariable("BREAKWATER_SCREENSHOTS") == u"fleet"_s) {
        saveFleet(out, screens);
        return 0;
    }

    // As `breakwater --demo`: the mock answers in 400 ms; the proxy runs with the defaults.
    ProxyHarness harness([](ProxyConfig &config) { config.upstreamTimeout = 5s; });   // as --demo
    harness.mock()->setLatency(400ms);
    DashboardModel model;
    connectProxyToModel(harness.proxy(), &model);
    DashboardWindow window(&model);
    pointAt(window, harness, true);
    DemoController demo(&model, harness.port(), harness.mock(), harness.config());
    window.setDemoController(&demo);
    faultcontrol::connectPanel(window.faultsPanel(), harness.proxy());
    window.show();
    window.setWindowMs(60'000);
    QTest::qWait(500);

    DemoScenarios::Options options = demo.scenarios()->options();
    // 8. A fallback during an outage (time-scaled): seen while the provider answers 529, its breaker
    //    open, every prompt answered by the stand-in (gold in the charts), the refused attempts in
    //    the table.
    const auto fallback = [&] {
        window.tabs()->setCurrentIndex(0);
        window.clearAll();
        options.timeScale = outageScale;
        demo.scenarios()->setOptions(options);
        QSignalSpy finished(demo.scenarios(), &DemoScenarios::finished);
        demo.startFallback();
        const auto faultBegins = std::chrono::milliseconds(qint64(15000 * outageScale));
        QTest::qWait(int((faultBegins + 6s).count()));
        window.setStaircaseBars(60);
        save(window, out, u"fallback"_s, screens);
        window.tabs()->setCurrentIndex(1);
        save(window, out, u"fallback-requests"_s, {screens.first()});
        window.tabs()->setCurrentIndex(0);
        finished.wait(10 * 60 * 1000);
        options.timeScale = 1.0;
        demo.scenarios()->setOptions(options);
    };
    if (qEnvironmentVariable("SCREENSHOTS_ONLY") == u"fallback"_s) {
        fallback();
        return 0;
    }

    // 0. The first start: nothing yet, so the window says how to point an app at it.
    save(window, out, u"start"_s, screens);

    // Each picture starts from a cleared view (the toolbar's Clear), so it shows one scenario.
    const auto clear = [&] {
        window.clearAll();
    };

    // 1. A herd of 200 identical requests: one upstream call, 199 riders.
    clear();
    runScenario(demo, [&] { return demo.scenarios()->start(DemoScenarios::Scenario::Herd); });
    window.setStaircaseBars(200);
    save(window, out, u"herd"_s, screens);

    // 2. An outage in steady traffic (time-scaled) right after the herd, not cleared: the breaker
    //    opens after 5 failures, refuses, and closes once the provider answers again; its 0.5
    //    refusals a second read on their own axis beside the herd's hundreds.
    options.timeScale = outageScale;
    demo.scenarios()->setOptions(options);
    runScenario(demo, [&] { return demo.scenarios()->start(DemoScenarios::Scenario::Outage); });
    options.timeScale = 1.0;
    demo.scenarios()->setOptions(options);
    window.setStaircaseBars(100);
    save(window, out, u"outage"_s, screens);
    window.setTheme(apptheme::Theme::Dark);
    save(window, out, u"outage-dark"_s, screens);
    window.setTheme(apptheme::Theme::System);

    // 3. A hang (time-scaled likewise, the 5 s timeout not), seen while it happens: calls stuck in
    //    flight as growing bars, the breaker opened by the first timeout and the calls it proved stuck.
    options.timeScale = outageScale;
    demo.scenarios()->setOptions(options);
    clear();
    {
        QSignalSpy finished(demo.scenarios(), &DemoScenarios::finished);
        demo.scenarios()->start(DemoScenarios::Scenario::Hang);
        const auto hangBegins = std::chrono::milliseconds(qint64(15000 * outageScale));
        QElapsedTimer sinceStart;
        sinceStart.start();
        // 3a. The In flight list while the calls hang, before the 5 s timeout ends them.
        QTest::qWait(int((hangBegins + 2500ms).count()));
        window.tabs()->setCurrentWidget(window.inFlight());
        save(window, out, u"inflight"_s, {screens.first()});
        window.tabs()->setCurrentIndex(0);
        QTest::qWait(int(std::max<qint64>((hangBegins + 5s + 1500ms).count() - sinceStart.elapsed(), 0)));
        window.setStaircaseBars(60);
        save(window, out, u"hang"_s, screens);
        finished.wait(10 * 60 * 1000);
    }
    options.timeScale = 1.0;
    demo.scenarios()->setOptions(options);

    // 4. Twenty different prompts: a wall at the default concurrency, then a staircase one at a time.
    clear();
    runScenario(demo, [&] { return demo.startBurst(harness.config().concurrency); });
    QTest::qWait(1000);
    runScenario(demo, [&] { return demo.startBurst(1); });
    window.setStaircaseBars(40);
    save(window, out, u"staircase"_s, screens);

    // 5. The request table with the slowest stair selected.
    window.tabs()->setCurrentIndex(1);
    window.requests()->selectRow(0);
    save(window, out, u"requests"_s, screens);

    // 6. Fault injection: the injected hang (time-scaled, the 5 s timeout not) opens the breaker while
    //    the strip says what is armed; two more rules from the panel's preset and its text field.
    window.tabs()->setCurrentIndex(0);
    clear();
    options.timeScale = outageScale;
    demo.scenarios()->setOptions(options);
    {
        QSignalSpy finished(demo.scenarios(), &DemoScenarios::finished);
        demo.scenarios()->start(DemoScenarios::Scenario::InjectedHang);
        const auto hangBegins = std::chrono::milliseconds(qint64(15000 * outageScale));
        QTest::qWait(int((hangBegins + 300ms).count()));
        FaultsPanel *faults = window.faultsPanel();
        faults->presetButton(u"529:upstream=anthropic:for=60s"_s)->click();
        faults->ruleField()->setText(u"cut=3:model=gpt-4o-mini:p=50"_s);
        faults->addRule();
        QTest::qWait(int((5s + 1500ms).count()));
        window.setStaircaseBars(60);
        save(window, out, u"injected-hang"_s, screens);
        window.tabs()->setCurrentWidget(faults);
        save(window, out, u"faults"_s, screens);
        faultcontrol::clear(harness.proxy());
        finished.wait(10 * 60 * 1000);
    }
    options.timeScale = 1.0;
    demo.scenarios()->setOptions(options);

    // 7. Admission paused (the proxy panel's toggle, as a user would): a burst is refused with 503
    //    while the strip, the timeline's band and the tray say admission is paused.
    window.tabs()->setCurrentIndex(0);
    clear();
    livecontrol::setAdmissionPaused(harness.proxy(), true);
    runScenario(demo, [&] { return demo.startBurst(harness.config().concurrency); });
    window.setStaircaseBars(40);
    save(window, out, u"paused-admission"_s, screens);
    livecontrol::setAdmissionPaused(harness.proxy(), false);

    fallback();
    // 9. A fleet on one Redis, its Fleet tab.
    saveFleet(out, screens);
    return 0;
}
