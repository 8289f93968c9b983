// The dashboard on a 1366x768 laptop at 125 % (issue 26): the offscreen screen at QT_SCALE_FACTOR
// 1.25 is 1093x614 device-independent pixels, and the window opens at its default size there. During
// an outage no text of the Live tab is cut, the staircase's legend and caption included. Measured
// with QFontMetrics against the room each text gets, no timing.

#include <QApplication>
#include <QScreen>
#include <QScrollBar>
#include <QTableView>
#include <QTabWidget>
#include <QTest>

#include "dashboardfixture.h"
#include "dashboardmodel.h"
#include "dashboardwindow.h"
#include "inflightpanel.h"

using namespace Qt::StringLiterals;
using namespace dashboardtest;

class TestLaptop125 final : public QObject
{
    Q_OBJECT
private slots:
    void init();
    void cleanup() { delete m_window; delete m_model; }
    void liveTab_outage_noTextIsCut();
    void inFlightTab_tableFitsItsWidth();

private:
    DashboardModel *m_model = nullptr;
    DashboardWindow *m_window = nullptr;
};

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
    // The outage with a failure and a refusal among the bars: the staircase's legend at its longest.
    feed(*m_model, recording());
    CallRecord failed = record("failed-0", Outcome::Miss, T + 22'000, T + 22'400, 503);
    failed.errorKind = "upstream_error";
    m_model->addRecord(failed);
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
    TestLaptop125 test;
    return QTest::qExec(&test, argc, argv);
}

#include "tst_laptop125.moc"
