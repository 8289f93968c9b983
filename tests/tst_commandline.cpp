// The fixed command-line interface: every option parsed, every invalid value refused with a message.

#include "commandline.h"

#include <QTemporaryFile>
#include <QFileInfo>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace std::chrono_literals;

class TestCommandLine final : public QObject
{
    Q_OBJECT
private slots:
    void defaults_matchTheDesign();
    void validValues_areApplied();
    void caFile_mustHoldACertificate();
    void tinySeconds_neverRoundToZero();
    void invalidValues_areRefused_data();
    void invalidValues_areRefused();
    void configFile_isOverriddenByCommandLine();
    void help_listsEveryOption();
    void configFile_badKeysAndValuesAreNamed_data();
    void configFile_badKeysAndValuesAreNamed();
    void configFile_holdsEveryOption();
    void controlToken_namesTheTokenFile();
    void positionalArguments_onlyReport();
    void allowOrigin_isRepeatableCommaSeparatedAndNormalised();
    void fault_isRepeatableAndABadRuleIsNamed();
    void faultSubcommand_parsesAddListAndClear_data();
    void faultSubcommand_parsesAddListAndClear();
    void faultSubcommand_refusesWhatItCannotDo_data();
    void faultSubcommand_refusesWhatItCannotDo();
    void exec_takesCommandAfterSeparatorAndProxyOptionsBefore();
    void exec_refusesWhatItCannotDo_data();
    void exec_refusesWhatItCannotDo();
    void attach_takesTheRemotesUrl();
};

static Expected<CommandLine> parse(const QStringList &args)
{
    return parseCommandLine(QStringList{u"breakwater"_s} + args);
}

void TestCommandLine::defaults_matchTheDesign()
{
    const Expected<CommandLine> line = parse({});
    QVERIFY(line.ok());
    QCOMPARE(line->config.listenAddress, QHostAddress(QHostAddress::LocalHost));
    QCOMPARE(line->config.listenPort, 8080);
    QCOMPARE(line->config.openaiUpstream, QUrl(u"https://api.openai.com/v1"_s));
    QCOMPARE(line->config.anthropicUpstream, QUrl(u"https://api.anthropic.com"_s));
    QCOMPARE(line->config.upstreamTimeout, 60s);
    QCOMPARE(line->config.concurrency, 64);
    QCOMPARE(line->config.dedupWindow, 300s);
    QCOMPARE(line->config.cacheBytes, 64 * 1024 * 1024);
    QCOMPARE(line->config.breakerFailures, 5);
    QCOMPARE(line->config.breakerCooldown, 60s);
    QCOMPARE(line->config.maxBodyBytes, 32 * 1024 * 1024);
    QVERIFY(line->config.allowedOrigins.isEmpty());   // web pages are refused
    QVERIFY(!line->headless && !line->demo);
}

void TestCommandLine::validValues_areApplied()
{
    const Expected<CommandLine> line = parse({u"--headless"_s, u"--listen"_s, u"127.0.0.2:0"_s, u"--upstream"_s,
                                              u"http://127.0.0.1:8000/v1"_s, u"--timeout=2.5"_s, u"--concurrency"_s, u"4"_s,
                                              u"--dedup-window"_s, u"0"_s, u"--cache-size"_s, u"1.5"_s,
                                              u"--breaker-failures"_s, u"3"_s, u"--breaker-cooldown"_s, u"0.5"_s, u"--demo"_s});
    QVERIFY2(line.ok(), qPrintable(line.error()));
    QVERIFY(line->headless && line->demo);
    QCOMPARE(line->config.listenAddress, QHostAddress(u"127.0.0.2"_s));
    QCOMPARE(line->config.listenPort, 0);
    QCOMPARE(line->config.openaiUpstream, QUrl(u"http://127.0.0.1:8000/v1"_s));
    QCOMPARE(line->config.upstreamTimeout, 2500ms);
    QCOMPARE(line->config.concurrency, 4);
    QCOMPARE(line->config.dedupWindow, 0ms);
    QCOMPARE(line->config.cacheBytes, qint64(1.5 * 1024 * 1024));
    QCOMPARE(line->config.breakerFailures, 3);
    QCOMPARE(line->config.breakerCooldown, 500ms);
}

