// The dashboard's panels and its size: the window on a 1366x768 screen (every chart, tile, control
// and the staircase's legend whole), remembered geometry, the proxy strip (listen URL, each
// upstream's health and its health probe's last answer), the first-start guidance, and the request
// table's filters, details and typed CSV.

#include "dashboardfixture.h"
#include "dashboardmodel.h"
#include "dashboardwindow.h"
#include "desktopapp.h"
#include "fakeclock.h"
#include "figurespanel.h"
#include "gettingstarted.h"
#include "latencyscatter.h"
#include "latencystaircase.h"
#include "breakertimeline.h"
#include "mockprovider.h"
#include "outcomechart.h"
#include "proxyharness.h"
#include "proxypanel.h"
#include "requestpanel.h"

#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QDir>
#include <QLabel>
#include <QPushButton>
#include <QScreen>
#include <QSettings>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

using namespace Qt::StringLiterals;
using namespace std::chrono_literals;
using namespace dashboardtest;

// A window shown at `geometry` saves it, as a session's last window would.
bool saveWindowAt(DashboardModel &model, const QRect &geometry, QSettings &settings)
{
    DashboardWindow window(&model);
    window.show();
    if (!QTest::qWaitForWindowExposed(&window))
        return false;
    window.setGeometry(geometry);
    window.saveGeometryTo(settings);
    return true;
}

class TestDashboardPanels final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void window_fitsALaptopScreen();
    void window_remembersItsGeometry();
    void window_savedOnABiggerScreen_isFittedToThisOne();
    void proxyPanel_showsListenUrlAndUpstreamHealth();
    void proxyPanel_showsTheLastProbe();
    void gettingStarted_namesTheActualPort();
    void table_filtersSelectsAndExports();
    void table_csvIsTyped();
};

void TestDashboardPanels::window_fitsALaptopScreen()
{
    QScreen *screen = QGuiApplication::primaryScreen();
    QCOMPARE(screen->availableGeometry().size(), QSize(1366, 768));   // main() set it up
    DashboardModel model;
    DashboardWindow window(&model);
    window.setProxyInfo(u"http://127.0.0.1:8080/v1"_s, true);
    window.setClock([] { return T + 30000; });
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    feed(model, recording());
    window.redraw();
    QApplication::processEvents();   // the layout settles

    QVERIFY2(screen->availableGeometry().contains(window.frameGeometry()),
             qPrintable(u"frame %1x%2"_s.arg(window.frameGeometry().width()).arg(window.frameGeometry().height())));
    const QSize minimum = window.minimumSizeHint().expandedTo(window.minimumSize());
    QVERIFY2(minimum.width() <= 1000 && minimum.height() <= 600,
             qPrintable(u"minimum %1x%2"_s.arg(minimum.width()).arg(minimum.height())));

    // Each thing a user looks for is whole on screen: both breaker tiles, the staircase's range,
    // the status bar's info and the listen address.
    const QList<QLabel *> labels = window.figures()->findChildren<QLabel *>();
    for (const QString &caption : {u"openai breaker"_s, u"anthropic breaker"_s}) {
        const auto it = std::find_if(labels.cbegin(), labels.cend(), [&](const QLabel *l) { return l->text() == caption; });
        QVERIFY2(it != labels.cend(), qPrintable(caption));
        QVERIFY2(wholeInWindow((*it)->parentWidget()), qPrintable(caption));
    }
    QVERIFY(wholeInWindow(window.staircaseRangeChoice()));
    // The staircase's legend, to its last entry (it wraps at this width rather than cut it).
    const QRect staircase = window.staircase()->rect();
    for (const QRect &entry : window.staircase()->legendRects())
        QVERIFY2(staircase.contains(entry), qPrintable(u"legend entry at %1..%2 of %3"_s.arg(entry.left()).arg(entry.right()).arg(staircase.width())));
    QVERIFY(wholeInWindow(window.statusInfo()));
    QVERIFY(wholeInWindow(window.proxyPanel()));
    // The charts too, without scrolling the Live tab.
    for (QWidget *chart : std::initializer_list<QWidget *>{window.outcomeChart(), window.breakerTimeline(),
                                                           window.latencyScatter(), window.staircase()})
        QVERIFY2(wholeInWindow(chart), chart->metaObject()->className());

    // The default size follows the screen: a 4K screen at scale 2 is 1920x1080 device-independent.
    QVERIFY(QRect(0, 0, 1920, 1080).contains(QRect(QPoint(), DashboardWindow::defaultSize(QRect(0, 0, 1920, 1080)))));
    QCOMPARE(DashboardWindow::defaultSize(QRect(0, 0, 3840, 2160)), QSize(1600, 1000));
}

