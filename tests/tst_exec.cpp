// `breakwater exec`: the real binary runs a real app (drill_client, which calls as the official SDKs
// do, retries included) against its private Breakwater, which calls a mock provider in this test
// process. Checked: the exit status is COMMAND's (127 and 126 as a shell says, 130 after SIGINT),
// a timeline that cannot be read is refused with 2 before COMMAND runs, the summary's figures
// match what the provider counted, the JUnit file passes xmllint against tests/data/junit.xsd and
// says which windows were recovered, and the HAR file holds every call.

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>

#include "mockprovider.h"
#include "servicethread.h"

using namespace Qt::StringLiterals;

namespace {

struct Run
{
    int exitCode = -1;
    QString out;
    QString err;
    // The summary's line for `name` ("calls", "the app saw", ...), without its name.
    QString line(const QString &name) const
    {
        for (const QString &l : err.split(u'\n')) {
            if (l.startsWith(u"  "_s + name + u' '))
                return l.mid(2 + name.size()).trimmed();
        }
        return {};
    }
};

Run finish(QProcess &process)
{
    Run run;
    if (!process.waitForFinished(120'000))
        process.kill();
    run.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    run.out = QString::fromLocal8Bit(process.readAllStandardOutput());
    run.err = QString::fromLocal8Bit(process.readAllStandardError());
    return run;
}

bool validatesAgainstJUnitSchema(const QString &path, QString *output)
{
    QProcess xmllint;
    xmllint.setProcessChannelMode(QProcess::MergedChannels);
    xmllint.start(QStringLiteral(XMLLINT), {u"--noout"_s, u"--schema"_s, QStringLiteral(JUNIT_XSD), path});
    xmllint.waitForFinished(60'000);
    *output = QString::fromLocal8Bit(xmllint.readAll());
    return xmllint.exitStatus() == QProcess::NormalExit && xmllint.exitCode() == 0;
}

} // namespace

class TestExec final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();
    void exitStatusIsCommands_summaryCountsTheCalls();
    void recoveredWindowPasses_junitValidates();
    void unrecoveredWindowFails_andOneNeverArmedIsSkipped();
    void har_holdsEveryCall();
    void commandNotFound_127_notExecutable_126();
    void badTimeline_refusedWith2_beforeCommandRuns_data();
    void badTimeline_refusedWith2_beforeCommandRuns();
    void sigint_stopsCommand_summaryStillPrinted();

private:
    QStringList execArguments(const QStringList &options, const QStringList &command) const;
    Run exec(const QStringList &options, const QStringList &command);
    QString writeTimeline(const QByteArray &json);

    std::unique_ptr<ServiceThread<MockProvider>> m_mock;
    std::unique_ptr<QTemporaryDir> m_dir;
};

void TestExec::init()
{
    m_mock = std::make_unique<ServiceThread<MockProvider>>(u"mock"_s, [] { return new MockProvider; });
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
}

void TestExec::cleanup()
{
    m_mock.reset();
    m_dir.reset();
}

QStringList TestExec::execArguments(const QStringList &options, const QStringList &command) const
{
    // --config on an empty file: the user's own configuration file never enters a test.
    QFile empty(m_dir->filePath(u"config.json"_s));
    if (!empty.exists() && empty.open(QIODevice::WriteOnly))
        empty.write("{}");
    return QStringList{u"exec"_s, u"--config"_s, empty.fileName(), u"--upstream"_s,
                       m_mock->service()->openaiBaseUrl().toString()}
           + options + QStringList{u"--"_s} + command;
}

Run TestExec::exec(const QStringList &options, const QStringList &command)
{
    QProcess process;
    process.start(QStringLiteral(BREAKWATER), execArguments(options, command));
    return finish(process);
}

QString TestExec::writeTimeline(const QByteArray &json)
{
    const QString path = m_dir->filePath(u"faults.json"_s);
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(json) != json.size())
        qFatal("cannot write %s", qPrintable(path));
    return path;
}

void TestExec::exitStatusIsCommands_summaryCountsTheCalls()
{
    const Run run = exec({}, {QStringLiteral(DRILL_CLIENT), u"--calls"_s, u"2"_s, u"--exit-status"_s, u"3"_s});
    QCOMPARE(run.exitCode, 3);
    QCOMPARE(run.out.count(u": 200 after 1 attempts"_s), 2);
    QCOMPARE(m_mock->service()->callCount(u"/v1/chat/completions"_s), 2);
    QCOMPARE(run.line(u"calls"_s), u"2 requests to Breakwater: 2 upstream calls, 0 joined, 0 cache hits"_s);
    QCOMPARE(run.line(u"retries"_s), u"2 logical calls, 1.00 requests per logical call (most: 1)"_s);
    QCOMPARE(run.line(u"the app saw"_s), u"200 x2"_s);
    QCOMPARE(run.line(u"faults injected"_s), u"0 (none)"_s);
    QCOMPARE(run.line(u"exit status"_s), u"3"_s);
}

void TestExec::recoveredWindowPasses_junitValidates()
{
    // Two injected 503s: the SDK's two retries meet the first two, its third try is answered.
    const QString faults = writeTimeline("{\"timeline\": [{\"at\": \"0s\", \"rule\": \"503:count=2\"}]}");
    const QString junit = m_dir->filePath(u"drill.xml"_s);
    const Run run = exec({u"--faults"_s, faults, u"--junit"_s, junit}, {QStringLiteral(DRILL_CLIENT)});
    QCOMPARE(run.exitCode, 0);
    QVERIFY2(run.out.contains(u"call 0: 200 after 3 attempts"_s), qPrintable(run.out));
    QCOMPARE(m_mock->service()->callCount(u"/v1/chat/completions"_s), 1);   // the injected two made no call
    QCOMPARE(run.line(u"calls"_s), u"3 requests to Breakwater: 1 upstream calls, 0 joined, 0 cache hits"_s);
    QCOMPARE(run.line(u"retries"_s), u"1 logical calls, 3.00 requests per logical call (most: 3)"_s);
    QCOMPARE(run.line(u"faults injected"_s), u"2 (503 x2)"_s);
    QCOMPARE(run.line(u"the app saw"_s), u"200 x1, 503 x2"_s);
    QCOMPARE(run.line(u"fault windows"_s), u"1: 1 recovered, 0 not recovered, 0 without calls or never armed"_s);

    QString lint;
    QVERIFY2(validatesAgainstJUnitSchema(junit, &lint), qPrintable(lint));
    QFile file(junit);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray xml = file.readAll();
    QVERIFY(xml.contains("<testsuite name=\"breakwater drill: "));
    QVERIFY(xml.contains("tests=\"1\" failures=\"0\""));
    QVERIFY(xml.contains("<testcase name=\"entry 1 at 0s: #1 503:count=2\""));
    QVERIFY(!xml.contains("<failure"));
    // The window ends with the rule's last injected answer: the third try, answered, is after it.
    QVERIFY(xml.contains("<system-out>2 calls (2 injected), 2 errors, 2 recovered</system-out>"));
}

void TestExec::unrecoveredWindowFails_andOneNeverArmedIsSkipped()
{
    // Three injected 503s use up the SDK's tries; the second entry is never reached.
    const QString faults = writeTimeline(
        "{\"timeline\": [{\"at\": 0, \"rule\": \"503:count=3\"}, {\"at\": \"3600s\", \"rule\": \"hang\"}]}");
    const QString junit = m_dir->filePath(u"drill.xml"_s);
    const Run run = exec({u"--faults"_s, faults, u"--junit"_s, junit}, {QStringLiteral(DRILL_CLIENT)});
    QCOMPARE(run.exitCode, 1);   // drill_client's: a call that did not end 200
    QVERIFY2(run.out.contains(u"call 0: 503 after 3 attempts"_s), qPrintable(run.out));
    QCOMPARE(m_mock->service()->callCount(u"/v1/chat/completions"_s), 0);
    QCOMPARE(run.line(u"the app saw"_s), u"503 x3"_s);
    QCOMPARE(run.line(u"fault windows"_s), u"2: 0 recovered, 1 not recovered, 1 without calls or never armed"_s);
    QCOMPARE(run.line(u"exit status"_s), u"1"_s);

    QString lint;
    QVERIFY2(validatesAgainstJUnitSchema(junit, &lint), qPrintable(lint));
    QFile file(junit);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray xml = file.readAll();
    QVERIFY(xml.contains("tests=\"2\" failures=\"1\" errors=\"0\" skipped=\"1\""));
    QVERIFY(xml.contains("<failure type=\"unrecovered\" message=\"3 of 3 calls ended in errors the app did not recover from\""));
    QVERIFY(xml.contains("<skipped message=\"never armed: COMMAND ended first\"/>"));
    QCOMPARE(xml.count("POST /v1/chat/completions: 503"), 3);   // each unrecovered call, listed
}

void TestExec::har_holdsEveryCall()
{
    const QString faults = writeTimeline("{\"timeline\": [{\"at\": \"0s\", \"rule\": \"503:count=1\"}]}");
    const QString har = m_dir->filePath(u"drill.har"_s);
    const Run run = exec({u"--faults"_s, faults, u"--har"_s, har}, {QStringLiteral(DRILL_CLIENT), u"--calls"_s, u"2"_s});
    QCOMPARE(run.exitCode, 0);
    QFile file(har);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QJsonObject log = QJsonDocument::fromJson(file.readAll()).object().value(u"log"_s).toObject();
    QCOMPARE(log.value(u"version"_s).toString(), u"1.2"_s);
    const QJsonArray entries = log.value(u"entries"_s).toArray();
    QCOMPARE(entries.size(), 3);   // call 0 twice (503, then 200), call 1 once
    QList<int> statuses;
    for (const QJsonValue &value : entries) {
        const QJsonObject entry = value.toObject();
        QVERIFY(!entry.value(u"startedDateTime"_s).toString().isEmpty());
        QCOMPARE(entry.value(u"request"_s).toObject().value(u"method"_s).toString(), u"POST"_s);
        QVERIFY(entry.value(u"request"_s).toObject().value(u"url"_s).toString().endsWith(u"/v1/chat/completions"_s));
        QVERIFY(entry.value(u"timings"_s).toObject().contains(u"wait"_s));
        statuses.append(entry.value(u"response"_s).toObject().value(u"status"_s).toInt());
    }
    std::sort(statuses.begin(), statuses.end());
    QCOMPARE(statuses, (QList<int>{200, 200, 503}));
}

void TestExec::commandNotFound_127_notExecutable_126()
{
    Run run = exec({}, {u"no-such-command-for-breakwater-exec"_s});
    QCOMPARE(run.exitCode, 127);
    QVERIFY(run.err.contains(u"no-such-command-for-breakwater-exec: command not found"_s));
    QVERIFY(!run.err.contains(u"private Breakwater"_s));   // refused before anything started

    run = exec({}, {m_dir->filePath(u"missing/program"_s)});
    QCOMPARE(run.exitCode, 127);
    QVERIFY(run.err.contains(u"No such file or directory"_s));

    const QString plain = m_dir->filePath(u"not-a-program"_s);
    QFile file(plain);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("data\n");
    file.close();
    QVERIFY(file.setPermissions(QFile::ReadOwner | QFile::WriteOwner));
    run = exec({}, {plain});
    QCOMPARE(run.exitCode, 126);
    QVERIFY(run.err.contains(u"Permission denied"_s));
}

void TestExec::badTimeline_refusedWith2_beforeCommandRuns_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("message");
    QTest::newRow("bad rule") << QByteArray("{\"timeline\": [{\"at\": \"0s\", \"rule\": \"503\"}, {\"at\": \"40s\", \"rule\": \"hang:cont=3\"}]}")
                              << u"timeline entry 2 (at 40s): fault rule 'hang:cont=3': unknown option 'cont'"_s;
    QTest::newRow("bad at") << QByteArray("{\"timeline\": [{\"at\": \"soon\", \"rule\": \"529:for=20s\"}]}")
                            << u"timeline entry 1 (rule 529:for=20s): \"at\" 'soon' is not a time"_s;
    QTest::newRow("negative at") << QByteArray("{\"timeline\": [{\"at\": -5, \"rule\": \"503\"}]}")
                                 << u"timeline entry 1 (rule 503): \"at\" '-5' is not a time"_s;
    QTest::newRow("no rule") << QByteArray("{\"timeline\": [{\"at\": \"1s\"}]}")
                             << u"timeline entry 1: \"rule\" must be a fault rule as a string"_s;
    QTest::newRow("unknown key") << QByteArray("{\"timeline\": [{\"at\": \"1s\", \"rule\": \"503\", \"fro\": 2}]}")
                                 << u"timeline entry 1: unknown key \"fro\""_s;
    QTest::newRow("not a list") << QByteArray("{\"timeline\": {\"at\": \"1s\"}}")
                                << u"expected an object with a \"timeline\" list"_s;
    QTest::newRow("not JSON") << QByteArray("timeline: 503") << u"not JSON"_s;
}