void TestCommandLine::caFile_mustHoldACertificate()
{
    // A readable PEM file with a certificate is taken (as an absolute path); a missing file or one
    // without a certificate is refused with what is wrong, before anything starts.
    const QString ca = QStringLiteral(BREAKWATER_TEST_DATA "/tls/ca.pem");
    const Expected<CommandLine> line = parse({u"--ca-file"_s, ca});
    QVERIFY2(line.ok(), qPrintable(line.error()));
    QCOMPARE(line->config.caFile, QFileInfo(ca).absoluteFilePath());

    const Expected<CommandLine> missing = parse({u"--ca-file"_s, u"/nonexistent/ca.pem"_s});
    QVERIFY(!missing.ok());
    QVERIFY2(missing.error().contains(u"cannot read --ca-file"_s), qPrintable(missing.error()));
    QTemporaryFile notPem;
    QVERIFY(notPem.open());
    notPem.write("just some text\n");
    notPem.close();
    const Expected<CommandLine> empty = parse({u"--ca-file"_s, notPem.fileName()});
    QVERIFY(!empty.ok());
    QVERIFY2(empty.error().contains(u"holds no PEM certificate"_s), qPrintable(empty.error()));
}

void TestCommandLine::tinySeconds_neverRoundToZero()
{
    // 0.1 ms is "greater than 0", so it must not become a 0 ms timeout that fails every call.
    const Expected<CommandLine> line = parse({u"--timeout"_s, u"0.0001"_s, u"--breaker-cooldown"_s, u"1e-9"_s});
    QVERIFY2(line.ok(), qPrintable(line.error()));
    QCOMPARE(line->config.upstreamTimeout, 1ms);
    QCOMPARE(line->config.breakerCooldown, 1ms);
    QTemporaryFile file;
    QVERIFY(file.open());
    file.write(R"({"timeout": 1e-6})");
    file.close();
    const Expected<CommandLine> fromFile = parse({u"--config"_s, file.fileName()});
    QVERIFY2(fromFile.ok(), qPrintable(fromFile.error()));
    QCOMPARE(fromFile->config.upstreamTimeout, 1ms);
}

void TestCommandLine::invalidValues_areRefused_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("mentions");
    QTest::newRow("unknown option") << QStringList{u"--frobnicate"_s} << u"--frobnicate"_s;
    QTest::newRow("missing value") << QStringList{u"--timeout"_s} << u"--timeout"_s;
    QTest::newRow("negative timeout") << QStringList{u"--timeout"_s, u"-1"_s} << u"--timeout"_s;
    QTest::newRow("zero timeout") << QStringList{u"--timeout"_s, u"0"_s} << u"--timeout"_s;
    QTest::newRow("text timeout") << QStringList{u"--timeout"_s, u"soon"_s} << u"soon"_s;
    QTest::newRow("zero concurrency") << QStringList{u"--concurrency"_s, u"0"_s} << u"--concurrency"_s;
    QTest::newRow("fractional concurrency") << QStringList{u"--concurrency"_s, u"2.5"_s} << u"--concurrency"_s;
    QTest::newRow("listen without port") << QStringList{u"--listen"_s, u"127.0.0.1"_s} << u"--listen"_s;
    QTest::newRow("listen bad port") << QStringList{u"--listen"_s, u"127.0.0.1:99999"_s} << u"--listen"_s;
    QTest::newRow("listen hostname") << QStringList{u"--listen"_s, u"example.com:80"_s} << u"--listen"_s;
    QTest::newRow("listen beyond loopback") << QStringList{u"--listen"_s, u"0.0.0.0:8080"_s} << u"loopback"_s;
    QTest::newRow("upstream not http") << QStringList{u"--upstream"_s, u"ftp://x/v1"_s} << u"--upstream"_s;
    QTest::newRow("attach not http") << QStringList{u"--attach"_s, u"ftp://team.example:21"_s} << u"--attach"_s;
    QTest::newRow("attach without host") << QStringList{u"--attach"_s, u"https://"_s} << u"--attach"_s;
    QTest::newRow("attach without a URL") << QStringList{u"--attach"_s} << u"--attach"_s;
    QTest::newRow("negative window") << QStringList{u"--dedup-window"_s, u"-3"_s} << u"--dedup-window"_s;
    QTest::newRow("zero breaker failures") << QStringList{u"--breaker-failures"_s, u"0"_s} << u"--breaker-failures"_s;
    QTest::newRow("switch with value") << QStringList{u"--headless=yes"_s} << u"--headless"_s;
    QTest::newRow("origin with a path") << QStringList{u"--allow-origin"_s, u"http://localhost:3000/app"_s} << u"--allow-origin"_s;
    QTest::newRow("origin wildcard") << QStringList{u"--allow-origin"_s, u"*"_s} << u"--allow-origin"_s;
    QTest::newRow("origin without scheme") << QStringList{u"--allow-origin"_s, u"localhost:3000"_s} << u"--allow-origin"_s;
    QTest::newRow("no origin at all") << QStringList{u"--allow-origin"_s, u","_s} << u"--allow-origin"_s;
    QTest::newRow("missing config file") << QStringList{u"--config"_s, u"/nonexistent/breakwater.json"_s} << u"config"_s;
}