void TestDashboardPanels::window_remembersItsGeometry()
{
    QTemporaryDir dir;
    QSettings settings(dir.filePath(u"s.ini"_s), QSettings::IniFormat);
    DashboardModel model;
    QVERIFY(saveWindowAt(model, QRect(40, 30, 1100, 640), settings));
    DashboardWindow again(&model);
    QVERIFY(again.size() != QSize(1100, 640));
    again.restoreGeometryFrom(settings);
    QCOMPARE(again.size(), QSize(1100, 640));
    QCOMPARE(again.pos(), QPoint(40, 30));
}

// Saved at 1520x900 on a big monitor, opened on the laptop's 1366x768: the window must fit the
// screen it opens on (size and position), or its right part and bottom are out of reach.
void TestDashboardPanels::window_savedOnABiggerScreen_isFittedToThisOne()
{
    const QRect available = QGuiApplication::primaryScreen()->availableGeometry();
    QTemporaryDir dir;
    QSettings settings(dir.filePath(u"s.ini"_s), QSettings::IniFormat);
    DashboardModel model;
    QVERIFY(saveWindowAt(model, QRect(300, 200, 1520, 900), settings));
    DashboardWindow again(&model);
    again.restoreGeometryFrom(settings);
    again.show();
    QVERIFY(QTest::qWaitForWindowExposed(&again));
    QVERIFY2(available.contains(again.frameGeometry()),
             qPrintable(u"frame %1,%2 %3x%4 on %5x%6"_s.arg(again.frameGeometry().x()).arg(again.frameGeometry().y())
                            .arg(again.frameGeometry().width()).arg(again.frameGeometry().height())
                            .arg(available.width()).arg(available.height())));

    // Maximised stays maximised.
    {
        DashboardWindow window(&model);
        window.showMaximized();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.saveGeometryTo(settings);
    }
    DashboardWindow maximised(&model);
    maximised.restoreGeometryFrom(settings);
    QVERIFY(maximised.isMaximized() || maximised.windowState().testFlag(Qt::WindowMaximized));
}

void TestDashboardPanels::proxyPanel_showsListenUrlAndUpstreamHealth()
{
    DashboardModel model;
    DashboardWindow window(&model);
    window.setProxyInfo(u"http://127.0.0.1:54321/v1"_s, false);
    window.setUpstreamUrl(u"openai"_s, u"https://api.openai.com/v1"_s);
    // A gateway's user and password in the URL are never on screen.
    window.setUpstreamUrl(u"anthropic"_s, u"http://gw-user:gw-pass-1@10.0.0.7:9000"_s);
    ProxySnapshot s = snapshot(T, BreakerState::Closed, 0, 0);
    s.upstreams[0].consecutiveFailures = 3;
    s.upstreams[0].failureThreshold = 5;
    s.upstreams[0].lastFailure = u"503"_s;
    s.upstreams[0].lastFailureAtMs = T - 2000;
    s.upstreams[1].failureThreshold = 5;
    model.setSnapshot(s);
    window.redraw();
    QCOMPARE(window.proxyPanel()->listenUrl(), u"http://127.0.0.1:54321/v1"_s);
    const QString openai = window.proxyPanel()->upstreamText(u"openai"_s);
    QVERIFY2(openai.contains(u"https://api.openai.com/v1"_s) && openai.contains(u"closed"_s)
                 && openai.contains(u"3 of 5 failures"_s) && openai.contains(u"last error 503 at"_s),
             qPrintable(openai));
    const QString anthropic = window.proxyPanel()->upstreamText(u"anthropic"_s);
    QVERIFY2(anthropic.contains(u"http://10.0.0.7:9000"_s) && anthropic.contains(u"no errors"_s), qPrintable(anthropic));
    QVERIFY2(!anthropic.contains(u"gw-pass"_s) && !anthropic.contains(u"gw-user"_s), qPrintable(anthropic));

    // Open: the cool-down left is shown, in whole seconds, as at most (a probe may end it sooner).
    s.upstreams[0].breakerState = BreakerState::Open;
    s.upstreams[0].consecutiveFailures = 5;
    s.upstreams[0].cooldownLeftMs = 12'000;
    model.setSnapshot(s);
    window.redraw();
    const QString open = window.proxyPanel()->upstreamText(u"openai"_s);
    QVERIFY2(open.contains(u"open"_s) && open.contains(u"trial in ≤ 12 s (sooner if a probe answers)"_s), qPrintable(open));

    // From a real proxy: the snapshot carries the breaker's threshold and failures.
    ProxyHarness harness([](ProxyConfig &config) { config.breakerFailures = 4; });
    DashboardModel live;
    connectProxyToModel(harness.proxy(), &live);
    QTRY_VERIFY(live.snapshot().upstreams.size() == 2);
    QCOMPARE(live.snapshot().upstreams[0].failureThreshold, 4);
    QCOMPARE(live.snapshot().upstreams[0].consecutiveFailures, 0);
    QVERIFY(live.snapshot().upstreams[0].lastFailure.isEmpty());
}

