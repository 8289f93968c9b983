// The `breakwater` program itself, run as a user runs it: at its first start it makes the control
// token file (0600 in a 0700 folder) and its /breakwater/ routes answer only that token;
// `breakwater fault` reads the token from the same file; a token file others may read, or a port
// already taken, stops it with a message and exit status 1 instead of a quiet fallback. Each run
// has its own XDG folders, so nothing of the user running the tests is read or written.

#include "loopbackclient.h"
#include "proxyharness.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

#include <sys/stat.h>

using namespace Qt::StringLiterals;

namespace {

constexpr int kWait = 30'000;   // ms: generous for ASan on a loaded machine; never reached when it passes

int modeOf(const QString &path)
{
    struct stat info {};
    if (::stat(QFile::encodeName(path).constData(), &info) != 0)
        return -1;
    return int(info.st_mode & 07777);
}

// A user's home for one test: XDG folders of its own.
class Home
{
public:
    Home()
    {
        m_environment.insert(u"XDG_CONFIG_HOME"_s, configFolder());
        m_environment.insert(u"XDG_DATA_HOME"_s, m_dir.filePath(u"data"_s));
        m_environment.insert(u"XDG_STATE_HOME"_s, m_dir.filePath(u"state"_s));
        m_environment.insert(u"QT_QPA_PLATFORM"_s, u"offscreen"_s);
    }
    QString configFolder() const { return m_dir.filePath(u"config"_s); }
    QString tokenFile() const { return configFolder() + u"/breakwater/control-token"_s; }
    QString path(const QString &name) const { return m_dir.filePath(name); }

    // Starts `breakwater ARGUMENTS` with this home.
    std::unique_ptr<QProcess> start(const QStringList &arguments) const
    {
        auto process = std::make_unique<QProcess>();
        process->setProcessEnvironment(m_environment);
        // BREAKWATER_APP in the environment runs these checks against another build of it.
        process->start(qEnvironmentVariable("BREAKWATER_APP", QStringLiteral(BREAKWATER_APP)), arguments);
        return process;
    }

