// The dashboard's live control, offscreen: the Settings dialog's OK applies the changed live
// values to a running proxy (on its own thread, through queued calls) as well as saving them, and
// the proxy strip's breaker buttons and Pause admission toggle move the real proxy, whose
// snapshots then redraw the strip. Counted states, QTRY waits, no sleeps.

#include "appsettings.h"
#include "dashboardmodel.h"
#include "desktopapp.h"
#include "livecontrol.h"
#include "proxyharness.h"
#include "proxypanel.h"
#include "settingsdialog.h"

#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QTest>
#include <QToolButton>

using namespace Qt::StringLiterals;
using namespace std::chrono_literals;

namespace {
constexpr int kWait = 30000;   // ms: generous, for a loaded 2-core machine; never reached when it passes

LiveSettings live(const ProxyHarness &harness)
{
    return harness.onProxyThread<LiveSettings>([](ProxyServer *p) { return p->liveSettings(); });
}

BreakerState openaiState(const ProxyHarness &harness)
{
    return harness.onProxyThread<BreakerState>([](ProxyServer *p) { return p->openai().breaker->state(); });
}
} // namespace

class TestLiveControlUi final : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void settingsOk_appliesTheChangedLiveValuesAtOnce_onlyThose();
    void settingsDialog_saysWhichValuesApplyAtOnce();
    void proxyPanel_breakerButtonsAndPause_moveTheRunningProxy();
};

void TestLiveControlUi::initTestCase()
{
    qRegisterMetaType<ProxySnapshot>();
}

void TestLiveControlUi::settingsOk_appliesTheChangedLiveValuesAtOnce_onlyThose()
{
    ProxyHarness harness([](ProxyConfig &c) { c.concurrency = 4; });
    const LiveSettings before = live(harness);
    SettingsDialog dialog(AppSettings::fromConfig(harness.config()), {}, false);
    dialog.setLiveApply([&harness](const AppSettings &values, const QStringList &changed) {
        return livecontrol::applySettings(harness.proxy(), values, changed);
    });
    dialog.findChild<QDoubleSpinBox *>(u"timeout"_s)->setValue(2.5);
    dialog.findChild<QSpinBox *>(u"breakerFailures"_s)->setValue(2);
    dialog.findChild<QLineEdit *>(u"listen"_s)->setText(u"127.0.0.1:9999"_s);   // needs a restart
    dialog.findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok)->click();
    QCOMPARE(dialog.result(), int(QDialog::Accepted));
    QCOMPARE(dialog.appliedLive(), QStringList({u"--timeout"_s, u"--breaker-failures"_s}));

    QTRY_COMPARE_WITH_TIMEOUT(live(harness).timeout, 2500ms, kWait);
    const LiveSettings after = live(harness);
    QCOMPARE(after.breakerFailures, 2);
    QCOMPARE(after.concurrency, before.concurrency);   // untouched in the dialog: left as it was
    QCOMPARE(harness.onProxyThread<int>([](ProxyServer *p) { return p->openai().breaker->failureThreshold(); }), 2);

    const QString message = SettingsDialog::restartMessage(dialog.values(), AppSettings::fromConfig(harness.config()),
                                                           {}, dialog.appliedLive());
    QVERIFY2(message.contains(u"Restart Breakwater to apply: listen address."_s), qPrintable(message));
    QVERIFY2(message.contains(u"Applied to the running proxy now: timeout, breaker failures."_s), qPrintable(message));
}

void TestLiveControlUi::settingsDialog_saysWhichValuesApplyAtOnce()
{
    SettingsDialog dialog(AppSettings::defaults(), {}, false);
    bool said = false;
    for (const QLabel *label : dialog.findChildren<QLabel *>())
        said = said || label->text().contains(u"Applied to the running proxy at once when you press OK: timeout"_s);
    QVERIFY(said);
    // Cancel applies nothing.
    int applied = 0;
    dialog.setLiveApply([&applied](const AppSettings &, const QStringList &) { ++applied; return QStringList(); });
    dialog.findChild<QDoubleSpinBox *>(u"timeout"_s)->setValue(3);
    dialog.findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Cancel)->click();
    QCOMPARE(applied, 0);
}