void TestDashboardPanels::proxyPanel_showsTheLastProbe()
{
    DashboardModel model;
    DashboardWindow window(&model);
    window.setUpstreamUrl(u"openai"_s, u"https://api.openai.com/v1"_s);
    ProxySnapshot s = snapshot(T, BreakerState::Open, 0, 0);
    s.upstreams[0].failureThreshold = 5;
    s.upstreams[0].consecutiveFailures = 5;
    model.setSnapshot(s);
    window.redraw();
    // Open and not asked yet.
    QVERIFY2(window.proxyPanel()->upstreamText(u"openai"_s).contains(u"no probe yet"_s),
             qPrintable(window.proxyPanel()->upstreamText(u"openai"_s)));
    QVERIFY(!window.proxyPanel()->upstreamText(u"anthropic"_s).contains(u"probe"_s));   // closed, never probed

    const QString at = QDateTime::fromMSecsSinceEpoch(T + 3000).toString(u"HH:mm:ss"_s);
    s.upstreams[0].lastProbeAtMs = T + 3000;
    s.upstreams[0].lastProbeResult = u"503"_s;
    model.setSnapshot(s);
    window.redraw();
    QString text = window.proxyPanel()->upstreamText(u"openai"_s);
    QVERIFY2(text.contains(u"probe 503 (down) at %1"_s.arg(at)) && !text.contains(u"no probe yet"_s), qPrintable(text));

    // The provider answered: half-open, and the probe that said so stays on show.
    s.upstreams[0].breakerState = BreakerState::HalfOpen;
    s.upstreams[0].lastProbeResult = u"200"_s;
    s.upstreams[0].lastProbeAlive = true;
    model.setSnapshot(s);
    window.redraw();
    text = window.proxyPanel()->upstreamText(u"openai"_s);
    QVERIFY2(text.contains(u"probe 200 (up) at %1"_s.arg(at)), qPrintable(text));

    // From a real proxy: the probe's answer and its time (the proxy's clock) reach the snapshot.
    FakeClock clock;
    ProxyHarness harness([](ProxyConfig &config) {
        config.breakerFailures = 1;
        config.breakerCooldown = 60s;
        config.breakerProbeInterval = 50ms;
    }, &clock);
    harness.mock()->setMode(MockProvider::Mode::Error503);
    DashboardModel live;
    connectProxyToModel(harness.proxy(), &live);
    QCOMPARE(harness.post("/v1/chat/completions", chatBody(u"down"_s)).status, 503);
    QTRY_VERIFY_WITH_TIMEOUT(!live.snapshot().upstreams.isEmpty() && live.snapshot().upstreams[0].lastProbeAtMs > 0, 10000);
    const UpstreamSnapshot probed = live.snapshot().upstreams[0];
    QCOMPARE(probed.breakerState, BreakerState::Open);
    QCOMPARE(probed.lastProbeResult, u"503"_s);
    QVERIFY(!probed.lastProbeAlive);
    QCOMPARE(probed.lastProbeAtMs, clock.wallMs());   // the fake clock stood still
    QCOMPARE(live.snapshot().upstreams[1].lastProbeAtMs, 0);   // anthropic's breaker never opened
}

