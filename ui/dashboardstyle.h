#pragma once

#include <QColor>
#include <QIcon>
#include <QList>
#include <QString>

class QEvent;
class QValueAxis;
class QWidget;

#include "dashboardmodel.h"
#include "upstream/circuitbreaker.h"

// The dashboard's shared look: one colour per outcome and per breaker state, used by every chart,
// the table and the tray, so "red" means the same thing everywhere. Icons are drawn from the SVGs
// in resources/icons with QSvgRenderer (no dependence on an icon-engine plugin being installed).
namespace dashboardstyle {

QColor outcomeColor(DashboardModel::Category category);
QColor outcomeColor(Outcome outcome);   // how it was served
// A call as drawn one by one (staircase, scatter, table): its failure's colour if it failed, else
// how it was served.
QColor callColor(const CallRecord &record);
QColor breakerColor(BreakerState state);
// Each kind of failure (isFailure(ending)) has a colour of its own: a timeout or a refused
// connection is not an upstream error status. "upstream error", "timeout", ... for legends.
QColor failureColor(Ending ending);
QString failureLabel(Ending ending);
// The failure endings, in the order legends list them.
const QList<Ending> &failureEndings();
// A call still in flight.
QColor inFlightColor();
QString breakerLabel(BreakerState state);   // closed, half-open, open

QIcon appIcon();
QIcon trayIcon(BreakerState worst);

// "12.3 ms", "1.52 s": short durations for labels and tooltips.
QString formatDuration(qint64 ms);
// "$0.0123" or "–" when nothing is known.
QString formatUsd(double usd, bool known = true);
// hh:mm:ss.zzz in local time.
QString formatClock(qint64 wallMs, bool withMs = true);

// Sets a value axis to [0, peak + 15 %] (at least `minimum`), but only when the peak leaves the
// axis or shrinks well below it, so the axis does not twitch with every redraw.
void rescaleToPeak(QValueAxis *axis, double peak, double minimum);

// Shows `text` as the tooltip of a custom-painted widget's ToolTip event (hides it when empty).
void showToolTip(QWidget *widget, QEvent *event, const QString &text);

} // namespace dashboardstyle
