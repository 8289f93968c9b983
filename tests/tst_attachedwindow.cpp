// The window of `breakwater --attach URL` (ui/attachedsession.h) against a real Breakwater on
// loopback: it says it is attached to the remote (TLS or cleartext) and never that it listens
// here; its Settings dialog edits the remote's live settings and says so when the remote refuses;
// the calls on the remote's record before the attach are drawn, replotted when older than the
// live window.
// Offscreen widgets, real sockets through ProxyHarness; counts, never timings.

#include "accounting/calllog.h"
#include "attach/remotecontrol.h"
#include "attach/remotefeed.h"
#include "attachedsession.h"
#include "breakertimeline.h"
#include "dashboardfixture.h"
#include "dashboardmodel.h"
#include "dashboardwindow.h"
#include "figurespanel.h"
#include "latencystaircase.h"
#include "outcomechart.h"
#include "proxyharness.h"
#include "proxypanel.h"
#include "remotetokens.h"
#include "settingsdialog.h"

#include <QAction>
#include <QDateTime>
#include <QFile>
#include <QFileInfo>
#include <QApplication>
#include <QDoubleSpinBox>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QScreen>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QStatusBar>
#include <QTimer>
#include <QSignalSpy>
#include <QTest>

using namespace Qt::StringLiterals;

namespace {

const QString kTlsData = QStringLiteral(BREAKWATER_TEST_DATA) + u"/tls/"_s;

std::unique_ptr<AttachedSession> attachTo(const QUrl &remote, const QString &caFile = {})
{
    Expected<std::unique_ptr<AttachedSession>> opened = AttachedSession::open({remote, kTestControlToken, caFile, false, {}});
    if (!opened.ok())
        qFatal("cannot attach: %s", qPrintable(opened.error()));
    return std::move(opened).value();
}

// Every label's text in the window, shown or not.
QStringList labelTexts(const QWidget *window)
{
    QStringList texts;
    for (const QLabel *label : window->findChildren<QLabel *>())
        texts << label->text();
    return texts;
}

QAction *settingsAction(const QWidget *window)
{
    for (QAction *action : window->findChildren<QAction *>()) {
        if (action->text() == u"Settings…"_s)
            return action;
    }
    return nullptr;
}

// Opens Settings from the toolbar and lets `answer` fill the dialog before OK; false when no
// dialog came.
bool answerSettings(QWidget *window, const std::function<void(SettingsDialog *)> &answer)
{
    bool opened = false;
    QTimer::singleShot(0, window, [&] {
        auto *dialog = qobject_cast<SettingsDialog *>(QApplication::activeModalWidget());
        if (!dialog)
            return;
        opened = true;
        answer(dialog);
        dialog->accept();
    });
    settingsAction(window)->trigger();
    QCoreApplication::processEvents();   // the timer, when no dialog ran its own loop
    return opened;
}

// The remote's call log, as app/main.cpp gives it one: the event stream opens with its latest rows.
bool giveCallLog(ProxyHarness &harness, CallLog &log, const QString &path)
{
    if (!log.open(path).ok())
        return false;
    QObject::connect(harness.proxy(), &ProxyServer::callCompleted, &log,
                     [&log](const CallRecord &r) { log.append(r); }, Qt::DirectConnection);
    return harness.onProxyThread<bool>([&log](ProxyServer *proxy) {
        proxy->setCallHistory([&log](int limit) {
            log.flush();
            return log.recent(limit);
        });
        return true;
    });
}

// Three answers, the breaker opened by hand, two refusals: five calls on the remote's record.
void playOutage(ProxyHarness &harness)
{
    const qsizetype records = harness.records.size();
    for (int i = 0; i < 3; ++i)
        QCOMPARE(harness.post("/v1/chat/completions", chatBody(u"before %1"_s.arg(i))).status, 200);
    QCOMPARE(harness.control("POST", "/breakwater/breaker/openai/open").status, 200);
    for (int i = 0; i < 2; ++i)
        QCOMPARE(harness.post("/v1/chat/completions", chatBody(u"refused %1"_s.arg(i))).status, 503);
    QTRY_COMPARE(harness.records.size(), records + 5);
}

// Answers every token dialog that comes up with `token` (an empty one: Cancel), as a person would.
class TokenAnswerer final : public QObject
{
public:
    explicit TokenAnswerer(QByteArray token) : m_token(std::move(token))
    {
        m_poll.setInterval(10);
        connect(&m_poll, &QTimer::timeout, this, [this] {
            auto *dialog = qobject_cast<QInputDialog *>(QApplication::activeModalWidget());
            if (!dialog || dialog->objectName() != u"controlTokenDialog"_s)
                return;
            label = dialog->labelText();
            echo = dialog->textEchoMode();
            if (m_token.isEmpty()) {
                dialog->reject();
                return;
            }
            dialog->setTextValue(QString::fromUtf8(m_token));
            dialog->accept();
        });
        m_poll.start();
    }
    QString label;
    QLineEdit::EchoMode echo = QLineEdit::Normal;

private:
    QByteArray m_token;
    QTimer m_poll;
};

qint64 remoteTimeoutMs(const ProxyHarness &harness)
{
    return harness.onProxyThread<qint64>([](ProxyServer *p) { return qint64(p->liveSettings().timeout.count()); });
}

} // namespace