void TestDashboardPanels::gettingStarted_namesTheActualPort()
{
    ProxyHarness harness;   // listens on port 0: only the running proxy knows its port
    const QString port = QString::number(harness.port());
    DashboardModel model;
    DashboardWindow window(&model);
    window.setProxyInfo(harness.proxy()->baseUrl(), false);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.redraw();
    GettingStarted *guide = window.gettingStarted();
    QVERIFY(guide->isVisible());
    const QString text = guide->text();
    QVERIFY2(text.contains(u"export OPENAI_BASE_URL=http://127.0.0.1:%1/v1"_s.arg(port)), qPrintable(text));
    QVERIFY2(text.contains(u"export ANTHROPIC_BASE_URL=http://127.0.0.1:%1\n"_s.arg(port)), qPrintable(text));

    auto *copy = guide->findChild<QPushButton *>(u"copyAnthropic"_s);
    QVERIFY(copy);
    copy->click();
    QCOMPARE(QApplication::clipboard()->text(), u"export ANTHROPIC_BASE_URL=http://127.0.0.1:%1"_s.arg(port));
    guide->findChild<QPushButton *>(u"copyOpenai"_s)->click();
    QCOMPARE(QApplication::clipboard()->text(), u"export OPENAI_BASE_URL=http://127.0.0.1:%1/v1"_s.arg(port));

    // The first call puts the charts in its place.
    model.addRecord(record("first", Outcome::Miss, T, T + 400));
    window.redraw();
    QVERIFY(!guide->isVisible());
}

void TestDashboardPanels::table_filtersSelectsAndExports()
{
    DashboardModel model;
    RequestPanel panel;
    feed(model, recording());
    panel.refresh(model);
    QCOMPARE(panel.totalRowCount(), 24);
    panel.setOutcomeFilter(u"joined"_s);
    QCOMPARE(panel.rowCount(), 9);
    panel.setOutcomeFilter(QString());
    panel.setStatusFilter(u"5xx"_s);
    QCOMPARE(panel.rowCount(), 9);   // 5 upstream 503s + 4 refusals
    panel.setStatusFilter(u"503"_s);
    QCOMPARE(panel.rowCount(), 9);
    panel.setOutcomeFilter(u"miss"_s);
    QCOMPARE(panel.rowCount(), 5);
    panel.setModelFilter(u"gpt-4o-mini"_s);
    QCOMPARE(panel.rowCount(), 5);

    panel.selectRow(0);
    const QString details = panel.detailsText();
    QVERIFY2(details.contains(u"a1b2c3d4e5f6"_s), qPrintable(details));   // key fingerprint
    QVERIFY(details.contains(u"outcome"_s) && details.contains(u"miss"_s));
    QVERIFY(details.contains(u"tokens"_s) && details.contains(u"in 12, out 30"_s));
    QVERIFY(details.contains(u"$0.0020"_s));
    QVERIFY(!details.contains(u"sk-"_s));

    const QStringList lines = panel.toCsv().split(u"\r\n"_s, Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 1 + 5);
    QVERIFY(lines.first().startsWith(u"arrival,outcome,status"_s));
    QTemporaryDir dir;
    QString error;
    const mode_t previous = ::umask(022);
    QVERIFY(panel.exportCsv(dir.filePath(u"t.csv"_s), &error));
    ::umask(previous);
    QFile file(dir.filePath(u"t.csv"_s));
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(file.readAll().count("\r\n"), 6);
    // The owner's only, like the call log it comes from, whatever the umask.
    struct stat info {};
    QCOMPARE(::stat(QFile::encodeName(file.fileName()).constData(), &info), 0);
    QCOMPARE(info.st_mode & 0777, mode_t(0600));

    // Rows from the call log fill the table and, as every other view, the figures.
    DashboardModel withHistory;
    withHistory.addHistory({record("old-0", Outcome::Miss, T - 5000, T - 4000), record("old-1", Outcome::Hit, T - 3000, T - 2999)});
    withHistory.addRecord(record("now-0", Outcome::Miss, T, T + 500));
    RequestPanel historyPanel;
    historyPanel.refresh(withHistory);
    QCOMPARE(historyPanel.totalRowCount(), 3);
    QCOMPARE(withHistory.totals().requests, 3);

    // New records arrive on top and the table stays bounded.
    panel.setOutcomeFilter(QString());
    panel.setStatusFilter(QString());
    for (int i = 0; i < 3000; ++i)
        model.addRecord(record("more" + QByteArray::number(i), Outcome::Hit, T + 40000 + i, T + 40001 + i));
    panel.refresh(model);
    QCOMPARE(panel.totalRowCount(), 2000);
}

