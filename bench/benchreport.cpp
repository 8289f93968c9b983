#include "benchreport.h"

#include <QDir>
#include <QFile>
#include <QSaveFile>
#include <QSysInfo>
#include <QThread>

#include "accounting/callending.h"
#include "dashboardstyle.h"

using namespace Qt::StringLiterals;
using namespace fieldtest;

namespace benchreport {

namespace {

QString firstMatch(const QString &path, const QString &key)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    for (const QByteArray &line : file.readAll().split('\n')) {
        if (line.startsWith(key.toLatin1()))
            return QString::fromUtf8(line.mid(line.indexOf(':') + 1)).trimmed();
    }
    return {};
}

QString loadAverage()
{
    QFile file(u"/proc/loadavg"_s);
    if (!file.open(QIODevice::ReadOnly))
        return u"unknown"_s;
    return QString::fromLatin1(file.readAll()).section(u' ', 0, 2);
}

QString iso(qint64 ms)
{
    if (ms <= 0)
        return {};
    const QDateTime local = QDateTime::fromMSecsSinceEpoch(ms);
    return local.toOffsetFromUtc(local.offsetFromUtc()).toString(Qt::ISODateWithMs);   // ...+01:00
}

// What the app saw of how a request ended, when no proxy record says it.
QByteArray endedSeen(const SdkLikeClient::Attempt &a)
{
    if (a.status == 0)
        return "unreachable";
    return a.status >= 400 ? "upstream_error" : "ok";
}

// One figure for each target: a table row.
struct Row
{
    Scenario scenario;
    QString figure;
    QStringList cells;
};

QString breakerCell(const Figures &f, bool fault)
{
    switch (f.breaker) {
    case BreakerSeen::None: return u"no breaker"_s;
    case BreakerSeen::NotOpened: return u"did not open"_s;
    case BreakerSeen::Unknown: return u"not seen (no x-breakwater-breaker)"_s;
    case BreakerSeen::Opened:
        break;
    }
    const QString at = (f.breakerOpenedMs < 0 ? u"-"_s : u"+"_s) + dashboardstyle::formatDuration(std::abs(f.breakerOpenedMs));
    return fault ? u"%1 after the fault began"_s.arg(at) : u"%1 after the start"_s.arg(at);
}

QList<Row> rows(const Report &report)
{
    QList<Row> rows;
    for (const Scenario scenario : scenarios()) {
        const QList<TargetRun> runs = report.runs.value(scenario);
        if (runs.isEmpty())
            continue;
        QList<Figures> figures;
        for (const TargetRun &run : runs)
            figures.append(run.figures());
        const bool fault = hasFault(scenario);
        const auto row = [&](const QString &figure, const std::function<QString(const Figures &)> &cell) {
            Row r{scenario, figure, {}};
            for (const Figures &f : figures)
                r.cells.append(cell(f));
            rows.append(r);
        };
        row(u"upstream calls"_s, [](const Figures &f) { return QString::number(f.upstreamCalls); });
        if (fault)
            row(u"upstream calls while failing"_s, [](const Figures &f) { return QString::number(f.upstreamCallsInFault); });
        row(u"answered 200"_s, [](const Figures &f) { return u"%1 of %2"_s.arg(f.answered).arg(f.calls); });
        row(u"slowest"_s, [](const Figures &f) { return dashboardstyle::formatDuration(f.slowestMs); });
        row(u"p95"_s, [](const Figures &f) { return dashboardstyle::formatDuration(f.p95Ms); });
        row(u"time to recover"_s, [fault](const Figures &f) {
            return !fault ? u"–"_s : f.recoverMs < 0 ? u"not recovered"_s : dashboardstyle::formatDuration(f.recoverMs);
        });
        row(u"breaker opened at"_s, [fault](const Figures &f) { return breakerCell(f, fault); });
    }
    return rows;
}

QStringList machineLines(const Report &report)
{
    const Machine &m = report.machine;
    return {u"CPU: %1, %2 cores, %3 memory"_s.arg(m.cpu).arg(m.cores).arg(m.memory),
            u"System: %1, kernel %2"_s.arg(m.os, m.kernel),
            u"Qt %1, Breakwater %2"_s.arg(m.qt, m.breakwater),
            u"Load average (1, 5, 15 min): %1 at the start, %2 at the end"_s.arg(m.loadBefore, m.loadAfter)};
}

QString definitions()
{
    return u"Each figure is measured in this run. *upstream calls*: chat calls that reached the provider "
           "(what it bills), over the whole scenario; *while failing*: those made while it answered 503 or hung. "
           "*slowest* and *p95*: how long the app's calls waited for their final answer, the SDK's retries "
           "included. *time to recover*: from the provider's recovery to the first call answered 200 after it. "
           "*breaker opened at*: when the target's breaker opened, from the start of the fault (a peer: the "
           "first answer that said `x-breakwater-breaker: open`, if it sends that header)."_s;
}

QString settingsLine(const Report &report)
{
    return u"Made %1 in %2 with `%3` (scale %4%5)."_s
        .arg(report.startedAt.toString(Qt::ISODate), dashboardstyle::formatDuration(qint64(report.seconds * 1000)), report.command)
        .arg(report.settings.scale)
        .arg(report.settings.scale == 1.0 ? QString() : u": the steady traffic, the outage, the timeout and the "
                                                         "cool-down are that much shorter; figures are for scale 1"_s);
}

QString escaped(const QString &text)
{
    return text.toHtmlEscaped();
}

} // namespace

