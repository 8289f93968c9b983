#include "apptheme.h"

#include <QAbstractAxis>
#include <QApplication>
#include <QChart>
#include <QLegend>
#include <QSettings>
#include <QStyle>
#include <QStyleFactory>
#include <QWidget>

using namespace Qt::StringLiterals;

namespace apptheme {

namespace {

const QString kThemeKey = u"view/theme"_s;
Theme g_current = Theme::System;   // GUI thread only, as the application's palette is

// The desktop's style and palette, as the application started: what System goes back to.
struct SystemLook
{
    QString style;
    QPalette palette;
};

const SystemLook &systemLook()
{
    static const SystemLook look{QApplication::style()->name(), QApplication::palette()};
    return look;
}

} // namespace

QPalette darkPalette()
{
    // Fusion's roles on a dark ground; highlight and links stay blue, as in the light palette.
    QPalette palette;
    const QColor window(0x2b, 0x2d, 0x30), base(0x1e, 0x1f, 0x22), text(0xe6, 0xe6, 0xe6);
    palette.setColor(QPalette::Window, window);
    palette.setColor(QPalette::WindowText, text);
    palette.setColor(QPalette::Base, base);
    palette.setColor(QPalette::AlternateBase, QColor(0x33, 0x35, 0x39));
    palette.setColor(QPalette::ToolTipBase, QColor(0x3c, 0x3f, 0x41));
    palette.setColor(QPalette::ToolTipText, text);
    palette.setColor(QPalette::PlaceholderText, QColor(0x9a, 0x9a, 0x9a));
    palette.setColor(QPalette::Text, text);
    palette.setColor(QPalette::Button, QColor(0x35, 0x37, 0x3b));
    palette.setColor(QPalette::ButtonText, text);
    palette.setColor(QPalette::BrightText, Qt::white);
    palette.setColor(QPalette::Light, QColor(0x4a, 0x4d, 0x52));
    palette.setColor(QPalette::Midlight, QColor(0x3e, 0x41, 0x45));
    palette.setColor(QPalette::Mid, QColor(0x55, 0x58, 0x5d));
    palette.setColor(QPalette::Dark, QColor(0x18, 0x19, 0x1b));
    palette.setColor(QPalette::Shadow, Qt::black);
    palette.setColor(QPalette::Highlight, QColor(0x3d, 0x7a, 0xd6));
    palette.setColor(QPalette::HighlightedText, Qt::white);
    palette.setColor(QPalette::Link, QColor(0x6c, 0xa8, 0xff));
    palette.setColor(QPalette::LinkVisited, QColor(0xb0, 0x8c, 0xff));
    const QColor disabled(0x7a, 0x7a, 0x7a);
    for (const QPalette::ColorRole role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
        palette.setColor(QPalette::Disabled, role, disabled);
    palette.setColor(QPalette::Disabled, QPalette::Highlight, QColor(0x50, 0x50, 0x50));
    return palette;
}

bool isDark(const QPalette &palette)
{
    return palette.color(QPalette::Window).lightness() < palette.color(QPalette::WindowText).lightness();
}

void apply(Theme theme)
{
    const SystemLook &system = systemLook();   // taken before the first change
    g_current = theme;
    if (theme == Theme::System) {
        QApplication::setStyle(QStyleFactory::create(system.style));
        QApplication::setPalette(system.palette);
    } else {
        QStyle *fusion = QStyleFactory::create(u"Fusion"_s);
        const QPalette palette = theme == Theme::Dark ? darkPalette() : fusion->standardPalette();
        QApplication::setStyle(fusion);
        QApplication::setPalette(palette);
    }
    // Qt passes a new palette on to the widgets only while its event loop runs
    // (QApplicationPrivate::handlePaletteChanged): before exec() (a window made and themed before
    // the loop, as the screenshots do) they are told here. Told twice, a widget resolves it once.
    for (QWidget *widget : QApplication::allWidgets()) {
        QEvent changed(QEvent::ApplicationPaletteChange);
        QCoreApplication::sendEvent(widget, &changed);
    }
}

Theme current()
{
    return g_current;
}

Theme load(const QSettings &settings)
{
    const QString name = settings.value(kThemeKey).toString();
    return name == u"dark"_s ? Theme::Dark : name == u"light"_s ? Theme::Light : Theme::System;
}

void save(QSettings &settings, Theme theme)
{
    settings.setValue(kThemeKey, theme == Theme::Dark ? u"dark"_s : theme == Theme::Light ? u"light"_s : u"system"_s);
}

void styleChart(QChart *chart, const QPalette &palette)
{
    const QColor text = palette.color(QPalette::Text), grid = palette.color(QPalette::Midlight);
    chart->setBackgroundBrush(palette.base());
    chart->setBackgroundPen(Qt::NoPen);
    chart->setTitleBrush(text);
    chart->legend()->setLabelColor(text);
    for (QAbstractAxis *axis : chart->axes()) {
        axis->setLabelsColor(text);
        axis->setTitleBrush(text);
        axis->setLinePenColor(palette.color(QPalette::Mid));
        axis->setGridLineColor(grid);
        axis->setMinorGridLineColor(grid);
    }
}

} // namespace apptheme
