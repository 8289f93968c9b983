// `breakwater-bench report`: the real program runs the four scenarios (time-scaled) direct and
// through Breakwater, and its files must exist and agree with each other: the table's upstream
// calls are the CSV's requests that made one, its "answered" counts the CSV's calls, every CSV cell
// has its column's type, and the HTML embeds exactly the PNGs beside it. Counts, never times.

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

using namespace Qt::StringLiterals;

namespace {

const QStringList kScenarios{u"herd"_s, u"outage"_s, u"hang"_s, u"burst"_s};
const QStringList kTargets{u"direct"_s, u"breakwater"_s};
const QStringList kColumns{u"call"_s, u"attempt"_s, u"arrival"_s, u"upstream_start"_s, u"first_byte"_s, u"end"_s,
                           u"total_ms"_s, u"status"_s, u"dedup"_s, u"breaker"_s, u"ended"_s, u"upstream_call"_s};

QByteArray read(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

QList<QStringList> csvRows(const QString &path)
{
    QList<QStringList> rows;
    for (const QByteArray &line : read(path).split('\n')) {
        if (!line.isEmpty())
            rows.append(QString::fromUtf8(line).split(u','));
    }
    return rows;
}

// The table's cell for `scenario`, `figure` and the target's column (0: direct, 1: Breakwater).
QString cell(const QString &markdown, const QString &scenario, const QString &figure, int column)
{
    for (const QString &line : markdown.split(u'\n')) {
        const QStringList cells = line.split(u'|');
        // "| herd | upstream calls | 200 | 1 |" splits into "", herd, figure, direct, Breakwater, ""
        if (cells.size() >= 5 && cells[1].trimmed() == scenario && cells[2].trimmed() == figure)
            return cells[3 + column].trimmed();
    }
    return {};
}

bool isIso(const QString &text)
{
    return QDateTime::fromString(text, Qt::ISODateWithMs).isValid() && text.contains(u'T');
}

bool isCount(const QString &text, qint64 minimum)
{
    bool ok = false;
    return text.toLongLong(&ok) >= minimum && ok && !text.contains(u'.');
}

} // namespace

class TestBenchReport final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void everyFileIsThere();
    void tableAgreesWithTheCsvs();
    void csvColumnsHaveTheirTypes();
    void htmlEmbedsThePngs();
    void machineAndVersionsAreStated();

private:
    QTemporaryDir m_dir;
    QString m_out;
    QString m_markdown;
};

