// The dashboard on a 1366x768 laptop at 125 % (issue 26): the offscreen screen at QT_SCALE_FACTOR
// 1.25 is 1093x614 device-independent pixels, and the window opens at its default size there. During
// an outage no text of the Live tab is cut, the staircase's legend and caption included. Measured
// with QFontMetrics against the room each text gets, no timing.
// Built twice: tst_laptop125 in English, tst_laptop125_zh with the zh_CN translation installed
// (LAPTOP_LANGUAGE), whose CJK lines are taller (the toolbar, the upstream strip and the tiles grow).

#include <initializer_list>

#include <QApplication>
#include <QChart>
#include <QGraphicsScene>
#include <QGraphicsTextItem>
#include <QLocale>
#include <QScrollArea>
#include <QScreen>
#include <QScrollBar>
#include <QTableView>
#include <QTabWidget>
#include <QTest>

#include "apptranslation.h"
#include "chartlegend.h"
#include "dashboardfixture.h"
#include "dashboardmodel.h"
#include "dashboardstyle.h"
#include "dashboardwindow.h"
#include "inflightpanel.h"
#include "latencyscatter.h"
#include "latencystaircase.h"
#include "outcomechart.h"

using namespace Qt::StringLiterals;
using namespace dashboardtest;

class TestLaptop125 final : public QObject
{
    Q_OBJECT
private slots:
    void init();
    void cleanup() { delete m_window; delete m_model; }
    void liveTab_outage_noTextIsCut();
    void liveTab_outage_fitsWithoutScrolling();
    void liveTab_backFromATallerWindow_sameAsOpened();
    void liveTab_failureBackInAWiderWindow_namedWhole();
    void inFlightTab_tableFitsItsWidth();

private:
    QStringList outageAgainAfter(const QSize &other);

    DashboardModel *m_model = nullptr;
    DashboardWindow *m_window = nullptr;
};

// The outage with a failure and a refusal among the bars: the staircase's legend at its longest.
void feedOutage(DashboardModel &model, const QByteArray &failureId)
{
    feed(model, recording());
    CallRecord failed = record(failureId, Outcome::Miss, T + 22'000, T + 22'400, 503);
    failed.errorKind = "upstream_error";
    model.addRecord(failed);
}

