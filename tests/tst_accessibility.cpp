// Keyboard and screen readers (issue 26): every tile, chart and table has an accessible name (and
// the charts a description), and Tab from the first control reaches every control the window
// shows, the toolbar's too, in the order they are laid out: row by row, left to right.

#include "apptheme.h"
#include "breakertimeline.h"
#include "dashboardfixture.h"
#include "dashboardmodel.h"
#include "dashboardwindow.h"
#include "figurespanel.h"
#include "latencyscatter.h"
#include "latencystaircase.h"
#include "outcomechart.h"

#include <QAbstractButton>
#include <QAbstractItemView>
#include <QApplication>
#include <QComboBox>
#include <QFrame>
#include <QTabWidget>
#include <QToolButton>
#include <QTest>
#include <QToolBar>

using namespace Qt::StringLiterals;
using namespace dashboardtest;

namespace {

QRect placeIn(const QWidget *window, const QWidget *widget)
{
    return QRect(widget->mapTo(window, QPoint(0, 0)), widget->size());
}

QString describe(const QWidget *widget)
{
    const auto *button = qobject_cast<const QAbstractButton *>(widget);
    return u"%1 \"%2\""_s.arg(QString::fromLatin1(widget->metaObject()->className()),
                              button ? button->text() : widget->accessibleName());
}

} // namespace

class TestAccessibility final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void tilesChartsAndTables_haveNames();
    void tab_reachesEveryControlInLayoutOrder();
    void toolbarFocus_takenByTabAndDrawn();
};

void TestAccessibility::tilesChartsAndTables_haveNames()
{
    DashboardModel model;
    DashboardWindow window(&model);
    feed(model, recording());
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.redraw();
    const QList<QFrame *> tiles = window.figures()->findChildren<QFrame *>(u"tile"_s);
    QVERIFY(tiles.size() >= 8);
    for (QFrame *tile : tiles) {
        QVERIFY(!tile->accessibleName().isEmpty());
        QVERIFY(!tile->accessibleDescription().isEmpty());
    }
    const QList<QWidget *> charts{window.outcomeChart(), window.breakerTimeline(), window.latencyScatter(), window.staircase()};
    for (QWidget *chart : charts) {
        QVERIFY2(!chart->accessibleName().isEmpty(), chart->metaObject()->className());
        QVERIFY2(!chart->accessibleDescription().isEmpty(), chart->metaObject()->className());
    }
    const QList<QAbstractItemView *> tables = window.findChildren<QAbstractItemView *>();
    QVERIFY(tables.size() >= 2);
    for (QAbstractItemView *table : tables) {
        if (qobject_cast<QComboBox *>(table->parentWidget()) || table->inherits("QComboBoxListView"))
            continue;   // a combo box's own list
        QVERIFY2(!table->accessibleName().isEmpty(), table->metaObject()->className());
        QVERIFY(!table->tabKeyNavigation());   // Tab leaves the table
    }
}

