// The Replay dialog, offscreen, on records a real Breakwater made: it shows the recorded answer,
// sends the call (through Breakwater, or edited, or to another URL) and shows the replayed answer
// beside it with the line that says what differs; a call without a logged body cannot be sent and
// the dialog says why; the details pane's "Replay…" button opens it for the selected call.

#include "dashboardmodel.h"
#include "proxyharness.h"
#include "replaydialog.h"
#include "requestpanel.h"

#include <QLineEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QScopeGuard>
#include <QSignalSpy>
#include <QTest>

using namespace Qt::StringLiterals;

namespace {

constexpr int kWait = 30000;

CallRecord record(ProxyHarness &harness, const QByteArray &body)
{
    const qsizetype before = harness.records.size();
    LoopbackClient *call = harness.start("/v1/chat/completions", body);
    if (!QTest::qWaitFor([&] { return call->isFinished() && harness.records.size() > before; }, kWait))
        return {};
    return harness.records.last();
}

QString origin(const ProxyHarness &harness)
{
    return u"http://127.0.0.1:%1"_s.arg(harness.port());
}

// Aimed at the harness's Breakwater, with a typed credential.
void aim(ReplayDialog &dialog, const ProxyHarness &harness)
{
    dialog.setBreakwaterOrigin(origin(harness));
    dialog.setTypedCredential(u"sk-typed-1"_s);
}

const auto withBodies = [](ProxyConfig &config) { config.recordBodies = true; };

} // namespace

class TestReplayDialog final : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void send_showsBothAnswersAndTheDifference();
    void editedBody_isSentAndItsAnswerShown();
    void otherUrl_sendsStraightToIt();
    void recordWithoutBody_cannotBeSentAndSaysWhy();
    void replayButton_opensTheDialogForTheSelectedCall();
    void environmentKey_isOfferedOnlyForItsOwnProvider();
};

void TestReplayDialog::initTestCase()
{
    qunsetenv("OPENAI_API_KEY");   // the typed credential is the one used
}

void TestReplayDialog::send_showsBothAnswersAndTheDifference()
{
    ProxyHarness harness(withBodies);
    const CallRecord original = record(harness, chatBody(u"side by side"_s));
    ReplayDialog dialog(original);
    aim(dialog, harness);
    dialog.show();
    QVERIFY(dialog.originalText().startsWith(u"status 200"_s));
    QVERIFY(dialog.originalText().contains(u"echo: side by side"_s));
    QVERIFY(dialog.bodyText().contains(u"\"content\": \"side by side\""_s));   // pretty-printed
    QVERIFY(dialog.canSend());

    QSignalSpy answered(&dialog, &ReplayDialog::answered);
    auto *send = dialog.findChild<QPushButton *>(u"send"_s);
    QVERIFY(send && send->isEnabled());
    send->click();
    QVERIFY(answered.wait(kWait));
    QCOMPARE(harness.mock()->callCount(), 2);
    QVERIFY2(dialog.replayText().startsWith(u"status 200"_s), qPrintable(dialog.replayText()));
    QVERIFY(dialog.replayText().contains(u"x-breakwater-dedup: bypass"_s));
    QVERIFY(dialog.replayText().contains(u"Cache-Control: no-cache"_s));
    QVERIFY(dialog.replayText().contains(u"Authorization: [redacted]"_s));
    QVERIFY(!dialog.replayText().contains(u"sk-typed-1"_s));
    QVERIFY(dialog.replayText().contains(u"echo: side by side"_s));
    // The mock numbers its answers, so the replay's id differs; its "created" second may differ
    // too, and sorts first when the clock ticked between the two calls.
    const QString difference = dialog.differenceText();
    QVERIFY2(difference.startsWith(u"Difference: same status 200; "_s), qPrintable(difference));
    QVERIFY2(difference.contains(u"first difference at line"_s), qPrintable(difference));
    QVERIFY2(difference.contains(u"chatcmpl-mock"_s) || difference.contains(u"\"created\""_s),
             qPrintable(difference));
    QVERIFY(dialog.canSend());   // again, when it is done
}

void TestReplayDialog::editedBody_isSentAndItsAnswerShown()
{
    ProxyHarness harness(withBodies);
    const CallRecord original = record(harness, chatBody(u"first"_s));
    ReplayDialog dialog(original);
    aim(dialog, harness);
    dialog.setBodyText(dialog.bodyText().replace(u"\"first\""_s, u"\"second\""_s));
    QSignalSpy answered(&dialog, &ReplayDialog::answered);
    dialog.send();
    QVERIFY(answered.wait(kWait));
    QVERIFY(harness.mock()->lastRequestBody().contains("\"second\""));
    QVERIFY(dialog.replayText().contains(u"echo: second"_s));
    QVERIFY(dialog.originalText().contains(u"echo: first"_s));
    QVERIFY(dialog.differenceText().contains(u"first difference at line"_s));
}