void TestCommandLine::invalidValues_areRefused()
{
    QFETCH(QStringList, args);
    QFETCH(QString, mentions);
    const Expected<CommandLine> line = parse(args);
    QVERIFY(!line.ok());
    QVERIFY2(line.error().contains(mentions), qPrintable(line.error()));
}

void TestCommandLine::configFile_isOverriddenByCommandLine()
{
    QTemporaryFile file;
    QVERIFY(file.open());
    file.write(R"({"concurrency": 8, "timeout": 3, "headless": true})");
    file.close();
    const Expected<CommandLine> line = parse({u"--config"_s, file.fileName(), u"--concurrency"_s, u"2"_s});
    QVERIFY2(line.ok(), qPrintable(line.error()));
    QCOMPARE(line->config.concurrency, 2);
    QCOMPARE(line->config.upstreamTimeout, 3s);
    QVERIFY(line->headless);

    QTemporaryFile bad;
    QVERIFY(bad.open());
    bad.write(R"({"colour": "blue"})");
    bad.close();
    QVERIFY(parse({u"--config"_s, bad.fileName()}).error().contains(u"colour"_s));
}

void TestCommandLine::help_listsEveryOption()
{
    const QString help = helpText();
    for (const char *option : {"--headless", "--listen", "--upstream", "--anthropic-upstream", "--timeout",
                               "--concurrency", "--dedup-window", "--cache-size", "--breaker-failures",
                               "--breaker-cooldown", "--demo", "--config", "--minimized", "--allow-origin", "--route",
                               "--gemini-upstream"})
        QVERIFY2(help.contains(QLatin1StringView(option)), option);
}

void TestCommandLine::configFile_badKeysAndValuesAreNamed_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QStringList>("mentions");
    QTest::newRow("unknown key") << QByteArray(R"({"colour": "blue"})")
                                 << QStringList{u"unknown key 'colour'"_s, u"without the dashes"_s};
    QTest::newRow("a dashed key") << QByteArray(R"({"--timeout": 3})") << QStringList{u"unknown key '--timeout'"_s};
    QTest::newRow("not for the file") << QByteArray(R"({"help": true})") << QStringList{u"unknown key 'help'"_s};
    QTest::newRow("bad seconds") << QByteArray(R"({"timeout": 0})")
                                 << QStringList{u"key 'timeout'"_s, u"expected seconds greater than 0"_s};
    QTest::newRow("bad url") << QByteArray(R"({"upstream": "ftp://x"})")
                             << QStringList{u"key 'upstream'"_s, u"expected an http(s) URL"_s};
    QTest::newRow("switch as text") << QByteArray(R"({"headless": "yes"})")
                                    << QStringList{u"key 'headless'"_s, u"true or false"_s};
    QTest::newRow("value as a list") << QByteArray(R"({"concurrency": [4]})")
                                     << QStringList{u"key 'concurrency'"_s, u"a number or a string"_s};
    QTest::newRow("origins as numbers") << QByteArray(R"({"allow-origin": [3000]})")
                                        << QStringList{u"key 'allow-origin'"_s, u"list of strings"_s};
    QTest::newRow("fractional count") << QByteArray(R"({"concurrency": 2.5})")
                                      << QStringList{u"key 'concurrency'"_s, u"whole number"_s};
    QTest::newRow("not an object") << QByteArray("[1, 2]") << QStringList{u"not a JSON object"_s};
    QTest::newRow("not JSON") << QByteArray("timeout = 3") << QStringList{u"not a JSON object"_s};
}

