#include "reportcharts.h"

#include <QApplication>
#include <QDir>
#include <QPixmap>

#include <memory>

#include "breakertimeline.h"
#include "dashboardmodel.h"
#include "latencystaircase.h"
#include "outcomechart.h"

using namespace Qt::StringLiterals;

namespace reportcharts {

namespace {

constexpr int kWidth = 960;

// The widget laid out at `size` (shown on the offscreen screen, never on a real one) and drawn.
Result save(QWidget &widget, const QSize &size, const std::function<void()> &refresh, const QString &path)
{
    widget.setAttribute(Qt::WA_DontShowOnScreen);
    widget.resize(size);
    widget.show();
    QCoreApplication::processEvents();
    refresh();
    QCoreApplication::processEvents();
    if (!widget.grab().save(path, "PNG"))
        return Failure{u"cannot write %1"_s.arg(QDir::toNativeSeparators(path))};
    return {};
}

} // namespace

Expected<QList<Chart>> render(const fieldtest::TargetRun &run, const QString &directory)
{
    // The model the live dashboard would have had: every request, and the breakers' story.
    DashboardModel model;
    ProxySnapshot start;
    start.atMs = run.startedAtMs;
    start.upstreams.append(UpstreamSnapshot{"openai"});
    if (run.target.kind == fieldtest::Target::Kind::Breakwater)
        model.setSnapshot(start);
    const QList<CallRecord> records = run.records();
    for (const CallRecord &record : records)
        model.addRecord(record);
    for (const BreakerTransition &transition : run.transitions)
        model.addTransition(transition);
    const qint64 from = run.startedAtMs - 500;
    const qint64 to = std::max(run.endedAtMs, from + 1000) + 500;
    const QString stem = fieldtest::name(run.scenario) + u'-';
    const QString suffix = u'-' + run.target.name() + u".png"_s;
    const QDir dir(directory);
    QList<Chart> charts;

    LatencyStaircase staircase;
    staircase.setBarLimit(int(std::min<qsizetype>(records.size(), DashboardModel::kMaxRecords)));
    const int rows = int(records.size());
    Chart chart{stem + u"staircase"_s + suffix, u"latency staircase (one bar per request, by arrival)"_s};
    if (const Result saved = save(staircase, {kWidth, std::clamp(rows * 3 + 160, 320, 900)},
                                  [&] { staircase.refresh(model, run.endedAtMs); }, dir.filePath(chart.file));
        !saved.ok())
        return Failure{saved.error()};
    charts.append(chart);

    OutcomeChart outcomes;
    chart = {stem + u"outcomes"_s + suffix, u"outcomes per second"_s};
    if (const Result saved = save(outcomes, {kWidth, 360}, [&] { outcomes.refresh(model, from, to); }, dir.filePath(chart.file));
        !saved.ok())
        return Failure{saved.error()};
    charts.append(chart);

    if (run.target.kind == fieldtest::Target::Kind::Breakwater) {
        BreakerTimeline timeline;
        timeline.refresh(model, from, to);
        chart = {stem + u"breaker"_s + suffix, u"breaker timeline"_s};
        if (const Result saved = save(timeline, {kWidth, timeline.sizeHint().height()},
                                      [&] { timeline.refresh(model, from, to); }, dir.filePath(chart.file));
            !saved.ok())
            return Failure{saved.error()};
        charts.append(chart);
    }
    return charts;
}

} // namespace reportcharts
