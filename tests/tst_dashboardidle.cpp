// The dashboard at rest (issue 26): a laptop keeps it open all day, so with no calls it must cost
// next to nothing. Counted, not timed: every timer event and every paint in the application is
// counted while the window is shown and idle, hidden, and minimised. A slow machine only sees
// fewer of them, so the verdicts cannot depend on its speed. The quiet minute is counted on the
// injected clock alone: the test moves it by the interval the window asks for and ticks.

#include "dashboardfixture.h"
#include "dashboardmodel.h"
#include "dashboardwindow.h"
#include "figurespanel.h"
#include "latencyscatter.h"
#include "outcomechart.h"
#include "breakertimeline.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QHash>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace dashboardtest;

namespace {

// Every timer event and paint in the application, by receiver.
class WakeCounter final : public QObject
{
public:
    WakeCounter() { qApp->installEventFilter(this); }
    ~WakeCounter() override { qApp->removeEventFilter(this); }
    int timers = 0;
    QHash<QObject *, int> paints;
    int paintsOutside(const QList<QWidget *> &allowed) const
    {
        int count = 0;
        for (auto it = paints.cbegin(); it != paints.cend(); ++it) {
            if (!allowed.contains(qobject_cast<QWidget *>(it.key())))
                count += it.value();
        }
        return count;
    }
    int paintsOf(QWidget *widget) const { return paints.value(widget); }
    QString describe() const
    {
        QStringList painted;
        for (auto it = paints.cbegin(); it != paints.cend(); ++it) {
            QObject *parent = it.key()->parent();
            painted << u"%1 (%2 in %3) x%4"_s.arg(QString::fromLatin1(it.key()->metaObject()->className()), it.key()->objectName(),
                                                  parent ? QString::fromLatin1(parent->metaObject()->className()) : QString())
                           .arg(it.value());
        }
        return u"painted: "_s + painted.join(u", "_s);
    }

protected:
    bool eventFilter(QObject *watched, QEvent *event) override
    {
        if (event->type() == QEvent::Timer)
            ++timers;
        else if (event->type() == QEvent::Paint)
            ++paints[watched];
        return QObject::eventFilter(watched, event);
    }
};

// What may repaint while the charts only scroll: the time axes of outcomes, breakers and latency,
// with what lies under them (a chart is not opaque: its frame and the tab's page repaint behind it).
QList<QWidget *> scrollingCharts(const DashboardWindow &window)
{
    return {window.outcomeChart()->viewport(), window.breakerTimeline(), window.latencyScatter()->viewport()};
}

QList<QWidget *> movingWithTheClock(const DashboardWindow &window)
{
    QList<QWidget *> moving;
    for (QWidget *chart : scrollingCharts(window)) {
        moving << chart->parentWidget()->findChildren<QWidget *>();   // with its legend
        for (QWidget *widget = chart; widget && widget != window.tabs(); widget = widget->parentWidget())
            moving << widget;
    }
    return moving;
}

// Delivers what a tick posted (scene updates, layout, paints) but no timer event: the real
// redraw timer never fires, the test is the timer.
void deliverPosted()
{
    for (int i = 0; i < 4; ++i)
        QCoreApplication::sendPostedEvents();
}

} // namespace

class TestDashboardIdle final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void shownIdle_wakesAtMostOnceASecond_onlyTheScrollingCharts();
    void quietMinute_stepsTheClockAxisEveryFewSeconds();
    void hiddenOrMinimised_drawsNothing();
};

// Calls 20 s old sit in the 5-minute window: the charts scroll with the clock, nothing else moves.
// Snapshots keep coming four times a second with the same figures, as an idle proxy's do.
void TestDashboardIdle::shownIdle_wakesAtMostOnceASecond_onlyTheScrollingCharts()
{
    DashboardModel model;
    DashboardWindow window(&model);
    QElapsedTimer elapsed;
    const qint64 start = T + 41'000;
    window.setClock([&] { return start + (elapsed.isValid() ? elapsed.elapsed() : 0); });
    feed(model, recording());
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    model.setSnapshot(snapshot(start, BreakerState::Closed, 0, 0));   // the calls are over
    window.redraw();
    QTest::qWait(300);   // what the first ticks had to draw is drawn

    WakeCounter counter;
    elapsed.start();
    int snapshots = 0;
    while (elapsed.elapsed() < 3000) {
        model.setSnapshot(snapshot(start + elapsed.elapsed(), BreakerState::Closed, 0, 0));
        ++snapshots;
        QTest::qWait(250);
    }
    const qint64 seconds = elapsed.elapsed() / 1000;
    QVERIFY(snapshots >= 4);
    // About once a second: the redraw timer at rest (the old 100 ms tick made 30 of them).
    QVERIFY2(counter.timers <= seconds + 2, qPrintable(u"%1 timer events in %2 s"_s.arg(counter.timers).arg(seconds)));
    // Only what moves with the clock.
    QVERIFY2(counter.paintsOutside(movingWithTheClock(window)) == 0, qPrintable(counter.describe()));
    for (QWidget *chart : scrollingCharts(window))
        QVERIFY2(counter.paintsOf(chart) <= seconds + 2, qPrintable(u"%1 paints"_s.arg(counter.paintsOf(chart))));

    // A call wakes it at once, and it is drawn.
    const int ticks = window.tickCount();
    model.addRecord(record("new", Outcome::Miss, start + elapsed.elapsed() - 200, start + elapsed.elapsed()));
    QTRY_VERIFY_WITH_TIMEOUT(window.tickCount() > ticks, 500);
    QTRY_COMPARE(window.figures()->figure(u"requests"_s), QString::number(model.totals().requests));
}

