// The fixed command-line interface: every option parsed, every invalid value refused with a message.

#include "commandline.h"

#include <QTemporaryFile>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace std::chrono_literals;

class TestCommandLine final : public QObject
{
    Q_OBJECT
private slots:
    void defaults_matchTheDesign();
    void validValues_areApplied();
    void invalidValues_areRefused_data();
    void invalidValues_areRefused();
    void configFile_isOverriddenByCommandLine();
    void help_listsEveryOption();
};

static CommandLine parse(const QStringList &args)
{
    return parseCommandLine(QStringList{u"breakwater"_s} + args);
}

void TestCommandLine::defaults_matchTheDesign()
{
    const CommandLine line = parse({});
    QVERIFY(line.error.isEmpty());
    QCOMPARE(line.config.listenAddress, QHostAddress(QHostAddress::LocalHost));
    QCOMPARE(line.config.listenPort, 8080);
    QCOMPARE(line.config.openaiUpstream, QUrl(u"https://api.openai.com/v1"_s));
    QCOMPARE(line.config.anthropicUpstream, QUrl(u"https://api.anthropic.com"_s));
    QCOMPARE(line.config.upstreamTimeout, 60s);
    QCOMPARE(line.config.concurrency, 64);
    QCOMPARE(line.config.dedupWindow, 300s);
    QCOMPARE(line.config.cacheBytes, 64 * 1024 * 1024);
    QCOMPARE(line.config.breakerFailures, 5);
    QCOMPARE(line.config.breakerCooldown, 60s);
    QCOMPARE(line.config.maxBodyBytes, 32 * 1024 * 1024);
    QVERIFY(!line.headless && !line.demo);
}

void TestCommandLine::validValues_areApplied()
{
    const CommandLine line = parse({u"--headless"_s, u"--listen"_s, u"127.0.0.2:0"_s, u"--upstream"_s,
                                    u"http://127.0.0.1:8000/v1"_s, u"--timeout=2.5"_s, u"--concurrency"_s, u"4"_s,
                                    u"--dedup-window"_s, u"0"_s, u"--cache-size"_s, u"1.5"_s,
                                    u"--breaker-failures"_s, u"3"_s, u"--breaker-cooldown"_s, u"0.5"_s, u"--demo"_s});
    QVERIFY2(line.error.isEmpty(), qPrintable(line.error));
    QVERIFY(line.headless && line.demo);
    QCOMPARE(line.config.listenAddress, QHostAddress(u"127.0.0.2"_s));
    QCOMPARE(line.config.listenPort, 0);
    QCOMPARE(line.config.openaiUpstream, QUrl(u"http://127.0.0.1:8000/v1"_s));
    QCOMPARE(line.config.upstreamTimeout, 2500ms);
    QCOMPARE(line.config.concurrency, 4);
    QCOMPARE(line.config.dedupWindow, 0ms);
    QCOMPARE(line.config.cacheBytes, qint64(1.5 * 1024 * 1024));
    QCOMPARE(line.config.breakerFailures, 3);
    QCOMPARE(line.config.breakerCooldown, 500ms);
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
    QTest::newRow("negative window") << QStringList{u"--dedup-window"_s, u"-3"_s} << u"--dedup-window"_s;
    QTest::newRow("zero breaker failures") << QStringList{u"--breaker-failures"_s, u"0"_s} << u"--breaker-failures"_s;
    QTest::newRow("switch with value") << QStringList{u"--headless=yes"_s} << u"--headless"_s;
    QTest::newRow("missing config file") << QStringList{u"--config"_s, u"/nonexistent/breakwater.json"_s} << u"config"_s;
}

void TestCommandLine::invalidValues_areRefused()
{
    QFETCH(QStringList, args);
    QFETCH(QString, mentions);
    const CommandLine line = parse(args);
    QVERIFY(!line.error.isEmpty());
    QVERIFY2(line.error.contains(mentions), qPrintable(line.error));
}

void TestCommandLine::configFile_isOverriddenByCommandLine()
{
    QTemporaryFile file;
    QVERIFY(file.open());
    file.write(R"({"concurrency": 8, "timeout": 3, "headless": true})");
    file.close();
    const CommandLine line = parse({u"--config"_s, file.fileName(), u"--concurrency"_s, u"2"_s});
    QVERIFY2(line.error.isEmpty(), qPrintable(line.error));
    QCOMPARE(line.config.concurrency, 2);
    QCOMPARE(line.config.upstreamTimeout, 3s);
    QVERIFY(line.headless);

    QTemporaryFile bad;
    QVERIFY(bad.open());
    bad.write(R"({"colour": "blue"})");
    bad.close();
    QVERIFY(parse({u"--config"_s, bad.fileName()}).error.contains(u"colour"_s));
}

void TestCommandLine::help_listsEveryOption()
{
    const QString help = helpText();
    for (const char *option : {"--headless", "--listen", "--upstream", "--anthropic-upstream", "--timeout",
                               "--concurrency", "--dedup-window", "--cache-size", "--breaker-failures",
                               "--breaker-cooldown", "--demo", "--config"})
        QVERIFY2(help.contains(QLatin1StringView(option)), option);
}

QTEST_GUILESS_MAIN(TestCommandLine)
#include "tst_commandline.moc"