class TestAttachedWindow final : public QObject
{
    Q_OBJECT
private slots:
    void window_saysAttachedToTheRemote_neverListening_data();
    void window_saysAttachedToTheRemote_neverListening();
    void settings_editTheRemotesLiveSettings();
    void settings_refusedByTheRemote_saysWhy();
    void history_drawnFromTheOpeningSnapshot();
    void history_olderThanTheWindow_replottedUntilALiveCall();
    void token_askedOnceWhenRefused_andKeptForTheRemote();
    void token_cancelled_notAskedAgain();
    void window_nothingCut_atTheLaptopsSize_data();
    void window_nothingCut_atTheLaptopsSize();
};

void TestAttachedWindow::window_saysAttachedToTheRemote_neverListening_data()
{
    QTest::addColumn<bool>("tls");
    QTest::newRow("cleartext") << false;
    QTest::newRow("TLS") << true;
}

void TestAttachedWindow::window_saysAttachedToTheRemote_neverListening()
{
    QFETCH(bool, tls);
    ProxyHarness harness([tls](ProxyConfig &config) {
        if (tls) {
            config.tlsCertFile = kTlsData + u"server.pem"_s;
            config.tlsKeyFile = kTlsData + u"server.key"_s;
        }
    });
    // https names the test certificate's host.
    const QString remote = tls ? u"https://localhost:%1"_s.arg(harness.port()) : u"http://127.0.0.1:%1"_s.arg(harness.port());
    const auto session = attachTo(QUrl(remote + u"/"_s), tls ? kTlsData + u"ca.pem"_s : QString());
    DashboardWindow *window = session->window();
    QSignalSpy connected(session->feed(), &RemoteFeed::connected);
    session->start();
    window->show();
    QTRY_COMPARE(connected.size(), 1);
    window->redraw();

    const ProxyPanel *panel = window->proxyPanel();
    QCOMPARE(panel->titleText(), u"Attached to"_s);
    QCOMPARE(panel->listenUrl(), remote);
    QVERIFY2(panel->listenText().contains(tls ? u"TLS"_s : u"loopback"_s), qPrintable(panel->listenText()));
    const QString status = window->statusInfo()->text();
    QVERIFY2(status.startsWith(u"attached to "_s + remote), qPrintable(status));
    QVERIFY2(status.contains(tls ? u"(TLS)"_s : u"cleartext"_s), qPrintable(status));
    for (const QString &text : labelTexts(window))
        QVERIFY2(!text.contains(u"listening"_s, Qt::CaseInsensitive), qPrintable(text));
    QVERIFY(window->isAttached());
}

