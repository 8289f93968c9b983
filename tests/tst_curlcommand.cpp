// Copy as curl: the command a recorded call becomes must give curl exactly the recorded method, URL,
// headers and body when a POSIX shell runs it, whatever the body holds (quotes, $, backticks,
// newlines), with each credential a variable the shell fills in and never a recorded secret.

#include "accounting/callinspection.h"
#include "accounting/callrecord.h"
#include "accounting/curlcommand.h"

#include <QProcess>
#include <QProcessEnvironment>
#include <QTest>

using namespace Qt::StringLiterals;

namespace {

const QString kOrigin = u"http://127.0.0.1:8080"_s;

// The words /bin/sh hands to curl when it runs `command`: curl is a shell function here that
// prints each of its arguments NUL-terminated, so nothing is sent anywhere.
QStringList curlArguments(const QString &command, const QProcessEnvironment &environment)
{
    QProcess shell;
    shell.setProcessEnvironment(environment);
    shell.start(u"/bin/sh"_s, {u"-c"_s, u"curl() { for a in \"$@\"; do printf '%s\\0' \"$a\"; done; }\n"_s + command});
    if (!shell.waitForFinished(10'000) || shell.exitCode() != 0)
        return {u"shell failed: "_s + QString::fromUtf8(shell.readAllStandardError())};
    QStringList words = QString::fromUtf8(shell.readAllStandardOutput()).split(QChar(0));
    words.removeLast();   // after the last NUL
    return words;
}

CallRecord chatCall(const QByteArray &body)
{
    CallRecord r;
    r.method = "POST";
    r.route = "/v1/chat/completions";
    r.target = "/v1/chat/completions";
    r.upstream = "openai";
    r.requestBody = body;
    r.requestHeaders = CallInspection::recordHeaders({{"Host", "127.0.0.1:8080"},
                                                      {"Authorization", "Bearer sk-test-secret-1"},
                                                      {"Content-Type", "application/json"},
                                                      {"Content-Length", QByteArray::number(body.size())},
                                                      {"Connection", "keep-alive"},
                                                      {"Accept-Encoding", "gzip"},
                                                      {"Cookie", "a=b"},
                                                      {"X-Stainless-Retry-Count", "1"}});
    return r;
}

} // namespace

class TestCurlCommand final : public QObject
{
    Q_OBJECT
private slots:
    void shellQuote_survivesTheShell_data();
    void shellQuote_survivesTheShell();
    void command_givesCurlTheRecordedRequest_data();
    void command_givesCurlTheRecordedRequest();
    void anthropicCall_usesItsOwnKeyVariable();
    void bodyNotLogged_saysSoAndReadsAFile();
    void queryKey_staysRedactedAndTheCommandSaysSo();
};

void TestCurlCommand::shellQuote_survivesTheShell_data()
{
    QTest::addColumn<QString>("text");
    QTest::newRow("plain") << u"hello"_s;
    QTest::newRow("single quotes") << u"it's 'quoted'"_s;
    QTest::newRow("double quotes") << u"say \"hi\""_s;
    QTest::newRow("dollar") << u"$HOME ${PATH} $(id)"_s;
    QTest::newRow("backticks") << u"`rm -rf /`"_s;
    QTest::newRow("newlines") << u"line 1\nline 2\n"_s;
    QTest::newRow("backslashes") << u"a\\b\\'c"_s;
    QTest::newRow("empty") << QString();
    QTest::newRow("unicode") << u"naïve — 日本"_s;
}

void TestCurlCommand::shellQuote_survivesTheShell()
{
    QFETCH(QString, text);
    const QStringList words = curlArguments(u"curl "_s + CurlCommand::shellQuote(text), {});
    QCOMPARE(words, QStringList{text});
}

void TestCurlCommand::command_givesCurlTheRecordedRequest_data()
{
    QTest::addColumn<QByteArray>("body");
    QTest::newRow("json") << QByteArray(R"({"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}]})");
    QTest::newRow("quotes and dollars")
        << QByteArray(R"({"content":"it's \"$HOME\" and ${x} and $(whoami) and `id`"})");
    QTest::newRow("newlines") << QByteArray("{\"content\":\"a\nb\"}\n");
    QTest::newRow("backslash quote") << QByteArray(R"({"content":"\\' '\\''"})");
}

