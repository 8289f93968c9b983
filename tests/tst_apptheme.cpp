// View > Theme (issue 26): Dark and Light applied live to the whole dashboard, the Qt Charts in the
// palette's colours (their background, axis labels and legend), the tiles and the breaker timeline
// drawn on the dark ground, the series keeping their colours, and the choice kept in the settings.

#include <cmath>

#include "apptheme.h"
#include "breakertimeline.h"
#include "chartlegend.h"
#include "dashboardfixture.h"
#include "dashboardmodel.h"
#include "dashboardstyle.h"
#include "dashboardwindow.h"
#include "figurespanel.h"
#include "latencyscatter.h"
#include "outcomechart.h"

#include <QAbstractAxis>
#include <QAbstractSeries>
#include <QAction>
#include <QApplication>
#include <QAreaSeries>
#include <QChart>
#include <QFrame>
#include <QLegend>
#include <QMenu>
#include <QRegularExpression>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QXYSeries>

using namespace Qt::StringLiterals;
using namespace dashboardtest;

namespace {

// The outcome chart stacks areas and draws the refused+failed line beside them: each by its kind.
QColor colourOf(QAbstractSeries *series)
{
    if (auto *area = qobject_cast<QAreaSeries *>(series))
        return area->color();
    if (auto *line = qobject_cast<QXYSeries *>(series))
        return line->color();
    return {};
}

QAction *themeAction(DashboardWindow &window, const QString &name)
{
    for (QAction *action : window.viewMenu()->actions()) {
        if (action->text() == name)
            return action;
    }
    return nullptr;
}

bool dark(const QColor &colour) { return colour.lightness() < 90; }

// WCAG 2's contrast ratio of two colours (1 to 21); 4.5 is its floor for body text.
double contrast(const QColor &a, const QColor &b)
{
    const auto luminance = [](const QColor &c) {
        const auto channel = [](double v) { return v <= 0.03928 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4); };
        return 0.2126 * channel(c.redF()) + 0.7152 * channel(c.greenF()) + 0.0722 * channel(c.blueF());
    };
    const double la = luminance(a), lb = luminance(b);
    return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

// The colours the legend writes its names in (each entry is a swatch span, then a name span).
QList<QColor> nameColours(const ChartLegend *legend)
{
    static const QRegularExpression span(u"<span style='color:(#[0-9a-fA-F]{6})'>"_s);
    QList<QColor> colours;
    int i = 0;
    for (auto it = span.globalMatch(legend->text()); it.hasNext(); ++i) {
        const QString colour = it.next().captured(1);
        if (i % 2 == 1)
            colours << QColor(colour);
    }
    return colours;
}
bool light(const QColor &colour) { return colour.lightness() > 170; }

// The colour most of a widget's pixels have: its ground.
QColor ground(QWidget *widget)
{
    const QImage image = widget->grab().toImage();
    QHash<QRgb, int> counts;
    for (int y = 0; y < image.height(); y += 2) {
        for (int x = 0; x < image.width(); x += 2)
            ++counts[image.pixel(x, y)];
    }
    QRgb best = 0;
    for (auto it = counts.cbegin(); it != counts.cend(); ++it) {
        if (it.value() > counts.value(best))
            best = it.key();
    }
    return QColor(best);
}

} // namespace

class TestAppTheme final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void dark_chartsTilesAndTimelineFollowThePalette();
    void choice_keptInTheSettings();
    void dark_legendNamesInTheTextColour();
};

