// A drill's figures from its records: the fault timeline's parsing, each window's end and verdict
// (which errors count as recovered), the summary's counts, and JUnit XML that xmllint accepts
// against tests/data/junit.xsd whatever the names hold. Records are made by hand: every case is
// a table of calls with known answers.

#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include "accounting/callrecord.h"
#include "drill/drillsummary.h"
#include "drill/faulttimeline.h"
#include "drill/faultwindows.h"
#include "drill/junitreport.h"

using namespace Qt::StringLiterals;
using namespace std::chrono_literals;

namespace {

constexpr qint64 T = 1'800'000'000'000;   // wall clock of the drill's start

// A request of the app: `key` names what it asked (the same key: the same call again), `retry` its
// X-Stainless-Retry-Count.
CallRecord call(const QByteArray &id, qint64 at, int status, const QByteArray &key, int retry = 0,
                Outcome outcome = Outcome::Miss, const QString &injected = {}, const QByteArray &errorKind = {})
{
    CallRecord r;
    r.requestId = id;
    r.route = "/v1/chat/completions";
    r.method = "POST";
    r.receivedAtMs = at;
    r.endAtMs = at + 10;
    r.status = status;
    r.keyFingerprint = key;
    r.credentialFingerprint = "cred";
    r.retryAttempt = retry;
    r.outcome = outcome;
    r.injected = injected;
    r.errorKind = errorKind;
    return r;
}

FaultWindow armed(const QString &rule, qint64 fromMs, int id)
{
    FaultWindow window;
    window.entry.number = id;
    window.entry.atText = u"%1s"_s.arg((fromMs - T) / 1000);
    window.entry.rule = FaultRule::parse(rule).value();
    window.entry.rule.id = id;
    window.label = window.entry.rule.label();
    window.fromMs = fromMs;
    return window;
}

} // namespace

class TestDrillReport final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void timeline_isSortedByTimeAndTakesEveryDurationForm();
    void window_endsAtItsExpiryItsCountOrTheCommand();
    void verdict_aLaterSuccessOfTheSameCallRecovers_data();
    void verdict_aLaterSuccessOfTheSameCallRecovers();
    void summary_countsWhatReachedTheProviderAndWhatTheAppSaw();
    void junit_validatesAgainstTheSchema_evenWithMarkupInNames();
};

void TestDrillReport::timeline_isSortedByTimeAndTakesEveryDurationForm()
{
    const Expected<QList<TimelineEntry>> entries = FaultTimeline::parse(R"({"timeline": [
        {"at": "1m", "rule": "hang:count=3"}, {"at": 5, "rule": "529:for=20s"},
        {"at": "500ms", "rule": "503:count=2"}, {"at": "5s", "rule": "reset"}]})");
    QVERIFY2(entries.ok(), qPrintable(entries.error()));
    QCOMPARE(entries->size(), 4);
    QCOMPARE(entries.value()[0].at, 500ms);
    QCOMPARE(entries.value()[0].number, 3);
    QCOMPARE(entries.value()[1].at, 5s);   // "at": 5 and "5s" are the same time: the file's order stays
    QCOMPARE(entries.value()[1].rule.text(), u"529:for=20s"_s);
    QCOMPARE(entries.value()[2].rule.text(), u"reset"_s);
    QCOMPARE(entries.value()[3].at, 60s);
    QCOMPARE(entries.value()[3].rule.count, 3);
    QVERIFY(FaultTimeline::parse(R"({"timeline": []})").ok());
    QVERIFY(FaultTimeline::parse(R"({"timeline": [], "extra": 1})").error().contains(u"unknown key \"extra\""_s));
    QVERIFY(FaultTimeline::parse(R"({"timeline": [{"at": "5x", "rule": "503"}]})").error().contains(u"timeline entry 1"_s));
}