void TestExec::badTimeline_refusedWith2_beforeCommandRuns()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, message);
    const Run run = exec({u"--faults"_s, writeTimeline(json)}, {u"sh"_s, u"-c"_s, u"echo COMMAND-ran"_s});
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(run.err.contains(message), qPrintable(run.err));
    QVERIFY(run.err.contains(u"--faults "_s));
    QVERIFY(!run.out.contains(u"COMMAND-ran"_s));
}

void TestExec::sigint_stopsCommand_summaryStillPrinted()
{
    QProcess process;
    process.start(QStringLiteral(BREAKWATER),
                  execArguments({}, {QStringLiteral(DRILL_CLIENT), u"--wait-for-signal"_s}));
    QByteArray out;
    while (!out.contains("waiting for a signal") && process.waitForReadyRead(60'000))
        out += process.readAllStandardOutput();
    QVERIFY2(out.contains("drill_client: call 0: 200 after 1 attempts"), out.constData());
    // Sent by a process, as a CI runner cancelling the job does: exec passes it on to COMMAND.
    QCOMPARE(::kill(pid_t(process.processId()), SIGINT), 0);
    const Run run = finish(process);
    QCOMPARE(run.exitCode, 128 + SIGINT);
    QVERIFY2(run.err.contains(u"stopped by SIGINT"_s), qPrintable(run.err));
    QCOMPARE(run.line(u"calls"_s), u"1 requests to Breakwater: 1 upstream calls, 0 joined, 0 cache hits"_s);
    QCOMPARE(run.line(u"exit status"_s), u"130"_s);
}

QTEST_GUILESS_MAIN(TestExec)
#include "tst_exec.moc"