void TestCommandLine::configFile_badKeysAndValuesAreNamed()
{
    QFETCH(QByteArray, json);
    QFETCH(QStringList, mentions);
    QTemporaryFile file;
    QVERIFY(file.open());
    file.write(json);
    file.close();
    for (const QString &path : {file.fileName()}) {
        // Named with --config, and found at the default location: the same messages.
        for (const Expected<CommandLine> &line :
             {parse({u"--config"_s, path}), parseCommandLine({u"breakwater"_s}, path)}) {
            QVERIFY(!line.ok());
            QVERIFY2(line.error().contains(path), qPrintable(line.error()));
            for (const QString &mention : mentions)
                QVERIFY2(line.error().contains(mention), qPrintable(line.error()));
        }
    }
}

void TestCommandLine::configFile_holdsEveryOption()
{
    QTemporaryFile file;
    QVERIFY(file.open());
    file.write(R"({"headless": true, "listen": "127.0.0.1:9999", "upstream": "http://127.0.0.1:8000/v1",
        "anthropic-upstream": "http://127.0.0.1:8001", "timeout": 2.5, "concurrency": 8, "max-queue": 1000000,
        "max-body": 4, "dedup-window": 0, "cache-size": 2, "breaker-failures": 3, "breaker-cooldown": "0.5",
        "max-spend": 1.25, "prices": "/tmp/p.json", "log-db": "/tmp/calls.sqlite", "log-bodies": true,
        "demo": false, "minimized": true, "allow-origin": ["http://localhost:3000", "https://app.example"],
        "fault": ["503:count=2", "cut=3"], "control-token": "secrets/breakwater-token"})");
    file.close();
    const Expected<CommandLine> line = parse({u"--config"_s, file.fileName()});
    QVERIFY2(line.ok(), qPrintable(line.error()));
    QVERIFY(line->headless && line->logBodies && line->minimized && !line->demo);
    QCOMPARE(line->config.listenPort, 9999);
    QCOMPARE(line->config.openaiUpstream, QUrl(u"http://127.0.0.1:8000/v1"_s));
    QCOMPARE(line->config.anthropicUpstream, QUrl(u"http://127.0.0.1:8001"_s));
    QCOMPARE(line->config.upstreamTimeout, 2500ms);
    QCOMPARE(line->config.concurrency, 8);
    QCOMPARE(line->config.maxQueued, 1000000);
    QCOMPARE(line->config.maxBodyBytes, 4 * 1024 * 1024);
    QCOMPARE(line->config.dedupWindow, 0ms);
    QCOMPARE(line->config.cacheBytes, 2 * 1024 * 1024);
    QCOMPARE(line->config.breakerFailures, 3);
    QCOMPARE(line->config.breakerCooldown, 500ms);
    QCOMPARE(line->config.maxSpendUsd, 1.25);
    QCOMPARE(line->config.priceFile, u"/tmp/p.json"_s);
    QCOMPARE(line->logDb, u"/tmp/calls.sqlite"_s);
    QVERIFY(line->given.contains(u"--max-queue"_s) && !line->given.contains(u"--demo"_s));
    QCOMPARE(line->config.allowedOrigins, QStringList({u"http://localhost:3000"_s, u"https://app.example"_s}));
    QCOMPARE(line->config.faults.size(), 2);
    QCOMPARE(line->config.faults[1].text(), u"cut=3"_s);
    QCOMPARE(line->controlTokenFile, u"secrets/breakwater-token"_s);
}