Machine Machine::here()
{
    Machine m;
    m.cpu = firstMatch(u"/proc/cpuinfo"_s, u"model name"_s);
    if (m.cpu.isEmpty())
        m.cpu = QSysInfo::currentCpuArchitecture();
    m.cores = QThread::idealThreadCount();
    const QString memory = firstMatch(u"/proc/meminfo"_s, u"MemTotal"_s);
    m.memory = u"%1 GiB"_s.arg(memory.section(u' ', 0, 0).toDouble() / 1024.0 / 1024.0, 0, 'f', 1);
    m.os = QSysInfo::prettyProductName();
    m.kernel = QSysInfo::kernelType() + u' ' + QSysInfo::kernelVersion();
    m.qt = QString::fromLatin1(qVersion());
    m.breakwater = QStringLiteral(BREAKWATER_VERSION);
    m.loadBefore = loadAverage();
    return m;
}

QByteArray csvFor(const TargetRun &run)
{
    QByteArray csv = "call,attempt,arrival,upstream_start,first_byte,end,total_ms,status,dedup,breaker,ended,upstream_call\n";
    for (qsizetype i = 0; i < run.calls.size(); ++i) {
        for (const SdkLikeClient::Attempt &a : run.calls[i].attempts) {
            const CallRecord *record = run.recordOf(a);
            qint64 upstreamStart = 0;
            QByteArray ended = endedSeen(a);
            // 1: this request made an upstream call of its own (what the provider bills); empty: not known.
            QString ownCall;
            if (run.target.kind == Target::Kind::Direct) {
                upstreamStart = a.sentAtMs;
                ownCall = u"1"_s;
            } else if (!a.dedup.isEmpty()) {
                ownCall = a.dedup == "miss" || a.dedup == "bypass" ? u"1"_s : u"0"_s;
            }
            if (record) {
                upstreamStart = record->upstreamStartAtMs;
                ended = endingName(endingOf(*record));
                const Served served = servedOf(record->outcome);
                ownCall = served == Served::Miss || served == Served::Bypass ? u"1"_s : u"0"_s;
            }
            const qint64 end = a.endAtMs > 0 ? a.endAtMs : run.endedAtMs;
            const QStringList cells{QString::number(i + 1), QString::number(a.retryCount + 1), iso(a.sentAtMs),
                                    iso(upstreamStart), iso(a.firstByteAtMs), iso(end), QString::number(end - a.sentAtMs),
                                    a.status > 0 ? QString::number(a.status) : QString(), QString::fromLatin1(a.dedup),
                                    QString::fromLatin1(a.breaker), QString::fromLatin1(ended), ownCall};
            csv += cells.join(u',').toUtf8() + '\n';
        }
    }
    return csv;
}