void TestDashboardPanels::table_csvIsTyped()
{
    DashboardModel model;
    RequestPanel panel;
    CallRecord timedOut = record("t-1", Outcome::Error, T + 1000, T + 61'000, 504);
    timedOut.errorKind = "timeout";
    CallRecord cheap = record("c-1", Outcome::Miss, T, T + 400);
    cheap.costUsd = 0.000001;
    cheap.cachedTokens = 4;
    model.addRecord(cheap);
    model.addRecord(timedOut);
    panel.refresh(model);
    const QStringList lines = panel.toCsv().split(u"\r\n"_s, Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 3);
    const QStringList header = lines[0].split(u',');
    for (const QString &column : {u"arrival"_s, u"error"_s, u"input_tokens"_s, u"output_tokens"_s,
                                  u"cached_tokens"_s, u"cost_usd"_s, u"total_ms"_s})
        QVERIFY2(header.contains(column), qPrintable(column));
    const auto row = [&](const QByteArray &id) {
        for (const QString &line : lines) {
            const QStringList fields = line.split(u',');
            if (fields.last() == QString::fromLatin1(id))
                return fields;
        }
        return QStringList();
    };
    const auto field = [&](const QStringList &fields, const QString &column) { return fields.value(header.indexOf(column)); };
    const QStringList c = row("c-1");
    const QDateTime arrival = QDateTime::fromString(field(c, u"arrival"_s), Qt::ISODateWithMs);
    QVERIFY2(arrival.isValid(), qPrintable(field(c, u"arrival"_s)));
    QCOMPARE(arrival.toMSecsSinceEpoch(), T);   // with the date and the UTC offset: one instant
    QVERIFY(field(c, u"arrival"_s).contains(u'T'));
    QCOMPARE(field(c, u"cost_usd"_s), u"0.000001"_s);   // a number, no "$", no exponent
    QCOMPARE(field(c, u"input_tokens"_s), u"12"_s);
    QCOMPARE(field(c, u"output_tokens"_s), u"30"_s);
    QCOMPARE(field(c, u"cached_tokens"_s), u"4"_s);
    QCOMPARE(field(c, u"total_ms"_s), u"400"_s);
    const QStringList t = row("t-1");
    QCOMPARE(field(t, u"error"_s), u"timeout"_s);
    QCOMPARE(field(t, u"status"_s), u"504"_s);
    QCOMPARE(field(t, u"cost_usd"_s), QString());   // unknown: empty, not "–"
    QCOMPARE(field(t, u"input_tokens"_s), QString());

    // The window says where the file went and how many rows it holds.
    DashboardWindow window(&model);
    window.redraw();
    QTemporaryDir dir;
    const QString path = dir.filePath(u"calls.csv"_s);
    QVERIFY(window.exportTable(path));
    const QString message = window.statusBar()->currentMessage();
    QVERIFY2(message.contains(u"2 rows"_s) && message.contains(QDir::toNativeSeparators(path)), qPrintable(message));
}

DASHBOARD_TEST_MAIN(TestDashboardPanels)

#include "tst_dashboardpanels.moc"