    struct Run
    {
        int exitCode = -1;
        QString out;
        QString err;
    };
    // Runs `breakwater ARGUMENTS` to its end.
    Run run(const QStringList &arguments) const
    {
        const std::unique_ptr<QProcess> process = start(arguments);
        if (!process->waitForFinished(kWait))
            process->kill();
        process->waitForFinished();
        return {process->exitStatus() == QProcess::NormalExit ? process->exitCode() : -1,
                QString::fromLocal8Bit(process->readAllStandardOutput()),
                QString::fromLocal8Bit(process->readAllStandardError())};
    }

private:
    QTemporaryDir m_dir;
    QProcessEnvironment m_environment = QProcessEnvironment::systemEnvironment();
};

void writeFile(const QString &path, const QByteArray &content, int mode)
{
    QVERIFY(QDir().mkpath(QFileInfo(path).absolutePath()));
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(content);
    file.close();
    QVERIFY(::chmod(QFile::encodeName(path).constData(), mode_t(mode)) == 0);
}

QByteArray readFile(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

} // namespace

class TestStartup final : public QObject
{
    Q_OBJECT
private slots:
    void firstStart_makesTheToken_theFaultCommandUsesIt();
    void faultCommand_withoutTheRightToken_isRefused();
    void looseTokenFile_stopsTheStart();
    void takenPort_stopsTheStart();
    // A team's Breakwater (README, Team gateway): each refusal is exit status 2 with a message.
    void teamFiles_refusals_stopTheStart_data();
    void teamFiles_refusals_stopTheStart();
    void teamGateway_startsWithTls_andWarnsNothingOnLoopback();
    // `breakwater --attach URL`: the desktop app of a remote Breakwater, here a headless process.
    void desktopApp_withoutATray_endsOnSigterm();
    void attach_followsARemoteThatRestarts();
    void attach_refusesWhatItCannotDo();
};

void TestStartup::firstStart_makesTheToken_theFaultCommandUsesIt()
{
    const Home home;
    const std::unique_ptr<QProcess> server = home.start(
        {u"--headless"_s, u"--listen"_s, u"127.0.0.1:0"_s, u"--log-db"_s, home.path(u"calls.sqlite"_s)});
    QString out;
    const QRegularExpression listening(u"listening on http://127\\.0\\.0\\.1:(\\d+)/v1"_s);
    QTRY_VERIFY_WITH_TIMEOUT((out += QString::fromLocal8Bit(server->readAllStandardOutput()), listening.match(out).hasMatch()),
                             kWait);
    const quint16 port = quint16(listening.match(out).captured(1).toUInt());

    // The token file: made at this first start, only for its owner.
    QCOMPARE(modeOf(home.tokenFile()), 0600);
    QCOMPARE(modeOf(home.configFolder() + u"/breakwater"_s), 0700);
    const QByteArray token = readFile(home.tokenFile()).trimmed();
    QCOMPARE(token.size(), 43);

    const LoopbackResponse stranger = fetch(port, "POST", "/breakwater/admission/pause");
    QCOMPARE(stranger.status, 401);
    QCOMPARE(stranger.header("x-should-retry"), "false"_ba);
    const LoopbackResponse owner = fetch(port, "GET", "/breakwater/stats", {{"Authorization", "Bearer " + token}});
    QCOMPARE(owner.status, 200);
    QCOMPARE(QJsonDocument::fromJson(owner.body).object().value(u"admissionPaused"_s).toBool(), false);

    // `breakwater fault` finds the same file by itself.
    const QString where = u"127.0.0.1:%1"_s.arg(port);
    const Home::Run added = home.run({u"fault"_s, u"add"_s, u"503:count=1"_s, u"--listen"_s, where});
    QVERIFY2(added.exitCode == 0, qPrintable(added.err));
    QVERIFY2(added.out.contains(u"armed #1 503:count=1"_s), qPrintable(added.out));
    const Home::Run listed = home.run({u"fault"_s, u"list"_s, u"--listen"_s, where});
    QCOMPARE(listed.exitCode, 0);
    QVERIFY2(listed.out.contains(u"#1 503:count=1"_s), qPrintable(listed.out));
    const LoopbackResponse health = fetch(port, "GET", "/healthz");
    QCOMPARE(QJsonDocument::fromJson(health.body).object().value(u"faults_armed"_s).toInt(), 1);

    // A second start reads the same token rather than making another.
    server->terminate();
    QVERIFY(server->waitForFinished(kWait));
    QCOMPARE(server->exitCode(), 0);
    const std::unique_ptr<QProcess> again = home.start(
        {u"--headless"_s, u"--listen"_s, u"127.0.0.1:0"_s, u"--log-db"_s, home.path(u"calls.sqlite"_s)});
    out.clear();
    QTRY_VERIFY_WITH_TIMEOUT((out += QString::fromLocal8Bit(again->readAllStandardOutput()), listening.match(out).hasMatch()),
                             kWait);
    QCOMPARE(readFile(home.tokenFile()).trimmed(), token);
    const quint16 secondPort = quint16(listening.match(out).captured(1).toUInt());
    QCOMPARE(fetch(secondPort, "GET", "/breakwater/stats", {{"Authorization", "Bearer " + token}}).status, 200);
    again->terminate();
    QVERIFY(again->waitForFinished(kWait));
}

void TestStartup::faultCommand_withoutTheRightToken_isRefused()
{
    ProxyHarness harness;
    const Home home;
    const QString where = u"127.0.0.1:%1"_s.arg(harness.port());
    const auto armed = [&harness] {
        return harness.onProxyThread<int>([](ProxyServer *p) { return int(p->snapshot().faults.size()); });
    };

    // No token file: nothing is sent.
    const Home::Run missing = home.run({u"fault"_s, u"add"_s, u"503"_s, u"--listen"_s, where});
    QCOMPARE(missing.exitCode, 1);
    QVERIFY2(missing.err.contains(u"no control token at "_s + home.tokenFile()), qPrintable(missing.err));

    // Another instance's token: the proxy refuses it, and the command says so.
    writeFile(home.tokenFile(), "another-instances-token-0123456789abcdefghij\n", 0600);
    const Home::Run wrong = home.run({u"fault"_s, u"add"_s, u"503"_s, u"--listen"_s, where});
    QCOMPARE(wrong.exitCode, 1);
    QVERIFY2(wrong.err.contains(u"401"_s) && wrong.err.contains(u"not this Breakwater's"_s), qPrintable(wrong.err));

    // A file others may read is refused before anything is sent.
    const QString loose = home.path(u"loose-token"_s);
    writeFile(loose, kTestControlToken + '\n', 0644);
    const Home::Run refused = home.run({u"fault"_s, u"add"_s, u"503"_s, u"--listen"_s, where, u"--control-token"_s, loose});
    QCOMPARE(refused.exitCode, 1);
    QVERIFY2(refused.err.contains(u"chmod 600"_s), qPrintable(refused.err));
    QCOMPARE(armed(), 0);

    // The right token, from a file named with --control-token.
    const QString chosen = home.path(u"chosen-token"_s);
    writeFile(chosen, kTestControlToken + '\n', 0600);
    const Home::Run added = home.run({u"fault"_s, u"add"_s, u"503:count=1"_s, u"--listen"_s, where,
                                      u"--control-token"_s, chosen});
    QVERIFY2(added.exitCode == 0, qPrintable(added.err));
    QCOMPARE(armed(), 1);
}

void TestStartup::looseTokenFile_stopsTheStart()
{
    const Home home;
    writeFile(home.tokenFile(), kTestControlToken + '\n', 0644);
    const Home::Run run = home.run({u"--headless"_s, u"--listen"_s, u"127.0.0.1:0"_s, u"--log-db"_s,
                                    home.path(u"calls.sqlite"_s)});
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.err.contains(home.tokenFile()) && run.err.contains(u"0644"_s), qPrintable(run.err));
    QVERIFY(!run.out.contains(u"listening on"_s));
    QCOMPARE(modeOf(home.tokenFile()), 0644);   // refused, left as it was for its owner to decide
    QCOMPARE(readFile(home.tokenFile()), kTestControlToken + '\n');
}