// Five calls, then none: a minute later they still lie in the 5-minute window, and only the clock
// axis moves. It steps every few seconds (it stepped every second: 60 steps, each repainting three
// charts), each step brings the axis right up to the clock, and a new call is drawn at once.
void TestDashboardIdle::quietMinute_stepsTheClockAxisEveryFewSeconds()
{
    DashboardModel model;
    DashboardWindow window(&model);
    qint64 now = T + 100'000;
    window.setClock([&now] { return now; });
    for (int i = 0; i < 5; ++i)
        model.addRecord(record("call" + QByteArray::number(i), Outcome::Miss, now - 21'000 + i * 100, now - 20'000 + i * 100));
    model.setSnapshot(snapshot(now, BreakerState::Closed, 0, 0));
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.redraw();
    deliverPosted();

    WakeCounter counter;
    const qint64 end = now + 60'000;
    int steps = 0;
    while (now < end) {
        const int interval = window.redrawIntervalMs();
        QVERIFY2(interval > 0, "the calls are in the window: the clock axis must move");
        QVERIFY(interval <= DashboardWindow::kQuietIntervalMs);   // never further behind than a quiet step
        now += interval;
        window.tick();
        ++steps;
        QCOMPARE(window.chartsDrawnAtMs(), now);   // each step draws the axis up to the clock
        deliverPosted();
    }
    const int mostSteps = int(60'000 / DashboardWindow::kQuietIntervalMs) + 2;
    qInfo("a quiet minute: %d steps; paints: %s", steps, qPrintable(counter.describe()));
    QVERIFY2(steps <= mostSteps, qPrintable(u"%1 steps in a quiet minute"_s.arg(steps)));
    // The charts alone: the breaker timeline is opaque, so its frame and the page stay as they are.
    QVERIFY2(counter.paintsOutside(scrollingCharts(window)) == 0, qPrintable(counter.describe()));
    // A paint a step, and a second where Qt Charts lays out new clock labels.
    for (QWidget *chart : scrollingCharts(window))
        QVERIFY2(counter.paintsOf(chart) <= mostSteps + 2, qPrintable(counter.describe()));

    // A call: the window ticks at once, drawn up to the clock, not up to the last quiet step.
    model.addRecord(record("again", Outcome::Miss, now + 1'000, now + 1'200));
    now += 1'300;
    QCOMPARE(window.redrawIntervalMs(), DashboardWindow::kRedrawIntervalMs);
    now += DashboardWindow::kRedrawIntervalMs;
    window.tick();
    QCOMPARE(window.chartsDrawnAtMs(), now);
    now += window.redrawIntervalMs();   // one more look while things arrive, then a step a second:
    window.tick();                      // the call has just ended
    QCOMPARE(window.redrawIntervalMs(), DashboardWindow::kRestIntervalMs);
}

void TestDashboardIdle::hiddenOrMinimised_drawsNothing()
{
    DashboardModel model;
    DashboardWindow window(&model);
    qint64 now = T + 30'000;
    window.setClock([&now] { return now; });
    feed(model, recording());
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.redraw();

    for (const bool minimise : {false, true}) {
        if (minimise)
            window.showMinimized();
        else
            window.hide();
        QTest::qWait(300);
        const int redrawsAway = window.redrawCount();
        WakeCounter counter;
        // Calls, a breaker opening and snapshots arrive while nobody looks.
        for (int i = 0; i < 8; ++i) {
            now += 250;
            model.addRecord(record("away" + QByteArray::number(i) + (minimise ? "m" : "h"), Outcome::Miss, now - 100, now));
            model.setSnapshot(snapshot(now, i % 2 ? BreakerState::Open : BreakerState::Closed, i, 0));
            QTest::qWait(150);
        }
        QCOMPARE(counter.timers, 0);
        QCOMPARE(counter.paintsOutside({}), 0);
        QCOMPARE(window.redrawCount(), redrawsAway);
        // Shown again: what came is drawn at once.
        window.showNormal();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QTRY_VERIFY(window.redrawCount() > redrawsAway);
        QTRY_COMPARE(window.figures()->figure(u"requests"_s), QString::number(model.totals().requests));
    }
}

DASHBOARD_TEST_MAIN(TestDashboardIdle)

#include "tst_dashboardidle.moc"