void TestCommandLine::controlToken_namesTheTokenFile()
{
    QVERIFY(parse({})->controlTokenFile.isEmpty());   // the per-user default
    const Expected<CommandLine> server = parse({u"--control-token"_s, u"my-token"_s});
    QVERIFY2(server.ok(), qPrintable(server.error()));
    QCOMPARE(server->controlTokenFile, u"my-token"_s);
    // `breakwater fault` takes it too, to read the token of the instance it talks to.
    const Expected<CommandLine> client = parse({u"fault"_s, u"list"_s, u"--control-token=my-token"_s});
    QVERIFY2(client.ok(), qPrintable(client.error()));
    QCOMPARE(client->controlTokenFile, u"my-token"_s);
    const Expected<CommandLine> empty = parse({u"--control-token="_s});
    QVERIFY(!empty.ok());
    QVERIFY2(empty.error().contains(u"--control-token"_s), qPrintable(empty.error()));
}

void TestCommandLine::positionalArguments_onlyReport()
{
    const Expected<CommandLine> json = parse({u"report"_s, u"--json"_s});
    QVERIFY2(json.ok() && json->reportJson, qPrintable(json.error()));
    QVERIFY(parse({u"report"_s}).ok());
    QVERIFY(parse({u"reprot"_s}).error().contains(u"unexpected argument 'reprot'"_s));
    QVERIFY(parse({u"report"_s, u"extra"_s}).error().contains(u"'extra'"_s));
    QVERIFY(parse({u"--json"_s}).error().contains(u"breakwater report"_s));
}