void TestLiveControlUi::proxyPanel_breakerButtonsAndPause_moveTheRunningProxy()
{
    ProxyHarness harness;
    DashboardModel model;
    connectProxyToModel(harness.proxy(), &model);
    ProxyPanel panel;
    livecontrol::connectPanel(&panel, harness.proxy());
    panel.show();
    // The strip draws from the snapshots (every 250 ms) as the window's redraw timer would.
    const auto drawn = [&panel, &model] { panel.refresh(model); return &panel; };
    const auto button = [&drawn](BreakerAction action) { return drawn()->breakerButton(u"openai"_s, action); };
    QTRY_VERIFY_WITH_TIMEOUT(button(BreakerAction::Open) && button(BreakerAction::Open)->isEnabled(), kWait);
    QVERIFY(!button(BreakerAction::Probe)->isEnabled());   // closed: nothing to probe for

    button(BreakerAction::Open)->click();
    QTRY_COMPARE_WITH_TIMEOUT(openaiState(harness), BreakerState::Open, kWait);
    QTRY_COMPARE_WITH_TIMEOUT(harness.transitions.size(), 1, kWait);
    QCOMPARE(harness.transitions.last().reason.english(), u"opened by hand"_s);
    QTRY_VERIFY_WITH_TIMEOUT(button(BreakerAction::Probe)->isEnabled(), kWait);
    QVERIFY(!button(BreakerAction::Open)->isEnabled());
    QVERIFY(panel.upstreamText(u"openai"_s).contains(u"open"_s, Qt::CaseInsensitive));

    button(BreakerAction::Probe)->click();   // the mock answers the model list
    QTRY_COMPARE_WITH_TIMEOUT(openaiState(harness), BreakerState::HalfOpen, kWait);
    QTRY_VERIFY_WITH_TIMEOUT(button(BreakerAction::Close)->isEnabled() && !button(BreakerAction::Probe)->isEnabled(), kWait);
    button(BreakerAction::Close)->click();
    QTRY_COMPARE_WITH_TIMEOUT(openaiState(harness), BreakerState::Closed, kWait);
    QTRY_COMPARE_WITH_TIMEOUT(harness.transitions.size(), 3, kWait);
    QCOMPARE(harness.transitions.last().reason.english(), u"closed by hand"_s);

    QToolButton *pause = panel.pauseButton();
    QCOMPARE(pause->text(), u"Pause admission"_s);
    pause->click();
    QTRY_VERIFY_WITH_TIMEOUT(harness.onProxyThread<bool>([](ProxyServer *p) { return p->isAdmissionPaused(); }), kWait);
    QTRY_COMPARE_WITH_TIMEOUT(drawn()->pauseButton()->text(), u"Resume admission"_s, kWait);
    QVERIFY(pause->isChecked());
    const LoopbackResponse refused = harness.post("/v1/chat/completions", chatBody(u"while paused"_s));
    QCOMPARE(refused.status, 503);
    QCOMPARE(refused.header("x-should-retry"), "false"_ba);
    pause->click();
    QTRY_VERIFY_WITH_TIMEOUT(!harness.onProxyThread<bool>([](ProxyServer *p) { return p->isAdmissionPaused(); }), kWait);
    QTRY_COMPARE_WITH_TIMEOUT(drawn()->pauseButton()->text(), u"Pause admission"_s, kWait);
    QCOMPARE(harness.post("/v1/chat/completions", chatBody(u"resumed"_s)).status, 200);
}

QTEST_MAIN(TestLiveControlUi)
#include "tst_livecontrol_ui.moc"
