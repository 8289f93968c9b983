#pragma once

#include <QMetaType>
#include <QPalette>

class QChart;
class QSettings;

// The application's colours, chosen in the dashboard's View menu and kept in the settings
// (view/theme): the desktop's own style and palette (System), or Qt's Fusion style with a light
// or a dark palette of its own. Applied to the whole application live; widgets that paint
// themselves read palette(), and the Qt Charts, which keep colours of their own, are given the
// palette's by styleChart() (series keep their colours: red means a failure in both).
namespace apptheme {

enum class Theme { System, Light, Dark };

void apply(Theme theme);
Theme current();
Theme load(const QSettings &settings);
void save(QSettings &settings, Theme theme);

QPalette darkPalette();
// The window darker than its text: a dark desktop theme counts as much as a forced Dark.
bool isDark(const QPalette &palette);
// The chart's background, titles, axis labels, axis lines, grid and legend in `palette`'s colours.
void styleChart(QChart *chart, const QPalette &palette);

} // namespace apptheme

Q_DECLARE_METATYPE(apptheme::Theme)