void TestLaptop125::init()
{
    QCOMPARE(QGuiApplication::primaryScreen()->geometry().size(), QSize(1093, 614));
    m_model = new DashboardModel;
    m_window = new DashboardWindow(m_model);
    m_window->setProxyInfo(u"http://127.0.0.1:41435/v1"_s, true);
    m_window->setClock([] { return T + 30'000; });
    m_window->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_window));
    QCOMPARE(m_window->size(), DashboardWindow::defaultSize(m_window->screen()->availableGeometry()));
    feedOutage(*m_model, "failed-0");
    // And the steady traffic around it: more bars than the staircase has room for.
    for (int i = 0; i < 80; ++i)
        m_model->addRecord(record("steady-" + QByteArray::number(i), Outcome::Miss, T + 22'500 + i * 50, T + 22'900 + i * 50));
    m_model->setSnapshot(snapshot(T + 25'000, BreakerState::Closed, 3, 2));
    m_window->setStaircaseBars(100);
    m_window->redraw();
    QCoreApplication::processEvents();
}

void TestLaptop125::liveTab_outage_noTextIsCut()
{
    // The staircase's legend and caption, and the outcome chart's two rate axes in a 75 px plot.
    m_window->tabs()->setCurrentIndex(0);
    m_window->redraw();
    QCoreApplication::processEvents();
    const QStringList cut = cutTexts(m_window);
    QVERIFY2(cut.isEmpty(), qPrintable(cut.join(u"; "_s)));
}

// The window is 552 px high there: the Live tab shows every chart whole without scrolling (the
// staircase's caption and the timeline's second row were below the fold), and the outcome chart
// and the scatter keep plots tall enough to read (the stacked bands, the two rate axes, the dots).
QStringList liveTabMisfits(DashboardWindow *window)
{
    QStringList misfits;
    auto *area = qobject_cast<QScrollArea *>(window->tabs()->widget(0));
    if (!area)
        return {u"the Live tab is not a scroll area"_s};
    const QSize needed = area->widget()->minimumSizeHint();
    const QSize room = area->viewport()->size();
    if (needed.height() > room.height() || area->verticalScrollBar()->maximum() != 0)
        misfits << u"needs %1 px, has %2"_s.arg(needed.height()).arg(room.height());
    // Its legend beside the plot, not under the chart drawn over it.
    const ChartLegend *legend = window->outcomeChart()->legend();
    if (legend->geometry().intersects(window->outcomeChart()->geometry()))
        misfits << u"legend %1 px wide at %2, chart %3 px wide"_s.arg(legend->width()).arg(legend->x()).arg(window->outcomeChart()->width());
    // Each chart inside its frame: a frame narrower than its chart's minimum (its width policy
    // ignores its hint) cuts the chart's right edge off.
    for (const QWidget *chart : std::initializer_list<const QWidget *>{window->outcomeChart(), window->latencyScatter(), window->staircase()}) {
        const QWidget *frame = chart->parentWidget();
        while (!frame->inherits("QGroupBox"))
            frame = frame->parentWidget();
        const QRect inFrame(chart->mapTo(frame, QPoint()), chart->size());
        if (!frame->rect().contains(inFrame))
            misfits << u"%1 reaches %2 of %3"_s.arg(QLatin1StringView(chart->metaObject()->className())).arg(inFrame.right()).arg(frame->width());
    }
    // About 100 px: squeezed into the tab, the outcomes' plot was 73 px, its axes at three ticks.
    for (const QChartView *view : std::initializer_list<const QChartView *>{window->outcomeChart(), window->latencyScatter()}) {
        const QRectF plot = view->chart()->plotArea();
        if (plot.height() < 100)
            misfits << u"%1's plot is %2 px high"_s.arg(QLatin1StringView(view->metaObject()->className())).arg(plot.height());
    }
    return misfits;
}

void TestLaptop125::liveTab_outage_fitsWithoutScrolling()
{
    m_window->tabs()->setCurrentIndex(0);
    m_window->redraw();
    QCoreApplication::processEvents();
    const QStringList misfits = liveTabMisfits(m_window);
    QVERIFY2(misfits.isEmpty(), qPrintable(misfits.join(u"; "_s)));
}

// The window at `other`, its view cleared there (no failure in view: the scatter's failure entries
// hidden), back at the size it opened with, and the outage fed again: what is then cut, and whether
// the scatter names the failure.
QStringList TestLaptop125::outageAgainAfter(const QSize &other)
{
    m_window->tabs()->setCurrentIndex(0);
    const QSize opened = m_window->size();
    m_window->resize(other);
    m_window->redraw();
    QTest::qWait(100);
    m_window->clearAll();
    m_window->redraw();
    QTest::qWait(100);
    m_window->resize(opened);
    QTest::qWait(100);
    feedOutage(*m_model, "failed-again");
    m_window->redraw();
    QTest::qWait(100);
    QStringList problems = cutTexts(m_window);
    // In the window's language: the name its series has.
    const QString failure = dashboardstyle::failureLabel(Ending::UpstreamError);
    bool named = false;
    for (QGraphicsItem *item : m_window->latencyScatter()->scene()->items()) {
        const auto *text = dynamic_cast<QGraphicsTextItem *>(item);
        named = named || (text && text->isVisible() && text->toPlainText() == failure);
    }
    if (!named)
        problems << u"\"%1\" not in the scatter's legend"_s.arg(failure);
    return problems;
}

// Back from a taller window (another monitor, a window dragged larger; over 860 px the charts stand
// in a column, their titles long): the Live tab is as it is when it opens short. Seen failing: the
// frames kept the minimum widths of the long titles (the tab scrolled sideways, 1127 px in 1022,
// the staircase's legend under its edge), and the outcomes' legend lay under their chart. Under
// zh_CN seen failing as the left axis' title 请求/秒，堆叠 cut to "...": with single-digit labels
// Qt Charts left the CJK title less room than it keeps for a "..." label (fitLabelsToTicks pads them).
void TestLaptop125::liveTab_backFromATallerWindow_sameAsOpened()
{
    const QStringList problems = outageAgainAfter(QSize(900, 900)) + liveTabMisfits(m_window);
    QVERIFY2(problems.isEmpty(), qPrintable(problems.join(u"; "_s)));
}

// A failure named in a window too narrow for its name, gone from view, then back once the window
// is wide again: the scatter names it whole. Seen failing as "upstream ..." (and in the screenshots
// at 125 %, after the herd): Qt Charts cuts an entry's text only while the entry is shown, and
// showing it again left the text as it had been cut.
void TestLaptop125::liveTab_failureBackInAWiderWindow_namedWhole()
{
    const QStringList problems = outageAgainAfter(QSize(760, m_window->height()));
    QVERIFY2(problems.isEmpty(), qPrintable(problems.join(u"; "_s)));
}

// Its columns are sized once from typical values: together they must fit the window's width, or a
// horizontal scroll bar takes a row's height for a pixel's difference.
void TestLaptop125::inFlightTab_tableFitsItsWidth()
{
    m_window->tabs()->setCurrentWidget(m_window->inFlight());
    QCoreApplication::processEvents();
    const auto *view = m_window->inFlight()->findChild<QTableView *>();
    QVERIFY(view);
    QCOMPARE(view->horizontalScrollBar()->maximum(), 0);
}

int main(int argc, char *argv[])
{
    // Before the QApplication, which reads both: the laptop's 1366x768 at 125 %.
    qputenv("QT_SCALE_FACTOR", "1.25");
    useLaptopScreen();
    QApplication app(argc, argv);
#ifdef LAPTOP_LANGUAGE
    if (!apptranslation::install(&app, QLocale(QStringLiteral(LAPTOP_LANGUAGE)))) {
        qCritical("no %s translation", LAPTOP_LANGUAGE);
        return 1;
    }
#endif
    TestLaptop125 test;
    return QTest::qExec(&test, argc, argv);
}

#include "tst_laptop125.moc"