void TestDrillReport::window_endsAtItsExpiryItsCountOrTheCommand()
{
    QList<FaultWindow> windows{armed(u"529:for=20s"_s, T + 5000, 1), armed(u"503:count=2"_s, T + 1000, 2),
                               armed(u"503:count=5"_s, T + 1000, 3), armed(u"hang"_s, T + 40'000, 4), FaultWindow{}};
    const QList<CallRecord> records{
        call("a", T + 1100, 503, "k1", 0, Outcome::Miss, windows[1].label),
        call("b", T + 1700, 503, "k1", 1, Outcome::Miss, windows[1].label),
        call("c", T + 1710, 503, "k1", 0, Outcome::Joined, windows[1].label),   // rode on the second
        call("d", T + 3000, 200, "k1", 2),
        call("e", T + 4000, 503, "k2", 0, Outcome::Miss, windows[2].label),
    };
    FaultWindows::close(windows, records, T + 30'000);
    QCOMPARE(windows[0].toMs, T + 25'000);   // for=20s
    QCOMPARE(windows[1].toMs, T + 1710);     // fired its count: the last call it answered
    QCOMPARE(windows[2].toMs, T + 30'000);   // fired once of five: until COMMAND ended
    QCOMPARE(windows[3].toMs, T + 40'000);   // armed after COMMAND ended: no time at all
    QVERIFY(!windows[4].armed());
    QCOMPARE(FaultWindows::judge(windows[4], records).state, WindowVerdict::State::NotArmed);
    QCOMPARE(FaultWindows::judge(windows[3], records).state, WindowVerdict::State::NoCalls);
}

void TestDrillReport::verdict_aLaterSuccessOfTheSameCallRecovers_data()
{
    QTest::addColumn<QList<CallRecord>>("records");
    QTest::addColumn<int>("errors");
    QTest::addColumn<int>("recovered");
    QTest::addColumn<QString>("unrecovered");
    const qint64 in = T + 2000;   // the window is [T + 1 s, T + 10 s]
    QTest::newRow("sdk retry succeeds after the window")
        << QList<CallRecord>{call("a", in, 529, "k"), call("b", in + 500, 529, "k", 1), call("c", T + 12'000, 200, "k", 2)}
        << 2 << 2 << QString();
    QTest::newRow("the app's own retry of the same call (count restarts)")
        << QList<CallRecord>{call("a", in, 503, "k"), call("b", in + 5000, 200, "k", 0)} << 1 << 1 << QString();
    QTest::newRow("gave up")
        << QList<CallRecord>{call("a", in, 529, "k"), call("b", in + 500, 529, "k", 1), call("c", in + 1500, 529, "k", 2)}
        << 3 << 0 << u"529 x3"_s;
    QTest::newRow("a different call's success does not count")
        << QList<CallRecord>{call("a", in, 503, "k1"), call("b", in + 100, 200, "k2")} << 1 << 0 << u"503 x1"_s;
    QTest::newRow("an earlier success does not count")
        << QList<CallRecord>{call("b", T + 500, 200, "k"), call("a", in, 503, "k")} << 1 << 0 << u"503 x1"_s;
    QTest::newRow("refused by the breaker, a timeout, a cut stream")
        << QList<CallRecord>{call("a", in, 503, "k1", 0, Outcome::BreakerRefused),
                             call("b", in, 504, "k2", 0, Outcome::Miss, {}, "upstream_timeout"),
                             call("c", in, 200, "k3", 0, Outcome::Miss, {}, "stream_cut")}
        << 3 << 0 << u"200 cut x1, 503 breaker_refused x1, 504 timeout x1"_s;
    QTest::newRow("all answered") << QList<CallRecord>{call("a", in, 200, "k"), call("b", in, 200, "k", 0, Outcome::Hit)}
                                  << 0 << 0 << QString();
}

void TestDrillReport::verdict_aLaterSuccessOfTheSameCallRecovers()
{
    QFETCH(QList<CallRecord>, records);
    QFETCH(int, errors);
    QFETCH(int, recovered);
    QFETCH(QString, unrecovered);
    FaultWindow window = armed(u"529:for=9s"_s, T + 1000, 1);
    window.toMs = T + 10'000;
    const WindowVerdict verdict = FaultWindows::judge(window, records);
    QCOMPARE(verdict.errors, errors);
    QCOMPARE(verdict.recovered, recovered);
    QStringList parts;
    for (auto it = verdict.unrecovered.begin(); it != verdict.unrecovered.end(); ++it)
        parts.append(u"%1 x%2"_s.arg(it.key()).arg(it.value()));
    QCOMPARE(parts.join(u", "_s), unrecovered);
    QCOMPARE(verdict.state, unrecovered.isEmpty() ? WindowVerdict::State::Passed : WindowVerdict::State::Failed);
    QCOMPARE(verdict.unrecoveredCalls.size(), verdict.unrecoveredCount());
    // Counted in words that agree with the number: "1 call", "2 calls".
    QVERIFY2(verdict.outcomeText().startsWith(u"%1 call%2 "_s.arg(verdict.calls).arg(verdict.calls == 1 ? u""_s : u"s"_s)),
             qPrintable(verdict.outcomeText()));
    QVERIFY2(verdict.outcomeText().contains(u", %1 error%2,"_s.arg(errors).arg(errors == 1 ? u""_s : u"s"_s)),
             qPrintable(verdict.outcomeText()));
}

void TestDrillReport::summary_countsWhatReachedTheProviderAndWhatTheAppSaw()
{
    const QString injected503 = u"#1 503:count=2"_s;
    const QString injectedDelay = u"#2 delay=1s"_s;
    const QList<CallRecord> records{
        call("a", T + 100, 503, "k1", 0, Outcome::Miss, injected503),    // injected: no call made
        call("b", T + 700, 503, "k1", 1, Outcome::Miss, injected503),
        call("c", T + 2000, 200, "k1", 2),                               // the provider's answer
        call("d", T + 2001, 200, "k1", 0, Outcome::Joined),
        call("e", T + 3000, 200, "k1", 0, Outcome::Hit),
        call("f", T + 4000, 200, "k2", 0, Outcome::Miss, injectedDelay), // delayed: a real call
        call("g", T + 5000, 503, "k3", 0, Outcome::BreakerRefused),
        call("h", T + 6000, 429, "k4", 0, Outcome::SpendRefused),
        call("i", T + 7000, 499, "k5", 0, Outcome::Miss, {}, "client_closed"),
    };
    FaultInjector::Counts counts;
    counts[{"openai", "503"}] = 2;
    counts[{"anthropic", "503"}] = 1;
    counts[{"openai", "delay"}] = 1;
    const DrillSummary summary = DrillSummary::of(records, counts);
    QCOMPARE(summary.calls, 9);
    QCOMPARE(summary.upstreamCalls, 3);   // c, f and i; not the injected 503s, the joiner, the hit, the refusals
    QCOMPARE(summary.joined, 1);
    QCOMPARE(summary.hits, 1);
    QCOMPARE(summary.logicalCalls, 7);   // a, b, c are one call's three attempts
    QCOMPARE(summary.mostAttempts, 3);
    QCOMPARE(summary.refused(), 2);
    QCOMPARE(summary.refusals.value("breaker_refused"), 1);
    QCOMPARE(summary.refusals.value("spend_refused"), 1);
    QCOMPARE(summary.faultsInjected(), 4u);
    QCOMPARE(summary.faults.value("503"), 3u);
    QCOMPARE(summary.statuses, (QMap<int, qint64>{{200, 4}, {429, 1}, {499, 1}, {503, 3}}));
    const QString text = summary.text({u"node app.js"_s, 130, u"SIGINT"_s}, {});
    QVERIFY(text.startsWith(u"breakwater exec: node app.js stopped by SIGINT\n"_s));
    QVERIFY(text.contains(u"  faults injected   4 (503 x3, delay x1)\n"_s));
    QVERIFY(text.contains(u"  the app saw       200 x4, 429 x1, 499 x1, 503 x3\n"_s));
    QVERIFY(text.contains(u"  exit status       130\n"_s));
}

void TestDrillReport::junit_validatesAgainstTheSchema_evenWithMarkupInNames()
{
    FaultWindow failing = armed(u"529:for=9s"_s, T + 1000, 1);
    failing.toMs = T + 10'000;
    const QList<CallRecord> records{call("a<&>", T + 2000, 529, "k"), call("b", T + 3000, 529, "k", 1)};
    QList<WindowVerdict> verdicts{FaultWindows::judge(failing, records), FaultWindows::judge(FaultWindow{}, records)};
    FaultWindow quiet = armed(u"hang"_s, T + 20'000, 2);
    quiet.toMs = T + 21'000;
    verdicts.append(FaultWindows::judge(quiet, records));
    FaultWindow passing = armed(u"503:count=1"_s, T + 30'000, 3);
    passing.toMs = T + 31'000;
    verdicts.append(FaultWindows::judge(passing, {call("c", T + 30'500, 200, "k2")}));
    const QByteArray xml = JUnitReport::xml({u"sh -c 'echo \"<a>\" & exit 1'"_s, 1, T, T + 40'000, u"summary <b>&</b>"_s}, verdicts);
    QVERIFY(xml.contains(R"(tests="4" failures="1" errors="0" skipped="2")"));
    QVERIFY(xml.contains("&lt;a&gt;"));

    QTemporaryDir dir;
    const QString path = dir.filePath(u"drill.xml"_s);
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(xml);
    file.close();
    QProcess xmllint;
    xmllint.setProcessChannelMode(QProcess::MergedChannels);
    xmllint.start(QStringLiteral(XMLLINT), {u"--noout"_s, u"--schema"_s, QStringLiteral(JUNIT_XSD), path});
    QVERIFY2(xmllint.waitForFinished(60'000), "xmllint (libxml2-utils) did not run: packaging/setup.sh installs it");
    QVERIFY2(xmllint.exitCode() == 0, xmllint.readAll().constData());

    // The schema is no rubber stamp: a test case with two outcomes, or a count that is no number, fails it.
    QByteArray broken = xml;
    broken.replace(R"(tests="4")", R"(tests="four")");
    QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
    file.write(broken);
    file.close();
    xmllint.start(QStringLiteral(XMLLINT), {u"--noout"_s, u"--schema"_s, QStringLiteral(JUNIT_XSD), path});
    QVERIFY(xmllint.waitForFinished(60'000));
    QVERIFY(xmllint.exitCode() != 0);
}

QTEST_GUILESS_MAIN(TestDrillReport)
#include "tst_drillreport.moc"