void TestCommandLine::allowOrigin_isRepeatableCommaSeparatedAndNormalised()
{
    const Expected<CommandLine> line = parse({u"--allow-origin"_s, u"http://localhost:3000"_s, u"--allow-origin"_s,
                                    u"HTTPS://App.Example:443/, http://[::1]:5173,http://localhost:3000"_s});
    QVERIFY2(line.ok(), qPrintable(line.error()));
    QCOMPARE(line->config.allowedOrigins,
             QStringList({u"http://localhost:3000"_s, u"https://app.example"_s, u"http://[::1]:5173"_s}));

    // A string in the configuration file, which the command line overrides as a whole.
    QTemporaryFile file;
    QVERIFY(file.open());
    file.write(R"({"allow-origin": "http://localhost:8000, http://localhost:8001"})");
    file.close();
    QCOMPARE(parse({u"--config"_s, file.fileName()})->config.allowedOrigins,
             QStringList({u"http://localhost:8000"_s, u"http://localhost:8001"_s}));
    QCOMPARE(parse({u"--config"_s, file.fileName(), u"--allow-origin"_s, u"null"_s})->config.allowedOrigins,
             QStringList({u"null"_s}));
}

void TestCommandLine::fault_isRepeatableAndABadRuleIsNamed()
{
    QVERIFY(parse({})->config.faults.isEmpty());   // off by default
    const Expected<CommandLine> line = parse({u"--fault"_s, u"503:count=2"_s, u"--fault"_s, u"429:retry-after=2"_s,
                                              u"--fault"_s, u"hang:for=30s"_s});
    QVERIFY2(line.ok(), qPrintable(line.error()));
    QCOMPARE(line->config.faults.size(), 3);
    QCOMPARE(line->config.faults[0].text(), u"503:count=2"_s);
    QCOMPARE(line->config.faults[1].text(), u"429:retry-after=2s"_s);
    QCOMPARE(line->config.faults[2].kind, FaultRule::Kind::Hang);
    const Expected<CommandLine> bad = parse({u"--fault"_s, u"503"_s, u"--fault"_s, u"cut=many"_s});
    QVERIFY(!bad.ok());
    QVERIFY2(bad.error().contains(u"--fault"_s) && bad.error().contains(u"'cut=many'"_s)
                 && bad.error().contains(u"cut needs the number of events"_s), qPrintable(bad.error()));
    QVERIFY(helpText().contains(u"--fault RULE"_s));
    QVERIFY(helpText().contains(u"breakwater fault add [--fleet] RULE | list | clear [ID]"_s));
}

void TestCommandLine::faultSubcommand_parsesAddListAndClear_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<int>("action");
    QTest::addColumn<QString>("argument");
    QTest::addColumn<quint16>("port");
    QTest::addColumn<bool>("fleet");
    QTest::newRow("add") << QStringList{u"fault"_s, u"add"_s, u"529:p=30"_s} << int(FaultCommand::Action::Add)
                         << u"529:p=30"_s << quint16(8080) << false;
    QTest::newRow("add for the fleet") << QStringList{u"fault"_s, u"add"_s, u"--fleet"_s, u"503"_s}
                                       << int(FaultCommand::Action::Add) << u"503"_s << quint16(8080) << true;
    QTest::newRow("add, canonical") << QStringList{u"fault"_s, u"add"_s, u"delay=2:count=1"_s}
                                    << int(FaultCommand::Action::Add) << u"delay=2s:count=1"_s << quint16(8080) << false;
    QTest::newRow("list elsewhere") << QStringList{u"fault"_s, u"list"_s, u"--listen"_s, u"127.0.0.1:9000"_s}
                                    << int(FaultCommand::Action::List) << QString() << quint16(9000) << false;
    QTest::newRow("clear all") << QStringList{u"fault"_s, u"clear"_s} << int(FaultCommand::Action::Clear) << QString()
                               << quint16(8080) << false;
    QTest::newRow("clear one") << QStringList{u"fault"_s, u"clear"_s, u"3"_s} << int(FaultCommand::Action::Clear)
                               << u"3"_s << quint16(8080) << false;
    QTest::newRow("clear #one") << QStringList{u"fault"_s, u"clear"_s, u"#12"_s} << int(FaultCommand::Action::Clear)
                                << u"12"_s << quint16(8080) << false;
}

void TestCommandLine::faultSubcommand_parsesAddListAndClear()
{
    QFETCH(QStringList, args);
    QFETCH(int, action);
    QFETCH(QString, argument);
    QFETCH(quint16, port);
    QFETCH(bool, fleet);
    const Expected<CommandLine> line = parse(args);
    QVERIFY2(line.ok(), qPrintable(line.error()));
    QCOMPARE(line->faultCommand.fleet, fleet);
    QCOMPARE(int(line->faultCommand.action), action);
    QCOMPARE(line->faultCommand.argument, argument);
    QCOMPARE(line->config.listenPort, port);
    QCOMPARE(parse({})->faultCommand.action, FaultCommand::Action::None);
}

void TestCommandLine::faultSubcommand_refusesWhatItCannotDo_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("mention");
    QTest::newRow("no action") << QStringList{u"fault"_s} << u"needs an action"_s;
    QTest::newRow("unknown action") << QStringList{u"fault"_s, u"arm"_s, u"503"_s} << u"unknown fault action 'arm'"_s;
    QTest::newRow("add without a rule") << QStringList{u"fault"_s, u"add"_s} << u"takes one RULE"_s;
    QTest::newRow("add two rules") << QStringList{u"fault"_s, u"add"_s, u"503"_s, u"hang"_s} << u"takes one RULE"_s;
    QTest::newRow("add a bad rule") << QStringList{u"fault"_s, u"add"_s, u"503:p=101"_s} << u"p is a percentage"_s;
    QTest::newRow("list with more") << QStringList{u"fault"_s, u"list"_s, u"all"_s} << u"unexpected argument 'all'"_s;
    QTest::newRow("clear a name") << QStringList{u"fault"_s, u"clear"_s, u"mine"_s} << u"not 'mine'"_s;
    QTest::newRow("clear two") << QStringList{u"fault"_s, u"clear"_s, u"1"_s, u"2"_s} << u"at most one"_s;
    QTest::newRow("list --fleet") << QStringList{u"fault"_s, u"list"_s, u"--fleet"_s} << u"--fleet goes with"_s;
}

