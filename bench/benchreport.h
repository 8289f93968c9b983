#pragma once

#include <QDateTime>
#include <QList>
#include <QMap>
#include <QString>

#include "fieldtest.h"
#include "reportcharts.h"
#include "result.h"

// `breakwater-bench report`: the field test's four scenarios written up, every figure measured in
// the run that writes it. Into one folder:
//   report.md, report.html   the table (one row per scenario and figure, one column per target),
//                            the machine and versions, and each scenario's charts; the HTML is
//                            self-contained (its pictures are data: URIs), to hand to a colleague
//   SCENARIO-CHART-TARGET.png  the dashboard's charts (reportcharts.h)
//   SCENARIO-TARGET.csv      one row per request the app sent (csvFor)
namespace benchreport {

// Where the figures were measured.
struct Machine
{
    QString cpu;          // /proc/cpuinfo's model name
    int cores = 0;        // online processors, as nproc counts them
    QString memory;       // "24.0 GiB"
    QString os;           // "Debian GNU/Linux 12 (bookworm)"
    QString kernel;       // "linux 6.1.0-..."
    QString qt;           // the Qt the bench runs on
    QString breakwater;   // this build's version
    QString loadBefore;   // /proc/loadavg's three figures when the run began and ended: the
    QString loadAfter;    // machine may be shared, and this says how busy it was

    static Machine here();
};

struct Report
{
    fieldtest::Settings settings;
    QList<fieldtest::Target> targets;
    QMap<fieldtest::Scenario, QList<fieldtest::TargetRun>> runs;   // index-aligned with targets
    Machine machine;
    QDateTime startedAt;
    double seconds = 0;
    QString command;      // how it was run, for the report's first line
};

// One row per request the app sent, in the app's order: its call and attempt, the times (ISO 8601,
// ms, with the UTC offset), total_ms and status as numbers, how it was served (x-breakwater-dedup),
// the breaker state, how it ended, and upstream_call: 1 when the request made an upstream call of
// its own, 0 when it rode on another's or was answered without one. upstream_start is when the
// upstream call that answered it began (a joiner's: the shared call's); empty when there was none
// or it is not known (a peer's).
QByteArray csvFor(const fieldtest::TargetRun &run);
// The charts of each run, by "SCENARIO-TARGET".
using Charts = QMap<QString, QList<reportcharts::Chart>>;
QByteArray markdown(const Report &report, const Charts &charts);
// With each chart read from `directory` and embedded.
QByteArray html(const Report &report, const Charts &charts, const QString &directory);

// Writes every file of the report into `directory` (made if missing). Needs a QApplication.
Result write(const Report &report, const QString &directory);

} // namespace benchreport