void TestStartup::takenPort_stopsTheStart()
{
    ProxyHarness first;   // a Breakwater on the port already
    const Home home;
    const QString where = u"127.0.0.1:%1"_s.arg(first.port());
    const Home::Run second = home.run({u"--headless"_s, u"--listen"_s, where, u"--log-db"_s, home.path(u"calls.sqlite"_s)});
    QCOMPARE(second.exitCode, 1);
    QVERIFY2(second.err.contains(u"cannot listen on "_s + where) && second.err.contains(u"already in use"_s)
                 && second.err.contains(u"--listen"_s),
             qPrintable(second.err));
    QVERIFY(!second.out.contains(u"listening on"_s));
    // The first one goes on answering, untouched.
    QCOMPARE(first.post("/v1/chat/completions", chatBody(u"still mine"_s)).status, 200);
}

namespace {

QByteArray membersJson(const QList<QPair<QByteArray, QByteArray>> &members)
{
    QByteArray text = R"({"members":[)";
    for (qsizetype i = 0; i < members.size(); ++i)
        text += QByteArray(i ? "," : "") + R"({"name":")" + members[i].first + R"(","token":")" + members[i].second + R"("})";
    return text + "]}";
}

const QByteArray kGoodToken = "member-token-0123456789abcdefghijklmnop";

QString tlsData(const char *name)
{
    return QStringLiteral(BREAKWATER_TEST_DATA "/tls/") + QString::fromLatin1(name);
}

} // namespace

