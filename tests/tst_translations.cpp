// Translations (issue 26). A marking translator stands in for a language: it translates every
// string that goes through tr() to «string», so a visible text with English outside the marks
// escaped tr(). The dashboard's frame is walked: toolbar, View menu, tabs, chart titles, tiles,
// status bar. And the zh_CN translation carried in the binary loads, with Qt's own for its dialogs.

#include "apptranslation.h"
#include "dashboardfixture.h"
#include "dashboardmodel.h"
#include "dashboardwindow.h"
#include "figurespanel.h"
#include "latencystaircase.h"
#include "outcomechart.h"
#include "traycontroller.h"

#include <QAbstractButton>
#include <QApplication>
#include <QComboBox>
#include <QLabel>
#include <QLocale>
#include <QMenu>
#include <QRegularExpression>
#include <QStatusBar>
#include <QTabBar>
#include <QTabWidget>
#include <QTest>
#include <QToolBar>
#include <QTranslator>

using namespace Qt::StringLiterals;
using namespace dashboardtest;

namespace {

class MarkingTranslator final : public QTranslator
{
public:
    bool isEmpty() const override { return false; }
    QString translate(const char *, const char *sourceText, const char *, int) const override
    {
        return u"«"_s + QString::fromUtf8(sourceText) + u"»"_s;
    }
};

// What is left of `text` outside the marks that reads as English: a word of three letters or more
// that is no data (the product's name, an upstream's, a URL, a host, a model).
QStringList englishOutsideMarks(const QString &text)
{
    static const QRegularExpression marked(u"«[^«»]*»"_s);   // the innermost: a format's arguments are marked too
    static const QRegularExpression data(u"https?://\\S+|\\b(Breakwater|openai|anthropic|gemini|gpt-[\\w.-]+|claude-[\\w.-]+|CSV|PNG)\\b"_s);
    static const QRegularExpression word(u"[A-Za-z]{3,}"_s);
    QString rest = text;
    for (qsizetype before = -1; before != rest.size();) {
        before = rest.size();
        rest.remove(marked);
    }
    rest.remove(data);
    QStringList words;
    for (auto it = word.globalMatch(rest); it.hasNext();)
        words << it.next().captured();
    return words;
}

} // namespace

class TestTranslations final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void dashboardTexts_allThroughTr();
    void trayTexts_allThroughTr();
    void zhCN_loadsOursAndQts();
};