void TestAppTheme::dark_chartsTilesAndTimelineFollowThePalette()
{
    DashboardModel model;
    DashboardWindow window(&model);
    qint64 now = T + 30'000;
    window.setClock([&now] { return now; });
    feed(model, recording());
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.redraw();
    QList<QColor> seriesColours;
    for (QAbstractSeries *series : window.outcomeChart()->chart()->series())
        seriesColours << colourOf(series);

    QSignalSpy chosen(&window, &DashboardWindow::themeChosen);
    QAction *darkAction = themeAction(window, u"Dark"_s);
    QVERIFY(darkAction);
    darkAction->trigger();
    QCOMPARE(chosen.count(), 1);
    QCOMPARE(chosen.first().first().value<apptheme::Theme>(), apptheme::Theme::Dark);
    QVERIFY(darkAction->isChecked());
    QVERIFY(apptheme::isDark(QApplication::palette()));
    window.redraw();

    const QPalette palette = window.palette();
    QVERIFY2(dark(palette.color(QPalette::Base)), qPrintable(palette.color(QPalette::Base).name() + u' ' + QApplication::palette().color(QPalette::Base).name()));
    for (QChart *chart : {window.outcomeChart()->chart(), window.latencyScatter()->chart()}) {
        QCOMPARE(chart->backgroundBrush().color(), palette.color(QPalette::Base));
        QVERIFY(dark(chart->backgroundBrush().color()));
        QCOMPARE(chart->legend()->labelColor(), palette.color(QPalette::Text));
        for (QAbstractAxis *axis : chart->axes()) {
            QCOMPARE(axis->labelsColor(), palette.color(QPalette::Text));
            QVERIFY(light(axis->labelsColor()));
        }
    }
    // The pixels too: the charts' ground is dark, and so are a tile's and the breaker timeline's.
    QVERIFY2(dark(ground(window.outcomeChart()->viewport())), qPrintable(ground(window.outcomeChart()->viewport()).name()));
    QFrame *tile = window.figures()->findChild<QFrame *>(u"tile"_s);
    QVERIFY(tile);
    QVERIFY2(dark(ground(tile)), qPrintable(ground(tile).name()));
    QVERIFY2(dark(ground(window.breakerTimeline())), qPrintable(ground(window.breakerTimeline()).name()));
    // Series keep their meaning.
    QList<QColor> darkSeries;
    for (QAbstractSeries *series : window.outcomeChart()->chart()->series())
        darkSeries << colourOf(series);
    QCOMPARE(darkSeries, seriesColours);

    // And back to light.
    themeAction(window, u"Light"_s)->trigger();
    window.redraw();
    QVERIFY(!apptheme::isDark(QApplication::palette()));
    QVERIFY(light(window.outcomeChart()->chart()->backgroundBrush().color()));
    QVERIFY(dark(window.outcomeChart()->chart()->axes().first()->labelsColor()));
    QVERIFY2(light(ground(tile)), qPrintable(ground(tile).name()));
}

void TestAppTheme::choice_keptInTheSettings()
{
    QTemporaryDir dir;
    QSettings settings(dir.filePath(u"breakwater.conf"_s), QSettings::IniFormat);
    QCOMPARE(apptheme::load(settings), apptheme::Theme::System);
    apptheme::save(settings, apptheme::Theme::Dark);
    QCOMPARE(apptheme::load(settings), apptheme::Theme::Dark);
    apptheme::save(settings, apptheme::Theme::Light);
    QCOMPARE(apptheme::load(settings), apptheme::Theme::Light);
    apptheme::save(settings, apptheme::Theme::System);
    QCOMPARE(apptheme::load(settings), apptheme::Theme::System);
}

void TestAppTheme::dark_legendNamesInTheTextColour()
{
    // The outcome chart's legend, laid out light and then turned dark (as a user does from the
    // View menu): every name in the palette's text colour, readable on the window's ground, the
    // hidden series' (no call of theirs yet) too.
    apptheme::apply(apptheme::Theme::Light);
    DashboardModel model;
    DashboardWindow window(&model);
    window.setClock([] { return T + 30'000; });
    feed(model, recording());
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.redraw();
    ChartLegend *legend = window.outcomeChart()->legend();
    QVERIFY(legend);
    QVERIFY(legend->entries().size() >= 5);
    QCOMPARE(nameColours(legend).size(), legend->entries().size());

    apptheme::apply(apptheme::Theme::Dark);
    window.redraw();
    const QPalette palette = legend->palette();
    QVERIFY(apptheme::isDark(palette));
    const QColor text = palette.color(QPalette::WindowText), ground = palette.color(QPalette::Window);
    const QList<QColor> colours = nameColours(legend);
    QCOMPARE(colours.size(), legend->entries().size());
    for (int i = 0; i < colours.size(); ++i) {
        QVERIFY2(colours[i] == text || contrast(colours[i], ground) >= 4.5,
                 qPrintable(u"%1 in %2 on %3: %4:1"_s.arg(legend->entries()[i], colours[i].name(), ground.name())
                                .arg(contrast(colours[i], ground), 0, 'f', 1)));
    }
    apptheme::apply(apptheme::Theme::Light);
}

DASHBOARD_TEST_MAIN(TestAppTheme)

#include "tst_apptheme.moc"
