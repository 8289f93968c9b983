// --shared-state's URL: what is accepted, what is refused, and that the password never shows.
#include <QTest>
#include <QUrl>
#include <QUrlQuery>

#include "commandline.h"
#include "fleet/redistarget.h"

using namespace Qt::StringLiterals;

class TestRedisTarget final : public QObject
{
    Q_OBJECT
private slots:
    void parses_data();
    void parses();
    void refuses_data();
    void refuses();
    void commandLineAndConfigFile();
};

void TestRedisTarget::parses_data()
{
    QTest::addColumn<QString>("url");
    QTest::addColumn<QString>("host");
    QTest::addColumn<int>("port");
    QTest::addColumn<QByteArray>("user");
    QTest::addColumn<QByteArray>("password");
    QTest::addColumn<int>("db");
    QTest::addColumn<QString>("display");
    QTest::newRow("plain") << u"redis://127.0.0.1:6379"_s << u"127.0.0.1"_s << 6379 << QByteArray() << QByteArray() << 0
                           << u"redis://127.0.0.1:6379/0"_s;
    QTest::newRow("password") << u"redis://:s3cret@10.0.0.5:6380/2"_s << u"10.0.0.5"_s << 6380 << QByteArray()
                              << QByteArray("s3cret") << 2 << u"redis://:***@10.0.0.5:6380/2"_s;
    QTest::newRow("acl user") << u"redis://bw:p%40ss@redis.internal:6379/"_s << u"redis.internal"_s << 6379
                              << QByteArray("bw") << QByteArray("p@ss") << 0 << u"redis://bw:***@redis.internal:6379/0"_s;
    QTest::newRow("timeout") << u"redis://:s3cret@10.0.0.5:6380/2?timeout=1.5s"_s << u"10.0.0.5"_s << 6380 << QByteArray()
                             << QByteArray("s3cret") << 2 << u"redis://:***@10.0.0.5:6380/2?timeout=1500ms"_s;
}

void TestRedisTarget::parses()
{
    QFETCH(QString, url);
    const Expected<RedisTarget> target = parseRedisTarget(url);
    QVERIFY2(target.ok(), qPrintable(target.error()));
    QTEST(target->host, "host");
    QTEST(int(target->port), "port");
    QTEST(target->user, "user");
    QTEST(target->password, "password");
    QTEST(target->db, "db");
    QTEST(target->display(), "display");
    const QString timeout = QUrlQuery(QUrl(url)).queryItemValue(u"timeout"_s);
    QCOMPARE(target->timeout.count(), timeout.isEmpty() ? 100 : qint64(timeout.chopped(1).toDouble() * 1000));
}

void TestRedisTarget::refuses_data()
{
    QTest::addColumn<QString>("url");
    QTest::newRow("no port") << u"redis://:pw-xyz@127.0.0.1"_s;
    QTest::newRow("http") << u"http://:pw-xyz@127.0.0.1:6379"_s;
    QTest::newRow("db not a number") << u"redis://:pw-xyz@127.0.0.1:6379/abc"_s;
    QTest::newRow("db too big") << u"redis://:pw-xyz@127.0.0.1:6379/16"_s;
    QTest::newRow("no host") << u"redis://:pw-xyz@:6379"_s;
    QTest::newRow("user without password") << u"redis://bw@127.0.0.1:6379"_s;
    QTest::newRow("unknown query") << u"redis://:pw-xyz@127.0.0.1:6379/0?db=1"_s;
    QTest::newRow("timeout not a duration") << u"redis://:pw-xyz@127.0.0.1:6379/0?timeout=soon"_s;
    QTest::newRow("timeout zero") << u"redis://:pw-xyz@127.0.0.1:6379/0?timeout=0"_s;
    QTest::newRow("timeout over a minute") << u"redis://:pw-xyz@127.0.0.1:6379/0?timeout=2m"_s;
    QTest::newRow("fragment") << u"redis://:pw-xyz@127.0.0.1:6379/0#x"_s;
    QTest::newRow("rediss, no TLS client") << u"rediss://:pw-xyz@127.0.0.1:6379"_s;
    QTest::newRow("garbage") << u"not a url at all"_s;
}

void TestRedisTarget::refuses()
{
    QFETCH(QString, url);
    const Expected<RedisTarget> target = parseRedisTarget(url);
    QVERIFY(!target.ok());
    QVERIFY(target.error().contains(u"redis://[user:password@]host:port[/db][?timeout=D]"_s));
    QVERIFY2(!target.error().contains(u"pw-xyz"_s), qPrintable(target.error()));
}

void TestRedisTarget::commandLineAndConfigFile()
{
    const Expected<CommandLine> none = parseCommandLine({u"breakwater"_s});
    QVERIFY(none.ok());
    QVERIFY(!none->config.sharedState);   // off by default

    const Expected<CommandLine> given = parseCommandLine({u"breakwater"_s, u"--shared-state"_s, u"redis://127.0.0.1:7000/3"_s});
    QVERIFY2(given.ok(), qPrintable(given.error()));
    QVERIFY(given->config.sharedState);
    QCOMPARE(given->config.sharedState->port, 7000);
    QCOMPARE(given->config.sharedState->db, 3);

    const Expected<CommandLine> bad = parseCommandLine({u"breakwater"_s, u"--shared-state"_s, u"redis://h"_s});
    QVERIFY(!bad.ok());
    QVERIFY(bad.error().contains(u"--shared-state"_s));

    QTemporaryDir dir;
    const QString path = dir.filePath(u"config.json"_s);
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(R"({"shared-state": "redis://:pw@127.0.0.1:7001"})");
    file.close();
    const Expected<CommandLine> fromFile = parseCommandLine({u"breakwater"_s, u"--config"_s, path});
    QVERIFY2(fromFile.ok(), qPrintable(fromFile.error()));
    QCOMPARE(fromFile->config.sharedState->port, 7001);
    QCOMPARE(fromFile->config.sharedState->password, QByteArray("pw"));
    QVERIFY(helpText().contains(u"--shared-state URL"_s));
}

QTEST_GUILESS_MAIN(TestRedisTarget)
#include "tst_redistarget.moc"
