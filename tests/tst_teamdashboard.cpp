// The dashboard of a team's Breakwater: the request table can be filtered by member once calls of
// members are in it (and offers no member choice without a team), and a Breakwater listening beyond
// loopback without TLS says so in its window. Offscreen widgets.

#include "cleartextwarning.h"
#include "dashboardmodel.h"
#include "proxyconfig.h"
#include "requestpanel.h"

#include <QApplication>
#include <QComboBox>
#include <QLabel>
#include <QMainWindow>
#include <QStatusBar>
#include <QTest>

using namespace Qt::StringLiterals;

namespace {

CallRecord call(const QByteArray &id, const QString &member, qint64 atMs)
{
    CallRecord r;
    r.requestId = id;
    r.route = "/v1/chat/completions";
    r.upstream = "openai";
    r.model = u"gpt-4o-mini"_s;
    r.outcome = Outcome::Miss;
    r.status = 200;
    r.member = member;
    r.receivedAtMs = atMs;
    r.endAtMs = atMs + 300;
    return r;
}

} // namespace

class TestTeamDashboard final : public QObject
{
    Q_OBJECT
private slots:
    void requestTable_filtersByMember();
    void requestTable_offersNoMemberChoiceWithoutATeam();
    void window_warnsWithoutTlsBeyondLoopback_data();
    void window_warnsWithoutTlsBeyondLoopback();
};

void TestTeamDashboard::requestTable_filtersByMember()
{
    DashboardModel model;
    RequestPanel panel;
    const qint64 t = 1'700'000'000'000;
    model.addRecord(call("a1", u"alice"_s, t));
    model.addRecord(call("b1", u"bob"_s, t + 1000));
    model.addRecord(call("a2", u"alice"_s, t + 2000));
    panel.refresh(model);
    QCOMPARE(panel.totalRowCount(), 3);
    QVERIFY(panel.offersMemberFilter());
    auto *choice = panel.findChild<QComboBox *>(u"memberFilter"_s);
    QVERIFY(choice);
    QCOMPARE(choice->count(), 3);   // all members, alice, bob
    panel.setMemberFilter(u"alice"_s);
    QCOMPARE(panel.rowCount(), 2);
    panel.setMemberFilter(u"bob"_s);
    QCOMPARE(panel.rowCount(), 1);
    panel.setMemberFilter(QString());
    QCOMPARE(panel.rowCount(), 3);
    // A member who calls later becomes a choice too.
    model.addRecord(call("c1", u"ci"_s, t + 3000));
    panel.refresh(model);
    QCOMPARE(choice->count(), 4);
    panel.setMemberFilter(u"ci"_s);
    QCOMPARE(panel.rowCount(), 1);
}

void TestTeamDashboard::requestTable_offersNoMemberChoiceWithoutATeam()
{
    DashboardModel model;
    RequestPanel panel;
    panel.show();
    model.addRecord(call("x1", QString(), 1'700'000'000'000));
    panel.refresh(model);
    QCOMPARE(panel.totalRowCount(), 1);
    QVERIFY(!panel.offersMemberFilter());
    QVERIFY(!panel.findChild<QComboBox *>(u"memberFilter"_s)->isVisible());
}

void TestTeamDashboard::window_warnsWithoutTlsBeyondLoopback_data()
{
    QTest::addColumn<QString>("address");
    QTest::addColumn<bool>("tls");
    QTest::addColumn<bool>("warns");
    QTest::newRow("loopback") << u"127.0.0.1"_s << false << false;
    QTest::newRow("IPv6 loopback") << u"::1"_s << false << false;
    QTest::newRow("every address, no TLS") << u"0.0.0.0"_s << false << true;
    QTest::newRow("a LAN address, no TLS") << u"192.168.1.20"_s << false << true;
    QTest::newRow("every address, TLS") << u"0.0.0.0"_s << true << false;
}

void TestTeamDashboard::window_warnsWithoutTlsBeyondLoopback()
{
    QFETCH(QString, address);
    QFETCH(bool, tls);
    QFETCH(bool, warns);
    ProxyConfig config;
    config.listenAddress = QHostAddress(address);
    config.listenPort = 8443;
    if (tls)
        config.tlsCertFile = u"/etc/breakwater/cert.pem"_s;
    QMainWindow window;
    cleartextwarning::show(&window, config);
    window.show();
    auto *label = window.findChild<QLabel *>(u"clearTextWarning"_s);
    QCOMPARE(label != nullptr, warns);
    if (warns) {
        QVERIFY(label->isVisible());
        QVERIFY2(label->text().contains(u"clear text"_s), qPrintable(label->text()));
        QVERIFY2(label->text().contains(address + u":8443"_s), qPrintable(label->text()));
    }
}

QTEST_MAIN(TestTeamDashboard)

#include "tst_teamdashboard.moc"
