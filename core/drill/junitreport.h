#pragma once

#include <QByteArray>
#include <QList>
#include <QString>

#include "drill/faultwindows.h"

// A drill as JUnit XML (`breakwater exec --junit FILE`), the report format CI systems read
// (GitHub Actions' test reporters, GitLab's artifacts:reports:junit, Jenkins): one <testsuite> for
// the drill, one <testcase> per fault window. A window whose errors were all recovered passes; one
// with an error the app never recovered from fails, its <failure> listing those calls; a window
// that was never armed (COMMAND ended first) or saw no call of the app is <skipped>. The drill's
// figures (drill/drillsummary.h) go in the suite's <system-out>, COMMAND and its exit status in
// its <properties>. Checked against tests/data/junit.xsd with xmllint.
namespace JUnitReport {

struct Drill
{
    QString command;            // as typed
    int exitStatus = 0;
    qint64 startedAtMs = 0;     // wall clock: COMMAND started ...
    qint64 endedAtMs = 0;       // ... and ended
    QString summary;            // DrillSummary::text(), for <system-out>
};

QByteArray xml(const Drill &drill, const QList<WindowVerdict> &windows);

} // namespace JUnitReport
