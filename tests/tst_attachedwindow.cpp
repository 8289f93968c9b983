// The window of `breakwater --attach URL` (ui/attachedsession.h) against a real Breakwater on
// loopback: it says it is attached to the remote (TLS or cleartext) and never that it listens
// here. Offscreen widgets, real sockets through ProxyHarness; counts, never timings.

#include "attach/remotefeed.h"
#include "attachedsession.h"
#include "dashboardmodel.h"
#include "dashboardwindow.h"
#include "proxyharness.h"
#include "proxypanel.h"

#include <QLabel>
#include <QSignalSpy>
#include <QTest>

using namespace Qt::StringLiterals;

namespace {

const QString kTlsData = QStringLiteral(BREAKWATER_TEST_DATA) + u"/tls/"_s;

std::unique_ptr<AttachedSession> attachTo(const QUrl &remote, const QString &caFile = {})
{
    Expected<std::unique_ptr<AttachedSession>> opened = AttachedSession::open({remote, kTestControlToken, caFile});
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

} // namespace

class TestAttachedWindow final : public QObject
{
    Q_OBJECT
private slots:
    void window_saysAttachedToTheRemote_neverListening_data();
    void window_saysAttachedToTheRemote_neverListening();
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

QTEST_MAIN(TestAttachedWindow)

#include "tst_attachedwindow.moc"