void TestTranslations::dashboardTexts_allThroughTr()
{
    MarkingTranslator marking;
    QCoreApplication::installTranslator(&marking);
    DashboardModel model;
    DashboardWindow window(&model);
    window.setClock([] { return T + 30'000; });
    window.setProxyInfo(u"http://127.0.0.1:8080/v1"_s, true);
    feed(model, recording());
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.redraw();

    QStringList texts;
    const auto add = [&](const QString &where, const QString &text) {
        if (!text.trimmed().isEmpty())
            texts << where + u": "_s + text;
    };
    auto *toolBar = window.findChild<QToolBar *>();
    for (QAction *action : toolBar->actions()) {
        add(u"toolbar"_s, action->text());
        add(u"toolbar tip"_s, action->toolTip());
        if (QWidget *widget = toolBar->widgetForAction(action)) {
            if (auto *label = qobject_cast<QLabel *>(widget))
                add(u"toolbar"_s, label->text());
            if (auto *button = qobject_cast<QAbstractButton *>(widget))
                add(u"toolbar"_s, button->text());
            if (auto *choice = qobject_cast<QComboBox *>(widget)) {
                for (int i = 0; i < choice->count(); ++i)
                    add(u"toolbar choice"_s, choice->itemText(i));
            }
        }
    }
    for (QAction *action : window.viewMenu()->actions())
        add(u"View"_s, action->text());
    for (int i = 0; i < window.tabs()->count(); ++i)
        add(u"tab"_s, window.tabs()->tabText(i));
    for (QLabel *title : window.findChildren<QLabel *>(u"title"_s)) {
        add(u"chart title"_s, title->text());
        add(u"chart title tip"_s, title->toolTip());
    }
    for (QComboBox *choice : window.findChildren<QComboBox *>()) {
        if (!choice->isVisible())
            continue;   // the other tabs' panels
        for (int i = 0; i < choice->count(); ++i)
            add(u"choice"_s, choice->itemText(i));
    }
    for (const QString &key : {u"requests"_s, u"upstream"_s, u"joined"_s, u"hits"_s, u"refused"_s, u"spent"_s, u"saved"_s})
        add(u"tile"_s, window.figures()->caption(key) + u" / "_s + window.figures()->toolTip(key));
    add(u"status bar"_s, window.statusInfo()->text());
    for (QWidget *widget : QList<QWidget *>{window.outcomeChart(), window.staircase(), window.tabs()}) {
        add(u"accessible name"_s, widget->accessibleName());
        add(u"accessible description"_s, widget->accessibleDescription());
    }
    QVERIFY(texts.size() > 40);

    QStringList escaped;
    for (const QString &text : std::as_const(texts)) {
        const qsizetype colon = text.indexOf(u": "_s);
        if (const QStringList words = englishOutsideMarks(text.mid(colon + 2)); !words.isEmpty())
            escaped << text + u"   <- "_s + words.join(u' ');
    }
    QCoreApplication::removeTranslator(&marking);
    QVERIFY2(escaped.isEmpty(), qPrintable(u"\n"_s + escaped.join(u'\n')));
}

void TestTranslations::trayTexts_allThroughTr()
{
    // The tray's menu, its tool tip and its accessible name: what a user sees all day.
    MarkingTranslator marking;
    QCoreApplication::installTranslator(&marking);
    DashboardModel model;
    feed(model, recording());
    TrayController::Wiring wiring;
    wiring.model = &model;
    wiring.openaiBaseUrl = u"http://127.0.0.1:8080/v1"_s;
    wiring.anthropicBaseUrl = u"http://127.0.0.1:8080"_s;
    TrayController tray(wiring);
    QStringList escaped;
    const auto check = [&](const QString &where, const QString &text) {
        if (const QStringList words = englishOutsideMarks(text); !words.isEmpty())
            escaped << where + u": "_s + text + u"   <- "_s + words.join(u' ');
    };
    int actions = 0;
    for (QAction *action : tray.menu()->actions()) {
        if (action->isSeparator())
            continue;
        ++actions;
        check(u"tray menu"_s, action->text());
    }
    check(u"tray tool tip"_s, tray.toolTip());
    check(u"tray menu name"_s, tray.menu()->accessibleName() + u' ' + tray.menu()->accessibleDescription());
    QCoreApplication::removeTranslator(&marking);
    QVERIFY(actions >= 5);
    QVERIFY(!tray.menu()->accessibleDescription().isEmpty());
    QVERIFY2(escaped.isEmpty(), qPrintable(u"\n"_s + escaped.join(u'\n')));
}

void TestTranslations::zhCN_loadsOursAndQts()
{
    QVERIFY(!apptranslation::install(qApp, QLocale(u"fr_FR"_s)));   // none: stays English
    QCOMPARE(QCoreApplication::translate("DashboardWindow", "Pause"), u"Pause"_s);

    QVERIFY(apptranslation::install(qApp, QLocale(u"zh_CN"_s)));
    QCOMPARE(QCoreApplication::translate("DashboardWindow", "Pause"), u"暂停"_s);
    QCOMPARE(QCoreApplication::translate("DashboardWindow", "Breaker timeline"), u"熔断器时间线"_s);
    QCOMPARE(QCoreApplication::translate("FiguresPanel", "joined"), u"合并请求"_s);
    // Qt's own, for its dialogs' buttons (qt6-translations-l10n).
    QCOMPARE(QCoreApplication::translate("QPlatformTheme", "Cancel"), u"取消"_s);

    DashboardModel model;
    DashboardWindow window(&model);
    QCOMPARE(window.tabs()->tabText(0), u"实时"_s);
    for (QTranslator *translator : qApp->findChildren<QTranslator *>()) {
        QCoreApplication::removeTranslator(translator);
        delete translator;
    }
}

DASHBOARD_TEST_MAIN(TestTranslations)

#include "tst_translations.moc"
