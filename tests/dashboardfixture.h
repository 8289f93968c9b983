#pragma once

#include <QColor>
#include <QImage>
#include <QList>
#include <QObject>
#include <QString>

#include "accounting/callrecord.h"
#include "proxysnapshot.h"
#include "upstream/circuitbreaker.h"

class DashboardModel;
class QWidget;

// What the dashboard's tests share (tst_dashboard, tst_dashboardcharts, tst_dashboardlayout): a
// recorded sequence of records, breaker transitions and snapshots to feed a model, readers of
// pixels and geometry, and the 1366x768 laptop screen the offscreen platform is given in main().
namespace dashboardtest {

inline constexpr qint64 T = 1'800'000'000'000;   // the recording's start (wall ms)

CallRecord record(const QByteArray &id, Outcome outcome, qint64 receivedAt, qint64 endAt, int status = 200);
BreakerTransition transition(qint64 at, BreakerState from, BreakerState to, const QString &reason);
ProxySnapshot snapshot(qint64 at, BreakerState openaiState, int running, int queued);
// A fleet (--shared-state) of `instances` live ones, this one first (dev-laptop-1:41435): instance i
// made i + 3 upstream calls and had i + 1 misses, 4 joined and 3i hits (three: 12 calls, 12 joined, 6 misses, 9 hits).
FleetView fleet(int instances);

// The recorded sequence: a herd (1 miss + 9 joined), 3 hits, 1 bypass, an outage (5 upstream 503s,
// the breaker opens, 4 refusals, a probe, a trial that closes it) and one request after it.
struct Recording
{
    QList<CallRecord> records;
    QList<BreakerTransition> transitions;
};
Recording recording();
void feed(DashboardModel &model, const Recording &rec);

bool containsColour(const QImage &image, const QColor &colour, int tolerance = 8);
bool singleColour(const QImage &image);

// Counts the paint events of the widgets it watches.
class PaintCounter final : public QObject
{
public:
    explicit PaintCounter(QList<QWidget *> widgets);
    int paints = 0;

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;
};

// Whole inside its window: shown, not clipped by a scroll area or the window's edge.
bool wholeInWindow(const QWidget *widget);

// The labels shown in `root` whose one line is wider than the room they were given (a cut text),
// the sideways scroll bars shown, and the texts its charts elided or left out (an axis title cut
// to "requests/s, s…"), each as "what: why".
QStringList cutTexts(QWidget *root);
// Only the charts' part of it.
QStringList cutChartTexts(QWidget *root);
// Only the latency staircase's part of it: its legend and side caption.
QStringList cutStaircaseTexts(QWidget *root);

// Answers the next message box with the button whose text is `answer`, once it is up.
void answerMessageBox(const QString &answer);

// Before the QApplication exists: gives the offscreen platform a 1366x768 screen (its own is
// 800x600), the laptop the window must fit.
void useLaptopScreen();

} // namespace dashboardtest

// main() of a dashboard test: on the laptop screen, with a QApplication.
#define DASHBOARD_TEST_MAIN(TestClass)                  \
    int main(int argc, char *argv[])                    \
    {                                                   \
        dashboardtest::useLaptopScreen();               \
        QApplication app(argc, argv);                   \
        TestClass test;                                 \
        return QTest::qExec(&test, argc, argv);         \
    }