void TestAttachedWindow::settings_editTheRemotesLiveSettings()
{
    ProxyHarness harness;
    const auto session = attachTo(QUrl(u"http://127.0.0.1:%1"_s.arg(harness.port())));
    session->start();
    session->window()->show();
    QTRY_VERIFY(!session->model()->snapshot().upstreams.isEmpty());
    const qint64 before = remoteTimeoutMs(harness);
    QVERIFY(before != 7500);
    QSignalSpy answered(session->control(), &RemoteControl::answered);

    double shownTimeout = -1;
    bool listenEditable = true;
    QString note;
    QVERIFY(answerSettings(session->window(), [&](SettingsDialog *dialog) {
        shownTimeout = dialog->findChild<QDoubleSpinBox *>(u"timeout"_s)->value();
        listenEditable = dialog->findChild<QLineEdit *>(u"listen"_s)->isEnabled();
        note = dialog->findChild<QLabel *>(u"note"_s)->text();
        dialog->findChild<QDoubleSpinBox *>(u"timeout"_s)->setValue(7.5);
        dialog->findChild<QSpinBox *>(u"concurrency"_s)->setValue(3);
    }));
    // It opened with the remote's values and said whose they are.
    QCOMPARE(qint64(shownTimeout * 1000), before);
    QVERIFY(!listenEditable);
    QVERIFY2(note.contains(session->remote()), qPrintable(note));
    QTRY_COMPARE(answered.size(), 1);
    QCOMPARE(answered.first().first().toInt(), 200);
    QCOMPARE(remoteTimeoutMs(harness), 7500);
    QCOMPARE(harness.onProxyThread<int>([](ProxyServer *p) { return p->liveSettings().concurrency; }), 3);
    const QString said = session->window()->statusBar()->currentMessage();
    QVERIFY2(said.contains(u"Applied to"_s) && said.contains(u"timeout"_s), qPrintable(said));
    // And the next snapshot shows it, as the remote's own window would.
    QTRY_COMPARE(session->model()->snapshot().settings.timeout.count(), 7500);
}

void TestAttachedWindow::settings_refusedByTheRemote_saysWhy()
{
    auto harness = std::make_unique<ProxyHarness>();
    const quint16 port = harness->port();
    const auto session = attachTo(QUrl(u"http://127.0.0.1:%1"_s.arg(port)));
    session->start();
    session->window()->show();
    QTRY_VERIFY(!session->model()->snapshot().upstreams.isEmpty());
    // The owner made a new control token and restarted it: this window's is no longer the owner's.
    harness.reset();
    harness = std::make_unique<ProxyHarness>([port](ProxyConfig &config) {
        config.listenPort = port;
        config.controlToken = "a-new-owner-token-0123456789abcdefghijklmnop";
    });
    const qint64 before = remoteTimeoutMs(*harness);
    QSignalSpy answered(session->control(), &RemoteControl::answered);
    QVERIFY(answerSettings(session->window(), [](SettingsDialog *dialog) {
        dialog->findChild<QDoubleSpinBox *>(u"timeout"_s)->setValue(4);
    }));
    QTRY_COMPARE(answered.size(), 1);
    QCOMPARE(answered.first().first().toInt(), 401);
    auto *refused = session->window()->findChild<QMessageBox *>(u"settingsRefused"_s);
    QVERIFY(refused);
    QTRY_VERIFY(refused->isVisible());
    QVERIFY2(refused->text().contains(u"401"_s) && refused->text().contains(u"control token"_s), qPrintable(refused->text()));
    QVERIFY2(refused->text().contains(u"timeout"_s), qPrintable(refused->text()));
    QCOMPARE(remoteTimeoutMs(*harness), before);
    refused->close();
}

void TestAttachedWindow::history_drawnFromTheOpeningSnapshot()
{
    QTemporaryDir dir;
    CallLog log;
    ProxyHarness harness;
    QVERIFY(giveCallLog(harness, log, dir.filePath(u"calls.sqlite"_s)));
    playOutage(harness);   // before anyone attached
    const qint64 firstMs = harness.records.first().receivedAtMs, lastMs = harness.records.last().endAtMs;

    const auto session = attachTo(QUrl(u"http://127.0.0.1:%1"_s.arg(harness.port())));
    DashboardWindow *window = session->window();
    window->resize(1366, 768);
    session->start();
    window->show();
    QTRY_COMPARE(session->model()->totals().requests, 5);
    window->redraw();
    // Every view shows the calls from before the attach, none of which came as a live event.
    QCOMPARE(session->model()->history().calls, 5);
    QVERIFY(window->outcomeChart()->pointCount() > 0);
    QVERIFY2(window->outcomeChart()->peakRate() > 0, "no answered call drawn");
    QVERIFY2(window->outcomeChart()->peakFailureRate() > 0, "no refusal drawn");
    QCOMPARE(window->staircase()->barCount(), 5);
    QVERIFY2(!window->staircase()->historyNote().isEmpty(), "the staircase does not say where its bars come from");
    QVERIFY2(window->breakerTimeline()->bandCount() >= 2, "the breaker's closed and open time not drawn");
    // A past interval replots from them too.
    window->replotInterval(firstMs - 1000, lastMs + 1000);
    QVERIFY2(window->replotText().contains(u"5 calls"_s), qPrintable(window->replotText()));
    QCOMPARE(window->staircase()->barCount(), 5);
    window->backToLive();
}