void TestAccessibility::tab_reachesEveryControlInLayoutOrder()
{
    DashboardModel model;
    DashboardWindow window(&model);
    feed(model, recording());
    model.setSnapshot(snapshot(T + 25'000, BreakerState::Closed, 0, 0));   // the breaker buttons
    window.show();
    QApplication::setActiveWindow(&window);
    QVERIFY(QTest::qWaitForWindowActive(&window));
    window.redraw();
    QApplication::processEvents();

    // Every button and choice the window shows, the toolbar's included.
    QList<QWidget *> controls;
    for (QWidget *widget : window.findChildren<QWidget *>()) {
        if ((qobject_cast<QAbstractButton *>(widget) || qobject_cast<QComboBox *>(widget)) && widget->isVisible()
            && widget->isEnabled() && !widget->visibleRegion().isEmpty() && widget->objectName() != u"qt_toolbar_ext_button"_s
            && !widget->inherits("QTabBar") && widget->parentWidget()->inherits("QTabBar") == false)
            controls << widget;
    }
    const QToolBar *toolBar = window.findChild<QToolBar *>();
    QVERIFY(toolBar);
    QVERIFY(std::count_if(controls.cbegin(), controls.cend(), [&](QWidget *w) { return toolBar->isAncestorOf(w); }) >= 6);

    QWidget *first = window.tabOrder().value(0);
    QVERIFY(first);
    first->setFocus(Qt::TabFocusReason);
    QCOMPARE(QApplication::focusWidget(), first);
    QList<QWidget *> reached{first};
    for (int i = 0; i < 200; ++i) {
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Tab);
        QWidget *now = QApplication::focusWidget();
        if (now == first)
            break;
        QVERIFY2(!reached.contains(now), qPrintable(u"reached twice: "_s + describe(now)));
        reached << now;
    }
    for (QWidget *control : controls)
        QVERIFY2(reached.contains(control), qPrintable(u"not reached by Tab: "_s + describe(control)));
    // In layout order: never back to an earlier row, and left to right within a row.
    for (qsizetype i = 1; i < reached.size(); ++i) {
        const QRect before = placeIn(&window, reached[i - 1]), after = placeIn(&window, reached[i]);
        const bool sameRow = after.center().y() <= before.bottom() && before.center().y() <= after.bottom();
        const QString step = describe(reached[i - 1]) + u" -> "_s + describe(reached[i]);
        if (sameRow)
            QVERIFY2(after.x() > before.x(), qPrintable(u"leftwards: "_s + step));
        else
            QVERIFY2(after.center().y() > before.center().y(), qPrintable(u"upwards: "_s + step));
    }
    // Shift+Tab goes back the same way.
    QTest::keyClick(QApplication::focusWidget(), Qt::Key_Backtab);
    QCOMPARE(QApplication::focusWidget(), reached.last());
}

void TestAccessibility::toolbarFocus_takenByTabAndDrawn()
{
    // Fusion on the dark palette (View > Theme > Dark): each toolbar control takes the focus from
    // the keyboard and shows it, its rendering with the focus differs from the one without.
    apptheme::apply(apptheme::Theme::Dark);
    DashboardModel model;
    DashboardWindow window(&model);
    feed(model, recording());
    window.show();
    QApplication::setActiveWindow(&window);
    QVERIFY(QTest::qWaitForWindowActive(&window));
    window.redraw();
    QApplication::processEvents();

    const QToolBar *toolBar = window.findChild<QToolBar *>();
    QVERIFY(toolBar);
    QList<QWidget *> controls;
    for (QAction *action : toolBar->actions()) {
        QWidget *widget = toolBar->widgetForAction(action);
        if (widget && widget->isVisible() && (qobject_cast<QToolButton *>(widget) || qobject_cast<QComboBox *>(widget)))
            controls << widget;
    }
    QVERIFY(controls.size() >= 6);
    // A key press first: Fusion draws the focus frame only once the keyboard has moved the focus.
    QWidget *away = window.tabs();
    away->setFocus(Qt::TabFocusReason);
    QTest::keyClick(away, Qt::Key_Tab);
    for (QWidget *control : std::as_const(controls)) {
        QVERIFY2((control->focusPolicy() & Qt::TabFocus) == Qt::TabFocus, qPrintable(describe(control)));
        away->setFocus(Qt::TabFocusReason);
        QApplication::processEvents();
        QVERIFY(!control->hasFocus());
        const QImage without = control->grab().toImage();
        control->setFocus(Qt::TabFocusReason);
        QApplication::processEvents();
        QVERIFY2(control->hasFocus(), qPrintable(describe(control)));
        const QImage with = control->grab().toImage();
        QVERIFY2(with != without, qPrintable(u"no focus drawn: "_s + describe(control)));
    }
    apptheme::apply(apptheme::Theme::Light);
}

DASHBOARD_TEST_MAIN(TestAccessibility)

#include "tst_accessibility.moc"