void TestStartup::teamFiles_refusals_stopTheStart_data()
{
    QTest::addColumn<QByteArray>("members");
    QTest::addColumn<int>("membersMode");
    QTest::addColumn<QByteArray>("keys");   // empty: no --provider-keys
    QTest::addColumn<int>("keysMode");
    QTest::addColumn<QStringList>("extra");
    QTest::addColumn<QString>("message");
    const QByteArray good = membersJson({{"alice", kGoodToken}});
    const QByteArray keys = R"({"openai":"sk-x"})";
    QTest::newRow("tokens file readable by others") << good << 0644 << QByteArray() << 0 << QStringList()
                                                    << u"mode 0644"_s;
    QTest::newRow("tokens file readable by group") << good << 0640 << QByteArray() << 0 << QStringList()
                                                   << u"mode 0640"_s;
    QTest::newRow("short token") << membersJson({{"alice", "short-token"}}) << 0600 << QByteArray() << 0
                                 << QStringList() << u"fewer than 32"_s;
    QTest::newRow("shared token") << membersJson({{"alice", kGoodToken}, {"bob", kGoodToken}}) << 0600 << QByteArray()
                                  << 0 << QStringList() << u"member 'bob' has the same token"_s;
    QTest::newRow("keys file readable by others") << good << 0600 << keys << 0644 << QStringList() << u"mode 0644"_s;
    QTest::newRow("keys without members") << QByteArray() << 0 << keys << 0600 << QStringList()
                                          << u"--provider-keys goes with --access-tokens"_s;
    QTest::newRow("beyond loopback without members") << QByteArray() << 0 << QByteArray() << 0
        << QStringList{u"--listen"_s, u"0.0.0.0:0"_s} << u"beyond loopback"_s;
    QTest::newRow("unreadable certificate") << good << 0600 << QByteArray() << 0
        << QStringList{u"--tls-cert"_s, u"no-such-cert.pem"_s, u"--tls-key"_s, tlsData("server.key")} << u"cannot read --tls-cert"_s;
    QTest::newRow("key of another certificate") << good << 0600 << QByteArray() << 0
        << QStringList{u"--tls-cert"_s, tlsData("server.pem"), u"--tls-key"_s, tlsData("other.key")} << u"does not belong"_s;
    QTest::newRow("certificate without key") << good << 0600 << QByteArray() << 0
        << QStringList{u"--tls-cert"_s, tlsData("server.pem")} << u"go together"_s;
}

void TestStartup::teamFiles_refusals_stopTheStart()
{
    QFETCH(QByteArray, members);
    QFETCH(int, membersMode);
    QFETCH(QByteArray, keys);
    QFETCH(int, keysMode);
    QFETCH(QStringList, extra);
    QFETCH(QString, message);
    const Home home;
    QStringList arguments{u"--headless"_s, u"--listen"_s, u"127.0.0.1:0"_s, u"--log-db"_s, home.path(u"calls.sqlite"_s)};
    if (!members.isEmpty()) {
        writeFile(home.path(u"members.json"_s), members, membersMode);
        arguments << u"--access-tokens"_s << home.path(u"members.json"_s);
    }
    if (!keys.isEmpty()) {
        writeFile(home.path(u"keys.json"_s), keys, keysMode);
        arguments << u"--provider-keys"_s << home.path(u"keys.json"_s);
    }
    const Home::Run run = home.run(arguments + extra);
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(run.err.contains(message), qPrintable(run.err));
    QVERIFY2(!run.err.contains(QString::fromLatin1(kGoodToken)), "a refusal never shows a token");
    QVERIFY(!run.out.contains(u"listening on"_s));
}

void TestStartup::teamGateway_startsWithTls_andWarnsNothingOnLoopback()
{
    const Home home;
    writeFile(home.path(u"members.json"_s), membersJson({{"alice", kGoodToken}}), 0600);
    writeFile(home.path(u"keys.json"_s), R"({"openai":"sk-x","anthropic":"sk-ant-x"})", 0600);
    const std::unique_ptr<QProcess> server = home.start(
        {u"--headless"_s, u"--listen"_s, u"127.0.0.1:0"_s, u"--log-db"_s, home.path(u"calls.sqlite"_s),
         u"--access-tokens"_s, home.path(u"members.json"_s), u"--provider-keys"_s, home.path(u"keys.json"_s),
         u"--tls-cert"_s, tlsData("server.pem"), u"--tls-key"_s, tlsData("server.key")});
    QString out;
    const QRegularExpression listening(u"listening on https://127\\.0\\.0\\.1:(\\d+)/v1"_s);
    QTRY_VERIFY_WITH_TIMEOUT((out += QString::fromLocal8Bit(server->readAllStandardOutput()), listening.match(out).hasMatch()),
                             kWait);
    server->terminate();
    QVERIFY(server->waitForFinished(kWait));
    QCOMPARE(server->exitCode(), 0);
    QVERIFY(!QString::fromLocal8Bit(server->readAllStandardError()).contains(u"without TLS"_s));
}