void TestAttachedWindow::history_olderThanTheWindow_replottedUntilALiveCall()
{
    QTemporaryDir dir;
    CallLog log;
    ProxyHarness harness;
    QVERIFY(giveCallLog(harness, log, dir.filePath(u"calls.sqlite"_s)));
    playOutage(harness);

    const auto session = attachTo(QUrl(u"http://127.0.0.1:%1"_s.arg(harness.port())));
    DashboardWindow *window = session->window();
    // The laptop attaches 40 minutes after that traffic: all of it before the 5-minute window.
    window->setClock([] { return QDateTime::currentMSecsSinceEpoch() + 40 * 60'000; });
    window->resize(1366, 768);
    session->start();
    window->show();
    QTRY_COMPARE(session->model()->totals().requests, 5);
    QTRY_VERIFY2(window->isReplotting(), "the charts show an empty live window");
    QVERIFY2(window->replotText().contains(u"5 calls"_s), qPrintable(window->replotText()));
    QVERIFY(window->outcomeChart()->peakRate() > 0);
    QVERIFY(window->outcomeChart()->peakFailureRate() > 0);
    QCOMPARE(window->staircase()->barCount(), 5);
    QVERIFY(window->breakerTimeline()->bandCount() >= 2);
    // The first call that happens now: back to live.
    QCOMPARE(harness.control("POST", "/breakwater/breaker/openai/close").status, 200);
    QCOMPARE(harness.post("/v1/chat/completions", chatBody(u"now"_s)).status, 200);
    QTRY_COMPARE(session->model()->totals().requests, 6);
    QVERIFY(!window->isReplotting());
}

void TestAttachedWindow::token_askedOnceWhenRefused_andKeptForTheRemote()
{
    ProxyHarness harness;
    QTemporaryDir dir;
    const QString kept = dir.filePath(u"breakwater/attach-tokens.json"_s);
    const QUrl remote(u"http://127.0.0.1:%1"_s.arg(harness.port()));
    // No --control-token, and this user's own token (another Breakwater's) is not the remote's.
    TokenAnswerer answerer(kTestControlToken);
    {
        auto opened = AttachedSession::open({remote, "this-laptops-own-token-0123456789abcdefghijk", {}, false, kept});
        QVERIFY(opened.ok());
        const auto session = std::move(opened).value();
        QSignalSpy connected(session->feed(), &RemoteFeed::connected);
        session->start();
        session->window()->show();
        QTRY_COMPARE(connected.size(), 1);
        QCOMPARE(session->tokenRequests(), 1);
        QCOMPARE(answerer.echo, QLineEdit::Password);
        QVERIFY2(answerer.label.contains(RemoteTokens::key(remote)), qPrintable(answerer.label));
        // Its buttons act with it too.
        QSignalSpy answered(session->control(), &RemoteControl::answered);
        session->control()->setAdmissionPaused(true);
        QTRY_COMPARE(answered.size(), 1);
        QCOMPARE(answered.first().first().toInt(), 200);
        QTRY_VERIFY(QFileInfo::exists(kept));
        QVERIFY2(session->window()->statusBar()->currentMessage().contains(kept),
                 qPrintable(session->window()->statusBar()->currentMessage()));
    }
    // Kept for that remote, only its owner may read it.
    QCOMPARE(QFile::permissions(kept) & 0x7077,   // owner, group and others (0600)
             QFile::ReadOwner | QFile::WriteOwner);
    QCOMPARE(RemoteTokens(kept).tokenFor(remote), kTestControlToken);
    QCOMPARE(RemoteTokens(kept).tokenFor(QUrl(u"http://127.0.0.1:1"_s)), QByteArray());
    // The next attach (as main() picks the kept token): nothing asked.
    auto opened = AttachedSession::open({remote, RemoteTokens(kept).tokenFor(remote), {}, false, kept});
    const auto again = std::move(opened).value();
    QSignalSpy connected(again->feed(), &RemoteFeed::connected);
    again->start();
    QTRY_COMPARE(connected.size(), 1);
    QCOMPARE(again->tokenRequests(), 0);
}

void TestAttachedWindow::token_cancelled_notAskedAgain()
{
    ProxyHarness harness;
    QTemporaryDir dir;
    const QString kept = dir.filePath(u"attach-tokens.json"_s);
    TokenAnswerer answerer({});   // Cancel
    auto opened = AttachedSession::open({QUrl(u"http://127.0.0.1:%1"_s.arg(harness.port())), {}, {}, false, kept});
    const auto session = std::move(opened).value();
    QSignalSpy disconnected(session->feed(), &RemoteFeed::disconnected);
    session->start();
    session->window()->show();
    // Refused again and again while it retries, asked once.
    QTRY_VERIFY_WITH_TIMEOUT(disconnected.size() >= 3, 20'000);
    QCOMPARE(session->tokenRequests(), 1);
    QVERIFY(!session->feed()->isConnected());
    QVERIFY(!QFileInfo::exists(kept));
    QVERIFY2(session->window()->statusBar()->currentMessage().contains(u"control token"_s),
             qPrintable(session->window()->statusBar()->currentMessage()));
}

void TestAttachedWindow::window_nothingCut_atTheLaptopsSize_data()
{
    QTest::addColumn<bool>("gemini");
    QTest::newRow("openai and anthropic") << false;
    QTest::newRow("and gemini") << true;
}

void TestAttachedWindow::window_nothingCut_atTheLaptopsSize()
{
    // An outage on the remote, attached as a laptop of 1366x768 opens the window. With Gemini in
    // use too, a third upstream line leaves the charts less height (the attached window's
    // outcome titles were cut to "requests/s, s…").
    QFETCH(bool, gemini);
    QTemporaryDir dir;
    CallLog log;
    ProxyHarness harness([](ProxyConfig &config) { config.geminiUpstream = config.anthropicUpstream; });
    QVERIFY(giveCallLog(harness, log, dir.filePath(u"calls.sqlite"_s)));
    if (gemini) {
        QCOMPARE(harness.post("/v1beta/models/mock-gemini:generateContent",
                              R"({"contents":[{"role":"user","parts":[{"text":"hello gemini"}]}]})",
                              {{"x-goog-api-key", "AIza-test-1"}, {"Content-Type", "application/json"}}).status, 200);
    }
    playOutage(harness);
    const auto session = attachTo(QUrl(u"http://127.0.0.1:%1"_s.arg(harness.port())));
    DashboardWindow *window = session->window();
    session->start();
    window->show();
    QVERIFY(QTest::qWaitForWindowExposed(window));
    QCOMPARE(window->screen()->geometry().size(), QSize(1366, 768));
    QTRY_COMPARE(session->model()->totals().requests, gemini ? 6 : 5);
    QTRY_COMPARE(session->model()->snapshot().upstreams.size(), gemini ? 3 : 2);
    window->redraw();
    QCoreApplication::processEvents();
    QVERIFY(window->outcomeChart()->failureAxisShown());
    // Three breakers in one tile, coloured by the worst: the outage opened openai's.
    QCOMPARE(window->figures()->figure(u"breakers"_s), gemini ? u"1 open"_s : QString());
    for (int tab = 0; tab < window->tabs()->count(); ++tab) {
        window->tabs()->setCurrentIndex(tab);
        window->redraw();
        QCoreApplication::processEvents();
        // Three breaker tiles go to a row of their own: nothing scrolls sideways either way.
        const QStringList cut = dashboardtest::cutTexts(window) + dashboardtest::cutChartTexts(window);
        QVERIFY2(cut.isEmpty(), qPrintable(window->tabs()->tabText(tab) + u": "_s + cut.join(u"; "_s)));
    }
    window->tabs()->setCurrentIndex(0);
    window->redraw();
    QCoreApplication::processEvents();
    if (const QString shots = qEnvironmentVariable("BREAKWATER_SCREENSHOT_DIR"); !shots.isEmpty())
        window->grab().save(shots + (gemini ? u"/attached-3-upstreams-1366x768.png"_s : u"/attached-1366x768.png"_s));
}

DASHBOARD_TEST_MAIN(TestAttachedWindow)

#include "tst_attachedwindow.moc"