void TestBenchReport::initTestCase()
{
    QVERIFY(m_dir.isValid());
    m_out = m_dir.filePath(u"report"_s);
    QProcess bench;
    bench.setProcessChannelMode(QProcess::ForwardedOutputChannel);
    bench.start(QStringLiteral(BENCH), {u"report"_s, u"--scale"_s, u"0.02"_s, u"--out"_s, m_out});
    QVERIFY(bench.waitForFinished(280'000));
    const QByteArray progress = bench.readAllStandardError();
    QCOMPARE(bench.exitStatus(), QProcess::NormalExit);
    QVERIFY2(bench.exitCode() == 0, progress.constData());
    // The progress line names each scenario and says how much is done and left.
    for (const QString &scenario : kScenarios)
        QVERIFY2(progress.contains(QByteArray("report: " + scenario.toLatin1() + " (")), progress.constData());
    QVERIFY(progress.contains("100 % done"));
    QVERIFY(progress.contains(" left"));
    m_markdown = QString::fromUtf8(read(QDir(m_out).filePath(u"report.md"_s)));
}

void TestBenchReport::everyFileIsThere()
{
    const QDir dir(m_out);
    QSet<QString> expected{u"report.md"_s, u"report.html"_s};
    for (const QString &scenario : kScenarios) {
        for (const QString &target : kTargets) {
            expected << u"%1-%2.csv"_s.arg(scenario, target) << u"%1-staircase-%2.png"_s.arg(scenario, target)
                     << u"%1-outcomes-%2.png"_s.arg(scenario, target);
        }
        expected << u"%1-breaker-breakwater.png"_s.arg(scenario);
    }
    const QStringList listed = dir.entryList(QDir::Files);
    QCOMPARE(QSet<QString>(listed.begin(), listed.end()), expected);
    for (const QString &name : listed) {
        if (name.endsWith(u".png"_s)) {
            const QByteArray png = read(dir.filePath(name));
            QVERIFY2(png.startsWith("\x89PNG\r\n\x1a\n") && png.size() > 2000, qPrintable(name));
        }
    }
}

void TestBenchReport::tableAgreesWithTheCsvs()
{
    for (const QString &scenario : kScenarios) {
        for (int column = 0; column < kTargets.size(); ++column) {
            const QList<QStringList> rows = csvRows(QDir(m_out).filePath(u"%1-%2.csv"_s.arg(scenario, kTargets[column])));
            QVERIFY(rows.size() > 1);
            int upstream = 0;
            QSet<QString> calls, answered;
            QMap<QString, QString> lastStatus;   // call -> its last attempt's status
            for (const QStringList &row : rows.mid(1)) {
                upstream += row[11].toInt();
                calls.insert(row[0]);
                lastStatus[row[0]] = row[7];
            }
            for (auto it = lastStatus.begin(); it != lastStatus.end(); ++it) {
                if (it.value() == u"200"_s)
                    answered.insert(it.key());
            }
            const QString where = scenario + u' ' + kTargets[column];
            QCOMPARE(cell(m_markdown, scenario, u"upstream calls"_s, column), QString::number(upstream));
            QCOMPARE(cell(m_markdown, scenario, u"answered 200"_s, column),
                     u"%1 of %2"_s.arg(answered.size()).arg(calls.size()));
            QVERIFY2(!cell(m_markdown, scenario, u"p95"_s, column).isEmpty(), qPrintable(where));
        }
    }
    // The field test's two headline shapes: the herd costs one call through Breakwater, 200 direct.
    QCOMPARE(cell(m_markdown, u"herd"_s, u"upstream calls"_s, 0), u"200"_s);
    QCOMPARE(cell(m_markdown, u"herd"_s, u"upstream calls"_s, 1), u"1"_s);
    QCOMPARE(cell(m_markdown, u"herd"_s, u"breaker opened at"_s, 0), u"no breaker"_s);
}

void TestBenchReport::csvColumnsHaveTheirTypes()
{
    static const QStringList dedups{QString(), u"miss"_s, u"joined"_s, u"hit"_s, u"bypass"_s, u"refused"_s};
    static const QStringList breakers{QString(), u"closed"_s, u"open"_s, u"half-open"_s};
    static const QStringList endings{u"ok"_s, u"upstream_error"_s, u"timeout"_s, u"unreachable"_s, u"cut"_s,
                                     u"error_event"_s, u"breaker_refused"_s, u"spend_refused"_s, u"queue_full"_s,
                                     u"bad_request"_s, u"client_closed"_s, u"paused"_s};
    int checked = 0;
    for (const QString &scenario : kScenarios) {
        for (const QString &target : kTargets) {
            const QList<QStringList> rows = csvRows(QDir(m_out).filePath(u"%1-%2.csv"_s.arg(scenario, target)));
            QCOMPARE(rows.value(0), kColumns);
            for (const QStringList &row : rows.mid(1)) {
                const QString where = u"%1-%2: %3"_s.arg(scenario, target, row.join(u','));
                QVERIFY2(row.size() == kColumns.size(), qPrintable(where));
                QVERIFY2(isCount(row[0], 1) && isCount(row[1], 1), qPrintable(where));
                QVERIFY2(isIso(row[2]) && isIso(row[5]), qPrintable(where));
                QVERIFY2(row[3].isEmpty() || isIso(row[3]), qPrintable(where));
                QVERIFY2(row[4].isEmpty() || isIso(row[4]), qPrintable(where));
                QVERIFY2(isCount(row[6], 0), qPrintable(where));
                QVERIFY2(row[7].isEmpty() || (isCount(row[7], 100) && row[7].toInt() < 600), qPrintable(where));
                QVERIFY2(dedups.contains(row[8]) && breakers.contains(row[9]) && endings.contains(row[10]), qPrintable(where));
                QVERIFY2(row[11] == u"0"_s || row[11] == u"1"_s, qPrintable(where));
                // Direct, every request is a provider call; Breakwater says how each was served.
                if (target == u"direct"_s)
                    QVERIFY2(row[11] == u"1"_s && row[3] == row[2] && row[8].isEmpty(), qPrintable(where));
                else
                    QVERIFY2((row[8].isEmpty() || row[11] == ((row[8] == u"miss"_s || row[8] == u"bypass"_s) ? u"1"_s : u"0"_s))
                                 && (row[11] == u"0"_s || !row[3].isEmpty()), qPrintable(where));
                ++checked;
            }
        }
    }
    QVERIFY(checked > 400);   // 200 + 200 herd rows alone
}

void TestBenchReport::htmlEmbedsThePngs()
{
    const QString html = QString::fromUtf8(read(QDir(m_out).filePath(u"report.html"_s)));
    const QRegularExpression image(u"<img alt=\"[^\"]*\" title=\"([^\"]+)\" src=\"data:image/png;base64,([A-Za-z0-9+/=]+)\">"_s);
    int images = 0;
    for (auto it = image.globalMatch(html); it.hasNext();) {
        const QRegularExpressionMatch match = it.next();
        QCOMPARE(QByteArray::fromBase64(match.captured(2).toLatin1()), read(QDir(m_out).filePath(match.captured(1))));
        ++images;
    }
    QCOMPARE(images, 4 * 5);   // each scenario: two staircases, two outcome charts, one breaker timeline
    QCOMPARE(html.count(u"src="_s), images);   // nothing else is loaded from anywhere
    QVERIFY(!html.contains(u"href=\"http"_s));
    QVERIFY(html.contains(u"<td>herd</td><td>upstream calls</td><td>200</td><td>1</td>"_s));
}

void TestBenchReport::machineAndVersionsAreStated()
{
    QVERIFY(m_markdown.contains(u", %1 cores, "_s.arg(QThread::idealThreadCount())));
    QVERIFY(m_markdown.contains(u"Qt %1, Breakwater %2"_s.arg(QString::fromLatin1(qVersion()), QStringLiteral(BREAKWATER_VERSION))));
    QVERIFY(m_markdown.contains(u"kernel "_s));
    QVERIFY(m_markdown.contains(u"scale 0.02"_s));
}

QTEST_GUILESS_MAIN(TestBenchReport)
#include "tst_benchreport.moc"