void TestCurlCommand::command_givesCurlTheRecordedRequest()
{
    QFETCH(QByteArray, body);
    const CallRecord record = chatCall(body);
    const QString command = CurlCommand::forRecord(record, kOrigin);
    QVERIFY2(!command.contains(u"sk-test-secret-1"_s), qPrintable(command));
    QProcessEnvironment environment;
    environment.insert(u"OPENAI_API_KEY"_s, u"sk-from-the-shell"_s);
    const QStringList words = curlArguments(command, environment);
    const QStringList expected{u"-X"_s, u"POST"_s, u"http://127.0.0.1:8080/v1/chat/completions"_s,
                               u"-H"_s, u"Authorization: Bearer sk-from-the-shell"_s,
                               u"-H"_s, u"Content-Type: application/json"_s,
                               u"-H"_s, u"X-Stainless-Retry-Count: 1"_s,
                               u"--data-binary"_s, QString::fromUtf8(body)};
    QCOMPARE(words, expected);   // no Host, Content-Length, Connection, Accept-Encoding or Cookie
}

void TestCurlCommand::anthropicCall_usesItsOwnKeyVariable()
{
    CallRecord record;
    record.method = "POST";
    record.target = "/v1/messages?beta=true";
    record.upstream = "anthropic";
    record.stream = true;
    record.requestBody = R"({"stream":true})";
    record.requestHeaders = CallInspection::recordHeaders({{"x-api-key", "sk-ant-secret"}, {"anthropic-version", "2023-06-01"}});
    QProcessEnvironment environment;
    environment.insert(u"ANTHROPIC_API_KEY"_s, u"sk-ant-shell"_s);
    const QStringList words = curlArguments(CurlCommand::forRecord(record, kOrigin), environment);
    const QStringList expected{u"--no-buffer"_s, u"-X"_s, u"POST"_s, u"http://127.0.0.1:8080/v1/messages?beta=true"_s,
                               u"-H"_s, u"x-api-key: sk-ant-shell"_s,
                               u"-H"_s, u"anthropic-version: 2023-06-01"_s,
                               u"--data-binary"_s, u"{\"stream\":true}"_s};
    QCOMPARE(words, expected);
}

void TestCurlCommand::bodyNotLogged_saysSoAndReadsAFile()
{
    CallRecord record = chatCall({});
    const QString command = CurlCommand::forRecord(record, kOrigin);
    QVERIFY2(command.startsWith(u"# The request body was not logged"_s), qPrintable(command));
    QVERIFY2(command.contains(u"--log-bodies"_s), qPrintable(command));
    const QStringList words = curlArguments(command, {});
    QCOMPARE(words.mid(words.size() - 2), (QStringList{u"--data-binary"_s, u"@body.json"_s}));
}

void TestCurlCommand::queryKey_staysRedactedAndTheCommandSaysSo()
{
    CallRecord record = chatCall(R"({"model":"m"})");
    record.target = "/v1/chat/completions?api-version=2024-10-21&api-key=REDACTED";   // as the proxy records it
    const QString command = CurlCommand::forRecord(record, kOrigin);
    QVERIFY2(command.startsWith(u"# A key in the query was not recorded: put it where REDACTED stands.\n"_s),
             qPrintable(command));
    const QStringList words = curlArguments(command, {});
    QVERIFY2(words.contains(u"http://127.0.0.1:8080/v1/chat/completions?api-version=2024-10-21&api-key=REDACTED"_s),
             qPrintable(words.join(u' ')));
}

QTEST_GUILESS_MAIN(TestCurlCommand)
#include "tst_curlcommand.moc"
