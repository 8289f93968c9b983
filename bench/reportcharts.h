#pragma once

#include <QList>
#include <QString>

#include "fieldtest.h"
#include "result.h"

// The report's pictures, drawn by the dashboard's own chart classes (ui/: LatencyStaircase,
// OutcomeChart, BreakerTimeline, fed through a DashboardModel exactly as the live window feeds
// them) on the offscreen platform, and saved as PNG: for each scenario and target the latency
// staircase and the outcomes per second, and for Breakwater its breaker timeline.
namespace reportcharts {

struct Chart
{
    QString file;    // in the report's folder: "herd-staircase-direct.png"
    QString title;   // "latency staircase"
};

// Needs a QApplication (widgets). Writes the run's charts into `directory`.
Expected<QList<Chart>> render(const fieldtest::TargetRun &run, const QString &directory);

} // namespace reportcharts
