#pragma once

#include <QColor>
#include <QIcon>
#include <QKeySequence>
#include <QList>
#include <QString>

class QEvent;
class QFont;
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
// Fault injection: the armed banner, the tray's badge and the mark on injected calls.
QColor injectedColor();
// A call its upstream's fallback answered (x-breakwater-fallback): the staircase's bar, the
// outcome chart's band (outcomeColor(Category::Fallback), the one table).
QColor fallbackColor();
QString breakerLabel(BreakerState state);   // closed, half-open, open

// The platform's Quit keys, Ctrl+Q where the platform names none (the offscreen one, for one).
QList<QKeySequence> quitShortcuts();

QIcon appIcon();
QIcon trayIcon(BreakerState worst);
// With a badge in the corner while a fault rule is armed, so the tray says so too.
QIcon trayIcon(BreakerState worst, bool faultsArmed, bool admissionPaused = false);
QColor pausedColor();   // admission paused: the tray's badge

// "12.3 ms", "1.52 s": short durations for labels and tooltips, their units in the user's language
// (the bench's report, which installs no translator, reads English).
QString formatDuration(qint64 ms);
// A time left, in whole seconds rounded up ("53 s", "1 min 46 s"): a countdown, not a measurement.
QString formatCountdown(qint64 ms);
// "1 cache hit", "2 cache hits": every count in a sentence, so no "1 upstream calls" or "call(s)".
QString countOf(qint64 n, const QString &singular, const QString &plural);
// The one money format of the window: US dollars with 4 decimals ("$0.0012", "$12.3400"), a
// non-zero amount below a hundredth of a cent as "<$0.0001", and "–" when the cost is not known.
// (Files get plain decimals instead: RequestPanel::toCsv.)
QString formatUsd(double usd, bool known = true);
// hh:mm:ss.zzz in local time.
QString formatClock(qint64 wallMs, bool withMs = true);

// Sets a value axis to [0, peak + 15 %] (at least `minimum`), but only when the peak leaves the
// axis or shrinks well below it, so the axis does not twitch with every redraw. The labels get the
// decimals their tick step needs (0.25 stays "0.25", never "0.3").
void rescaleToPeak(QValueAxis *axis, double peak, double minimum);
// The fewest decimals (at most 4) that print every multiple of `step` exactly.
int decimalsForStep(double step);
// Sets a value axis' label format to what its ticks need (decimalsForStep of its tick step). A
// titled vertical axis whose labels are narrower than "..." gets them padded to that width: Qt
// Charts keeps room for a "..." label beside the title, so single-digit labels ("0" to "8") left
// a CJK title too little and it was cut to "..." (zh_CN at 125 %).
void fitLabelsToTicks(QValueAxis *axis);

// Whether `text` in `font` needs a taller line than the font's own (QFontMetrics::height()): a
// script the font lacks falls back on one whose lines are taller, as Noto Sans CJK's are (zh_CN:
// about 4 px a line at 125 %).
bool needsTallerLines(const QFont &font, const QString &text);

// Shows `text` as the tooltip of a custom-painted widget's ToolTip event (hides it when empty).
void showToolTip(QWidget *widget, QEvent *event, const QString &text);

} // namespace dashboardstyle