void TestReplayDialog::otherUrl_sendsStraightToIt()
{
    ProxyHarness harness(withBodies);
    const CallRecord original = record(harness, chatBody(u"elsewhere"_s));
    ReplayDialog dialog(original);
    aim(dialog, harness);
    dialog.setUpstreamUrls({{u"openai"_s, harness.mock()->openaiBaseUrl().toString()}});
    dialog.setThroughBreakwater(false);
    QSignalSpy answered(&dialog, &ReplayDialog::answered);
    dialog.send();
    QVERIFY(answered.wait(kWait));
    QCOMPARE(harness.mock()->callCount(), 2);
    QCOMPARE(harness.records.size(), 1);   // not through Breakwater
    QVERIFY(dialog.replayText().contains(harness.mock()->openaiBaseUrl().toString() + u"/chat/completions"_s));
    QVERIFY(!dialog.replayText().contains(u"x-breakwater-dedup"_s));
    QVERIFY(dialog.statusText().startsWith(u"Answered 200"_s));
}

void TestReplayDialog::recordWithoutBody_cannotBeSentAndSaysWhy()
{
    ProxyHarness harness;   // without --log-bodies
    const CallRecord original = record(harness, chatBody(u"gone"_s));
    ReplayDialog dialog(original);
    dialog.setBreakwaterOrigin(origin(harness));
    QVERIFY(!dialog.canSend());
    QVERIFY2(dialog.statusText().contains(u"start Breakwater with --log-bodies to replay calls"_s),
             qPrintable(dialog.statusText()));
    QVERIFY(dialog.originalText().contains(u"not logged"_s));
    dialog.send();
    QCOMPARE(harness.mock()->callCount(), 1);
}

void TestReplayDialog::replayButton_opensTheDialogForTheSelectedCall()
{
    ProxyHarness harness(withBodies);
    const CallRecord original = record(harness, chatBody(u"from the panel"_s));
    DashboardModel model;
    model.addRecord(original);
    RequestPanel panel;
    panel.setOrigin(origin(harness));
    panel.refresh(model);
    QPushButton *replay = nullptr;
    for (QPushButton *button : panel.findChildren<QPushButton *>()) {
        if (button->text() == u"Replay…"_s)
            replay = button;
    }
    QVERIFY(replay);
    QVERIFY(!replay->isEnabled());   // nothing selected
    QVERIFY(!panel.openReplay());
    panel.selectRow(0);
    QVERIFY(replay->isEnabled());
    ReplayDialog *dialog = panel.openReplay();
    QVERIFY(dialog);
    QVERIFY(dialog->isVisible());
    QVERIFY(dialog->originalText().contains(u"echo: from the panel"_s));
    QVERIFY(dialog->canSend());
    dialog->close();
}

void TestReplayDialog::environmentKey_isOfferedOnlyForItsOwnProvider()
{
    qputenv("OPENAI_API_KEY", "sk-env-openai-never-elsewhere");
    const auto unset = qScopeGuard([] { qunsetenv("OPENAI_API_KEY"); });
    ProxyHarness harness(withBodies);
    const CallRecord original = record(harness, chatBody(u"whose key"_s));
    ReplayDialog dialog(original);
    dialog.setBreakwaterOrigin(origin(harness));
    // Breakwater's OpenAI upstream is not api.openai.com (here the mock; a gateway, a colleague's
    // vLLM): a replay through Breakwater would hand it $OPENAI_API_KEY.
    dialog.setUpstreamUrls({{u"openai"_s, harness.mock()->openaiBaseUrl().toString()}});
    QRadioButton *environment = nullptr;
    for (QRadioButton *button : dialog.findChildren<QRadioButton *>()) {
        if (button->text().startsWith(u"from the environment"_s))
            environment = button;
    }
    QVERIFY(environment);
    QVERIFY(!environment->isEnabled());
    QVERIFY(!environment->isChecked());
    QVERIFY2(environment->text().contains(u"only for api.openai.com"_s), qPrintable(environment->text()));
    QSignalSpy answered(&dialog, &ReplayDialog::answered);
    dialog.send();
    QVERIFY(answered.wait(kWait));
    QCOMPARE(harness.mock()->callCount(), 2);
    for (const auto &[name, value] : harness.mock()->lastRequestHeaders())
        QVERIFY2(!value.contains("sk-env-openai"), name.constData());
    // Straight to api.openai.com it is offered (and chosen: nothing was typed).
    dialog.setThroughBreakwater(false);
    dialog.setOtherUrl(u"https://api.openai.com/v1"_s);
    QVERIFY(environment->isEnabled());
    dialog.setThroughBreakwater(true);
    dialog.setUpstreamUrls({{u"openai"_s, u"https://api.openai.com/v1"_s}});
    QVERIFY(environment->isEnabled());
    QVERIFY(environment->isChecked());
}

QTEST_MAIN(TestReplayDialog)
#include "tst_replaydialog.moc"