void TestCommandLine::faultSubcommand_refusesWhatItCannotDo()
{
    QFETCH(QStringList, args);
    QFETCH(QString, mention);
    const Expected<CommandLine> line = parse(args);
    QVERIFY(!line.ok());
    QVERIFY2(line.error().contains(mention), qPrintable(line.error()));
}


void TestCommandLine::exec_takesCommandAfterSeparatorAndProxyOptionsBefore()
{
    const Expected<CommandLine> line = parse({u"exec"_s, u"--faults"_s, u"drill.json"_s, u"--timeout"_s, u"5"_s,
                                              u"--junit"_s, u"out.xml"_s, u"--har"_s, u"out.har"_s, u"--"_s,
                                              u"node"_s, u"app.js"_s, u"--timeout"_s, u"--"_s, u"-x"_s});
    QVERIFY2(line.ok(), qPrintable(line.error()));
    QVERIFY(line->exec.requested);
    QCOMPARE(line->exec.faultsFile, u"drill.json"_s);
    QCOMPARE(line->exec.junitFile, u"out.xml"_s);
    QCOMPARE(line->exec.harFile, u"out.har"_s);
    // Everything after the first `--` is COMMAND's, its own options and `--` included.
    QCOMPARE(line->exec.command, (QStringList{u"node"_s, u"app.js"_s, u"--timeout"_s, u"--"_s, u"-x"_s}));
    QCOMPARE(line->config.upstreamTimeout, 5s);   // before `--`: the private Breakwater's
    QVERIFY(!parse({}).value().exec.requested);
}

void TestCommandLine::exec_refusesWhatItCannotDo_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    QTest::newRow("no command") << QStringList{u"exec"_s} << u"`breakwater exec` needs a COMMAND after `--`"_s;
    QTest::newRow("empty command") << QStringList{u"exec"_s, u"--"_s} << u"`breakwater exec` needs a COMMAND after `--`"_s;
    QTest::newRow("command without --") << QStringList{u"exec"_s, u"node"_s} << u"unexpected argument 'node': write COMMAND after `--`"_s;
    QTest::newRow("-- without exec") << QStringList{u"--headless"_s, u"--"_s, u"node"_s} << u"a COMMAND after `--` goes with `breakwater exec`"_s;
    QTest::newRow("--faults without exec") << QStringList{u"--faults"_s, u"f.json"_s} << u"--faults goes with `breakwater exec`"_s;
    QTest::newRow("--junit without exec") << QStringList{u"--junit"_s, u"j.xml"_s} << u"--junit goes with `breakwater exec`"_s;
    QTest::newRow("bad proxy option") << QStringList{u"exec"_s, u"--timeout"_s, u"soon"_s, u"--"_s, u"node"_s}
                                      << u"invalid value 'soon' for --timeout"_s;
}

void TestCommandLine::exec_refusesWhatItCannotDo()
{
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    const Expected<CommandLine> line = parse(args);
    QVERIFY(!line.ok());
    QVERIFY2(line.error().contains(message), qPrintable(line.error()));
}

void TestCommandLine::attach_takesTheRemotesUrl()
{
    QVERIFY(parse({}).value().attach.isEmpty());   // no --attach: the proxy starts here
    const Expected<CommandLine> line = parse({u"--attach"_s, u"https://breakwater.team.example:8443"_s,
                                              u"--control-token"_s, u"/tmp/team-token"_s});
    QVERIFY2(line.ok(), qPrintable(line.error()));
    QCOMPARE(line->attach, QUrl(u"https://breakwater.team.example:8443"_s));
    QCOMPARE(line->controlTokenFile, u"/tmp/team-token"_s);
    QVERIFY(helpText().contains(u"--attach URL"_s));
}

QTEST_GUILESS_MAIN(TestCommandLine)
#include "tst_commandline.moc"