QByteArray markdown(const Report &report, const Charts &charts)
{
    QString md = u"# Breakwater field test report\n\n"_s + settingsLine(report) + u"\n\n## Machine\n\n"_s;
    for (const QString &line : machineLines(report))
        md += u"- "_s + line + u'\n';
    md += u"\n## Results\n\n"_s + definitions() + u"\n\n| scenario | figure |"_s;
    for (const Target &target : report.targets)
        md += u' ' + target.title() + u" |"_s;
    md += u"\n|---|---|"_s + u"---|"_s.repeated(report.targets.size()) + u'\n';
    for (const Row &row : rows(report))
        md += u"| %1 | %2 | %3 |\n"_s.arg(name(row.scenario), row.figure, row.cells.join(u" | "_s));
    for (const Scenario scenario : scenarios()) {
        if (!report.runs.contains(scenario))
            continue;
        md += u"\n## %1: %2\n"_s.arg(name(scenario), title(scenario));
        for (const TargetRun &run : report.runs.value(scenario)) {
            md += u"\n### %1\n\nRequests: [%2-%3.csv](%2-%3.csv)\n\n"_s.arg(run.target.title(), name(scenario), run.target.name());
            for (const reportcharts::Chart &chart : charts.value(name(scenario) + u'-' + run.target.name()))
                md += u"![%1](%2)\n"_s.arg(chart.title, chart.file);
        }
    }
    return md.toUtf8();
}

QByteArray html(const Report &report, const Charts &charts, const QString &directory)
{
    QString h = u"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                "<title>Breakwater field test report</title><style>"
                "body{font-family:sans-serif;max-width:1000px;margin:2em auto;color:#222}"
                "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:3px 8px;text-align:left}"
                "th{background:#eee}img{max-width:100%;display:block;margin:0.5em 0}"
                "</style></head><body>\n<h1>Breakwater field test report</h1>\n"_s;
    h += u"<p>"_s + escaped(settingsLine(report)) + u"</p>\n<h2>Machine</h2>\n<ul>\n"_s;
    for (const QString &line : machineLines(report))
        h += u"<li>"_s + escaped(line) + u"</li>\n"_s;
    h += u"</ul>\n<h2>Results</h2>\n<p>"_s + escaped(definitions()) + u"</p>\n<table>\n<tr><th>scenario</th><th>figure</th>"_s;
    for (const Target &target : report.targets)
        h += u"<th>"_s + escaped(target.title()) + u"</th>"_s;
    h += u"</tr>\n"_s;
    for (const Row &row : rows(report)) {
        h += u"<tr><td>%1</td><td>%2</td>"_s.arg(name(row.scenario), escaped(row.figure));
        for (const QString &cell : row.cells)
            h += u"<td>"_s + escaped(cell) + u"</td>"_s;
        h += u"</tr>\n"_s;
    }
    h += u"</table>\n"_s;
    const QDir dir(directory);
    for (const Scenario scenario : scenarios()) {
        if (!report.runs.contains(scenario))
            continue;
        h += u"<h2>%1: %2</h2>\n"_s.arg(name(scenario), escaped(title(scenario)));
        for (const TargetRun &run : report.runs.value(scenario)) {
            h += u"<h3>%1</h3>\n"_s.arg(escaped(run.target.title()));
            for (const reportcharts::Chart &chart : charts.value(name(scenario) + u'-' + run.target.name())) {
                QFile png(dir.filePath(chart.file));
                if (!png.open(QIODevice::ReadOnly))
                    continue;
                h += u"<img alt=\"%1\" title=\"%2\" src=\"data:image/png;base64,%3\">\n"_s
                         .arg(escaped(chart.title), escaped(chart.file), QString::fromLatin1(png.readAll().toBase64()));
            }
        }
    }
    h += u"</body></html>\n"_s;
    return h.toUtf8();
}

Result write(const Report &report, const QString &directory)
{
    if (!QDir().mkpath(directory))
        return Failure{u"cannot make %1"_s.arg(directory)};
    const QDir dir(directory);
    const auto save = [&dir](const QString &name, const QByteArray &bytes) -> Result {
        QSaveFile file(dir.filePath(name));
        if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size() || !file.commit())
            return Failure{u"cannot write %1: %2"_s.arg(dir.filePath(name), file.errorString())};
        return {};
    };
    Charts charts;
    for (auto it = report.runs.begin(); it != report.runs.end(); ++it) {
        for (const TargetRun &run : it.value()) {
            const QString stem = name(run.scenario) + u'-' + run.target.name();
            if (const Result saved = save(stem + u".csv"_s, csvFor(run)); !saved.ok())
                return saved;
            Expected<QList<reportcharts::Chart>> drawn = reportcharts::render(run, directory);
            if (!drawn.ok())
                return Failure{drawn.error()};
            charts.insert(stem, drawn.value());
        }
    }
    if (const Result saved = save(u"report.md"_s, markdown(report, charts)); !saved.ok())
        return saved;
    return save(u"report.html"_s, html(report, charts, directory));
}

} // namespace benchreport