// The desktop app (offscreen: no tray, so after the tray's grace minute its window is the app)
// ends on SIGTERM like the headless one. Seen failing: QCoreApplication::quit() asked the window
// to close, the window asked "Quit Breakwater?", nobody answered, and the process kept serving.
// Waits for the app to say the grace minute is over (about 60 s), not for a time of its own.
void TestStartup::desktopApp_withoutATray_endsOnSigterm()
{
    const Home home;
    const std::unique_ptr<QProcess> app = home.start(
        {u"--listen"_s, u"127.0.0.1:0"_s, u"--log-db"_s, home.path(u"calls.sqlite"_s)});
    QString err;
    QTRY_VERIFY_WITH_TIMEOUT((err += QString::fromLocal8Bit(app->readAllStandardError()),
                              err.contains(u"no system tray: closing the window quits Breakwater"_s)),
                             60'000 + 2 * kWait);
    app->terminate();
    QVERIFY2(app->waitForFinished(kWait), "still running after SIGTERM");
    QCOMPARE(app->exitStatus(), QProcess::NormalExit);
    QCOMPARE(app->exitCode(), 0);
}

void TestStartup::attach_followsARemoteThatRestarts()
{
    const Home home;   // both use its control token, as the owner on one machine does
    const QStringList serve{u"--headless"_s, u"--log-db"_s, home.path(u"calls.sqlite"_s)};
    std::unique_ptr<QProcess> server = home.start(serve + QStringList{u"--listen"_s, u"127.0.0.1:0"_s});
    QString out;
    const QRegularExpression listening(u"listening on http://127\\.0\\.0\\.1:(\\d+)/v1"_s);
    QTRY_VERIFY_WITH_TIMEOUT((out += QString::fromLocal8Bit(server->readAllStandardOutput()), listening.match(out).hasMatch()),
                             kWait);
    const QString where = u"127.0.0.1:"_s + listening.match(out).captured(1);

    // Offscreen (Home sets QT_QPA_PLATFORM), the window exists but nobody sees it; the feed logs its state.
    const std::unique_ptr<QProcess> attached = home.start({u"--attach"_s, u"http://"_s + where});
    QString err;
    const auto said = [&](const QString &what) {
        err += QString::fromLocal8Bit(attached->readAllStandardError());
        return err.count(what);
    };
    QTRY_VERIFY_WITH_TIMEOUT(said(u"breakwater.attach: attached to http://"_s + where) == 1, kWait);

    server->terminate();
    QVERIFY(server->waitForFinished(kWait));
    QTRY_VERIFY_WITH_TIMEOUT(said(u"breakwater.attach: stream gone"_s) >= 1, kWait);
    QCOMPARE(attached->state(), QProcess::Running);   // waiting for it, not gone with it

    server = home.start(serve + QStringList{u"--listen"_s, where});
    QTRY_VERIFY_WITH_TIMEOUT(said(u"breakwater.attach: attached to http://"_s + where) == 2, kWait);
    attached->terminate();
    QVERIFY(attached->waitForFinished(kWait));
    QCOMPARE(attached->exitCode(), 0);
    server->terminate();
    QVERIFY(server->waitForFinished(kWait));
}

void TestStartup::attach_refusesWhatItCannotDo()
{
    const Home home;
    const Home::Run headless = home.run({u"--attach"_s, u"http://127.0.0.1:1"_s, u"--headless"_s});
    QCOMPARE(headless.exitCode, 2);
    QVERIFY2(headless.err.contains(u"--headless"_s), qPrintable(headless.err));
    // No token to show the remote: nothing to attach with (the file is never made here).
    const Home::Run tokenless = home.run({u"--attach"_s, u"http://127.0.0.1:1"_s, u"--control-token"_s,
                                          home.path(u"missing-token"_s)});
    QCOMPARE(tokenless.exitCode, 1);
    QVERIFY2(tokenless.err.contains(u"missing-token"_s), qPrintable(tokenless.err));
    QVERIFY(!QFile::exists(home.path(u"missing-token"_s)));
}

QTEST_GUILESS_MAIN(TestStartup)
#include "tst_startup.moc"
