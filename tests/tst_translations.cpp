// Translations (issue 26). A marking translator stands in for a language: it translates every
// string that goes through tr() to «string» (a format's text between its %1, %2 each marked on its
// own, so an argument left English shows outside the marks), so a visible text with English outside
// the marks escaped tr(). The dashboard's frame is walked: toolbar, View menu, tabs, chart titles, tiles,
// status bar; then every tab's panel (Requests with rows, In flight, Faults, Fleet) with its table
// headers and cells, the Settings and replay dialogs, the getting-started guide, the fault banner
// and the demo's status line; and what the layers below say in the window (core/message.h): the
// settings' checks, starting at login, a bad fault rule, a replay's failures and its difference
// line, the breaker's reasons, the durations' units, an attached window's word on its remote, the
// call log turning off and live settings refused. Each text the walks ask for must be in the shipped
// zh_CN translation too (a tr() lupdate never read stays English). The zh_CN translation carried in
// the binary loads, with Qt's own for its dialogs, and leaves the HTTP API and the log English.

#include "accounting/callending.h"
#include "accounting/calllog.h"
#include "attach/remotecontrol.h"
#include "attach/remotefeed.h"
#include "appsettings.h"
#include "attachstatus.h"
#include "apptranslation.h"
#include "breakertimeline.h"
#include "cannedserver.h"
#include "chartlegend.h"
#include "dashboardfixture.h"
#include "dashboardmodel.h"
#include "dashboardstyle.h"
#include "dashboardwindow.h"
#include "democontroller.h"
#include "demoscenarios.h"
#include "faultbanner.h"
#include "faultcontrol.h"
#include "faults/faultrule.h"
#include "faultspanel.h"
#include "fakeclock.h"
#include "figurespanel.h"
#include "fleetpanel.h"
#include "gettingstarted.h"
#include "inflightpanel.h"
#include "livesettings.h"
#include "loginautostart.h"
#include "proxyharness.h"
#include "replaydialog.h"
#include "requestpanel.h"
#include "settingsdialog.h"
#include "timeaxis.h"
#include "latencystaircase.h"
#include "outcomechart.h"
#include "traycontroller.h"

#include <QAbstractButton>
#include <QAbstractItemView>
#include <QAbstractSpinBox>
#include <QDoubleSpinBox>
#include <QGroupBox>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMutex>
#include <QTemporaryFile>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QSpinBox>
#include <QTableWidget>
#include <QApplication>
#include <QComboBox>
#include <QLabel>
#include <QLocale>
#include <QMenu>
#include <QRegularExpression>
#include <QStatusBar>
#include <QTabBar>
#include <QTabWidget>
#include <QTextDocument>
#include <QtMath>
#include <QTest>
#include <QToolBar>
#include <QTranslator>

using namespace Qt::StringLiterals;
using namespace dashboardtest;

namespace {

// Installed for as long as it lives: a failed check does not leave it on for the next test. It
// also notes each of our texts it is asked for that the shipped zh_CN translation lacks: a text
// through tr() that lupdate never read (a source missing from ui/CMakeLists.txt, a call lupdate
// does not see as one) or that nobody translated stays English in the window all the same.
class MarkingTranslator final : public QTranslator
{
public:
    MarkingTranslator()
    {
        QVERIFY(m_zhCN.load(u":/translations/breakwater_zh_CN.qm"_s));
        QCoreApplication::installTranslator(this);
    }
    ~MarkingTranslator() override { QCoreApplication::removeTranslator(this); }
    bool isEmpty() const override { return false; }
    QString translate(const char *context, const char *sourceText, const char *disambiguation, int n) const override
    {
        static const QRegularExpression placeholder(u"%L?\\d+"_s);
        static const QRegularExpression qtOwn(u"^Q[A-Z]"_s);   // Qt's own contexts: qtbase_zh_CN has them
        const QString where = QString::fromLatin1(context);
        if (!where.contains(qtOwn) && m_zhCN.translate(context, sourceText, disambiguation, n).isEmpty()) {
            const QMutexLocker locker(&m_mutex);
            m_untranslated.insert(where + u": "_s + QString::fromUtf8(sourceText));
        }
        const QString source = QString::fromUtf8(sourceText);
        QString marked;
        qsizetype at = 0;
        const auto text = [&](qsizetype end) {
            if (end > at)
                marked += u"«"_s + source.mid(at, end - at) + u"»"_s;
        };
        for (auto it = placeholder.globalMatch(source); it.hasNext();) {
            const QRegularExpressionMatch match = it.next();
            text(match.capturedStart());
            marked += match.captured();
            at = match.capturedEnd();
        }
        text(source.size());
        return marked;
    }
    // What was asked that the zh_CN translation does not have, one per line.
    QString untranslated() const
    {
        const QMutexLocker locker(&m_mutex);
        QStringList all(m_untranslated.begin(), m_untranslated.end());
        all.sort();
        return all.join(u'\n');
    }

private:
    QTranslator m_zhCN;
    mutable QMutex m_mutex;   // the proxy's thread may ask too
    mutable QSet<QString> m_untranslated;
};

// A walk's last check: each of our texts it asked for is in the shipped zh_CN translation.
#define VERIFY_IN_ZH_CN(marking) \
    QVERIFY2((marking).untranslated().isEmpty(), qPrintable(u"not in zh_CN:\n"_s + (marking).untranslated()))

// What is left of `text` outside the marks that reads as English: a word of three letters or more
// that is no data (the product's name, an upstream's, a URL, a host, a model).
QStringList englishOutsideMarks(const QString &text, const QStringList &values = {})
{
    static const QRegularExpression marked(u"«[^«»]*»"_s);   // the innermost: a format's arguments are marked too
    // ... and the command line's options and environment variables (--timeout, OPENAI_API_KEY).
    static const QRegularExpression data(u"https?://\\S+|--[\\w-]+|\\b[A-Z][A-Z0-9]*(_[A-Z0-9]+)+\\b|\\b(Breakwater|openai|anthropic|gemini|gpt-[\\w.-]+|claude-[\\w.-]+|CSV|PNG)\\b"_s);
    static const QRegularExpression word(u"[A-Za-z]{3,}"_s);
    QString rest = text;
    for (qsizetype before = -1; before != rest.size();) {
        before = rest.size();
        rest.replace(marked, u" "_s);   // a space: what is left either side stays two words
    }
    for (const QString &value : values) {   // before the URLs: a value may hold one
        if (!value.isEmpty())
            rest.remove(value);
    }
    rest.remove(data);
    QStringList words;
    for (auto it = word.globalMatch(rest); it.hasNext();)
        words << it.next().captured();
    return words;
}

// The words of the wire a table or a call's details show as they are, as the API, the call log
// and the CSV spell them: outcomes (x-breakwater-dedup), endings, breaker states; and the paths.
const QStringList &wireWords()
{
    static const QStringList words = [] {
        QStringList all;
        for (const Outcome outcome : {Outcome::Miss, Outcome::Joined, Outcome::Hit, Outcome::Bypass, Outcome::BreakerRefused,
                                      Outcome::SpendRefused, Outcome::Error, Outcome::FellBack})
            all << QString::fromLatin1(outcomeName(outcome));
        for (int ending = 0; ending < kEndingCount; ++ending)
            all << QString::fromLatin1(endingName(Ending(ending)));
        all << u"half-open"_s << u"closed"_s << u"open"_s;
        std::sort(all.begin(), all.end(), [](const QString &a, const QString &b) { return a.size() > b.size(); });
        return all;
    }();
    return words;
}

// Every text a widget tree shows a user: labels, buttons, choices, placeholders, group titles,
// spin boxes' affixes, tool tips, and each item view's column headers and cells.
class TextWalk
{
public:
    void add(const QString &where, const QString &text, const QStringList &values = {})
    {
        if (text.trimmed().isEmpty())
            return;
        ++m_count;
        if (const QStringList words = englishOutsideMarks(text, values); !words.isEmpty())
            m_escaped << where + u": "_s + text + u"   <- "_s + words.join(u' ');
    }

    void walk(const QString &where, QWidget *root, const QStringList &values = {})
    {
        QList<QWidget *> widgets = root->findChildren<QWidget *>();
        widgets.prepend(root);
        for (QWidget *widget : std::as_const(widgets)) {
            if (insideFaultKind(widget))
                continue;   // the fault rules' own syntax: 503, hang, slow-stream
            const QString at = where + u' ' + QString::fromLatin1(widget->metaObject()->className());
            add(at + u" tip"_s, widget->toolTip(), values);
            if (widget->isWindow())
                add(at + u" title"_s, widget->windowTitle(), values);
            if (auto *label = qobject_cast<QLabel *>(widget))
                add(at, label->text(), values);
            if (auto *button = qobject_cast<QAbstractButton *>(widget))
                add(at, button->text(), values);
            if (auto *group = qobject_cast<QGroupBox *>(widget))
                add(at, group->title(), values);
            if (auto *edit = qobject_cast<QLineEdit *>(widget))
                add(at + u" placeholder"_s, edit->placeholderText(), values);
            if (auto *edit = qobject_cast<QPlainTextEdit *>(widget))
                add(at + u" placeholder"_s, edit->placeholderText(), values);
            if (auto *spin = qobject_cast<QSpinBox *>(widget))
                add(at, spin->prefix() + spin->suffix() + u' ' + spin->specialValueText(), values);
            if (auto *spin = qobject_cast<QDoubleSpinBox *>(widget))
                add(at, spin->prefix() + spin->suffix() + u' ' + spin->specialValueText(), values);
            if (auto *choice = qobject_cast<QComboBox *>(widget); choice && choice->objectName() != u"faultKind"_s) {
                for (int i = 0; i < choice->count(); ++i)
                    add(at + u" choice"_s, choice->itemText(i), values);
            }
            if (auto *view = qobject_cast<QAbstractItemView *>(widget); view && view->model())
                walkModel(at, view->model(), values);
        }
    }

    void walkModel(const QString &where, const QAbstractItemModel *model, const QStringList &values = {})
    {
        for (int column = 0; column < model->columnCount(); ++column)
            add(where + u" header"_s, model->headerData(column, Qt::Horizontal).toString(), values);
        // The cells show the wire's words and the calls' own data as they are.
        const QStringList data = values + wireWords();
        for (int row = 0; row < model->rowCount(); ++row) {
            for (int column = 0; column < model->columnCount(); ++column) {
                const QModelIndex index = model->index(row, column);
                add(where + u" cell"_s, index.data().toString(), data);
                add(where + u" cell tip"_s, index.data(Qt::ToolTipRole).toString(), data);
            }
        }
    }

    static bool insideFaultKind(const QWidget *widget)
    {
        for (; widget; widget = widget->parentWidget()) {
            if (widget->objectName() == u"faultKind"_s)
                return true;
        }
        return false;
    }

    int count() const { return m_count; }
    // Listed on the log one by one (QtTest cuts a long failure message), counted in the failure.
    QString escaped() const
    {
        for (const QString &line : m_escaped)
            qWarning().noquote() << line;
        return u"%1 texts outside tr(), listed above"_s.arg(m_escaped.size());
    }
    bool clean() const { return m_escaped.isEmpty(); }

private:
    int m_count = 0;
    QStringList m_escaped;
};

// A call's own values, which its details and its replay show as they are.
QStringList valuesOf(const CallRecord &r)
{
    return {QString::fromLatin1(r.requestId), QString::fromLatin1(r.route), r.model, QString::fromLatin1(r.upstream),
            QString::fromLatin1(r.keyFingerprint), QString::fromLatin1(r.credentialFingerprint),
            QString::fromLatin1(r.errorKind), r.injected, QString::fromLatin1(r.method), u"POST"_s};
}

} // namespace

class TestTranslations final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void dashboardTexts_allThroughTr();
    void trayTexts_allThroughTr();
    void everyTabsPanel_allThroughTr();
    void dialogsGuideAndBanner_allThroughTr();
    void demoStatusLine_allThroughTr();
    void lowerLayersMessages_allThroughTr();
    void durations_unitsThroughTr();
    void attachedWindowMessages_allThroughTr();
    void callLogOffAndLiveSettings_allThroughTr();
    void zhCN_loadsOursAndQts();
    void zhCN_apiErrorBodyAndLog_stayEnglish();
};

void TestTranslations::dashboardTexts_allThroughTr()
{
    MarkingTranslator marking;
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
    QVERIFY2(escaped.isEmpty(), qPrintable(u"\n"_s + escaped.join(u'\n')));
    VERIFY_IN_ZH_CN(marking);
}

void TestTranslations::trayTexts_allThroughTr()
{
    // The tray's menu, its tool tip and its accessible name: what a user sees all day.
    MarkingTranslator marking;
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
    QVERIFY(actions >= 5);
    QVERIFY(!tray.menu()->accessibleDescription().isEmpty());
    QVERIFY2(escaped.isEmpty(), qPrintable(u"\n"_s + escaped.join(u'\n')));
    VERIFY_IN_ZH_CN(marking);
}

void TestTranslations::everyTabsPanel_allThroughTr()
{
    MarkingTranslator marking;
    DashboardModel model;
    DashboardWindow window(&model);
    window.setClock([] { return T + 30'000; });
    feed(model, recording());
    CallRecord retried = record("retry-1", Outcome::Miss, T + 20'000, T + 20'500, 503);
    retried.retryAttempt = 1;
    retried.errorKind = "upstream_error";
    retried.fallbackTo = "anthropic";
    model.addRecord(retried);
    ProxySnapshot s = snapshot(T + 30'000, BreakerState::HalfOpen, 2, 1);
    s.sharedState = "shared";
    s.fleet = fleet(3);
    s.admissionPaused = true;
    FaultRule rule = FaultRule::parse(u"503:for=60s:p=50"_s).value();
    rule.id = 1;
    rule.expiresAtMs = s.steadyMs + 60'000;
    s.faults = {rule};
    model.setSnapshot(s);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    for (int tab = 0; tab < window.tabs()->count(); ++tab) {
        window.tabs()->setCurrentIndex(tab);
        window.redraw();
    }

    TextWalk texts;
    RequestPanel *requests = window.requests();
    QVERIFY(requests->rowCount() > 10);
    requests->setTimeRange(T + 1'000, T + 20'000);
    requests->selectRow(0);
    requests->copyAsCurl();
    // The calls' own values (ids, routes, models), and the wire's words the outcome filter offers
    // as the table's outcome column shows them.
    QStringList recorded = wireWords();
    for (const CallRecord &r : model.records())
        recorded += valuesOf(r);
    texts.walk(u"Requests"_s, requests, recorded);
    for (int row = 0; row < requests->totalRowCount(); row += 3) {
        requests->selectRow(row);
        for (const QString &line : requests->detailsText().split(u'\n'))
            texts.add(u"Requests details"_s, line, recorded);
    }
    texts.add(u"Requests details"_s, RequestPanel::describe(retried), valuesOf(retried) + wireWords());
    texts.walk(u"In flight"_s, window.inFlight(), {u"flight-0"_s, u"flight-1"_s, u"flight-2"_s});
    QStringList rules{rule.label()};   // the rules' text form is their syntax: 503:for=60s
    for (const faultcontrol::Preset &preset : faultcontrol::presets())
        rules << preset.rule;
    texts.walk(u"Faults"_s, window.faultsPanel(), rules);
    texts.walk(u"Fleet"_s, window.fleetPanel(), {u"dev-laptop-1"_s, u"dev-laptop-2"_s, u"dev-laptop-3"_s});
    texts.add(u"Fleet tab"_s, FleetPanel::tabTitle(s.fleet));
    texts.add(u"Fleet summary"_s, window.fleetPanel()->summaryText());
    QVERIFY(texts.count() > 150);
    QVERIFY2(texts.clean(), qPrintable(texts.escaped()));
    VERIFY_IN_ZH_CN(marking);
}

void TestTranslations::dialogsGuideAndBanner_allThroughTr()
{
    MarkingTranslator marking;
    TextWalk texts;
    {
        SettingsDialog dialog(AppSettings::defaults(), {u"--timeout"_s}, true);
        texts.walk(u"Settings"_s, &dialog);
        AppSettings changed = AppSettings::defaults();
        changed.listen = u"127.0.0.1:9090"_s;
        changed.timeoutSeconds = 5;
        changed.concurrency = 3;
        texts.add(u"Settings message"_s, SettingsDialog::restartMessage(changed, AppSettings::defaults(), {u"--concurrency"_s},
                                                                         {u"--timeout"_s}));
        dialog.setRemote(u"https://gateway.example:8443"_s);
        texts.walk(u"Settings remote"_s, &dialog);
    }
    {
        CallRecord r = record("replay-1", Outcome::Miss, T, T + 300, 503);
        r.errorBody = R"({"error":{"message":"overloaded"}})";
        ReplayDialog dialog(r);
        texts.walk(u"Replay"_s, &dialog, valuesOf(r));
    }
    {
        GettingStarted guide;
        for (const bool demo : {false, true}) {
            guide.setBaseUrls(u"http://127.0.0.1:8080/v1"_s, u"http://127.0.0.1:8080"_s, demo);
            const QStringList lines = guide.text().split(u'\n');
            texts.add(u"Getting started intro"_s, lines.first());
            texts.add(u"Getting started note"_s, lines.last(), {u"OPENAI_API_KEY"_s, u"ANTHROPIC_API_KEY"_s});
            texts.walk(u"Getting started"_s, &guide, lines.mid(1, 2) + QStringList{u"OPENAI_API_KEY"_s, u"ANTHROPIC_API_KEY"_s});
        }
    }
    {
        FaultBanner banner;
        ProxySnapshot s = snapshot(T, BreakerState::Closed, 0, 0);
        s.admissionPaused = true;
        FaultRule rule = FaultRule::parse(u"hang:for=30s"_s).value();
        rule.id = 2;
        rule.expiresAtMs = s.steadyMs + 3'000;   // its countdown: "(3 s left)"
        s.faults = {rule};
        banner.resize(4000, banner.sizeHint().height());   // its label not elided
        banner.refresh(s);
        QVERIFY(!banner.text().isEmpty());
        texts.add(u"Fault banner"_s, banner.text(), {rule.label()});
        texts.walk(u"Fault banner"_s, &banner, {rule.label()});
    }
    QVERIFY(texts.count() > 60);
    QVERIFY2(texts.clean(), qPrintable(texts.escaped()));
    VERIFY_IN_ZH_CN(marking);
}

void TestTranslations::demoStatusLine_allThroughTr()
{
    // The demo's menu and its status line: what a scenario says as it runs and when it ends.
    MarkingTranslator marking;
    TextWalk texts;
    ProxyHarness harness;
    DashboardModel model;
    DemoController demo(&model, harness.port(), harness.mock(), harness.config());
    QMenu menu;
    demo.populate(&menu);
    for (QAction *action : menu.actions()) {
        texts.add(u"Demo menu"_s, action->text());
        texts.add(u"Demo menu tip"_s, action->toolTip());
    }
    DemoScenarios::Result result;
    result.scenario = DemoScenarios::Scenario::Outage;
    result.sent = 40;
    result.answered = 39;
    result.failed = 1;
    result.dedup = {{"miss", 30}, {"refused", 9}};   // x-breakwater-dedup's words, said in Chinese too
    result.statuses = {{200, 30}, {503, 9}};
    result.fellBack = 2;
    result.stopped = true;
    texts.add(u"Demo summary"_s, result.summary(true));
    QSignalSpy status(&demo, &DemoController::statusChanged);
    QVERIFY(demo.startBurst(harness.config().concurrency));
    QVERIFY(status.wait());
    texts.add(u"Demo progress"_s, status.first().first().toString());
    QVERIFY(texts.count() >= 10);
    QVERIFY2(texts.clean(), qPrintable(texts.escaped()));
    VERIFY_IN_ZH_CN(marking);
}

void TestTranslations::lowerLayersMessages_allThroughTr()
{
    MarkingTranslator marking;
    TextWalk texts;
    {
        // Settings: every value wrong that the fields let through, the listen address both ways.
        AppSettings bad = AppSettings::defaults();
        bad.openaiUpstream = u"ftp://example.com"_s;
        bad.anthropicUpstream = u"nowhere"_s;
        bad.timeoutSeconds = 0;
        bad.concurrency = 0;
        bad.dedupWindowSeconds = -1;
        bad.cacheSizeMb = -1;
        bad.breakerFailures = 0;
        bad.breakerCooldownSeconds = 0;
        bad.maxSpendUsd = -1;
        for (const QString &listen : {u"localhost"_s, u"0.0.0.0:8080"_s}) {
            bad.listen = listen;
            SettingsDialog dialog(AppSettings::defaults(), {}, false);
            dialog.setValues(bad);
            dialog.accept();
            QVERIFY(dialog.problems().size() >= 3);
            texts.walk(u"Settings problems"_s, &dialog, {listen, bad.openaiUpstream, bad.anthropicUpstream});
            for (const Message &problem : bad.validate())   // those the fields would not take, too
                texts.add(u"Settings check"_s, problem.translated(), {listen, bad.openaiUpstream, bad.anthropicUpstream});
        }
    }
    {
        // Starting at login, where the autostart folder cannot be made (a file stands in its way).
        QTemporaryFile inTheWay;
        QVERIFY(inTheWay.open());
        const QByteArray configHome = qgetenv("XDG_CONFIG_HOME");
        qputenv("XDG_CONFIG_HOME", QFile::encodeName(inTheWay.fileName()));
        const QString entry = LoginAutostart::entryPath();
        const Result changed = LoginAutostart::setEnabled(true, u"/usr/bin/breakwater"_s);
        qputenv("XDG_CONFIG_HOME", configHome);
        QVERIFY(!changed.ok());
        texts.add(u"Start at login"_s, SettingsDialog::startAtLoginMessage(true, changed), {entry});
    }
    {
        // The Faults panel's form, with the parser's reasons.
        FaultsPanel panel;
        for (const QString &rule : {u"cut"_s, u"hang=2"_s, u"503:p=150"_s, u"503:count=0"_s, u"503:p=5:p=6"_s, u"503,hang"_s,
                                    u"429:upstream=azure"_s, u"delay=1s:retry-after=2"_s}) {
            panel.ruleField()->setText(rule);
            QVERIFY2(!panel.addRule(), qPrintable(rule));
            texts.add(u"Faults form"_s, panel.errorText(), {rule, u"cut"_s, u"hang"_s, u"azure"_s, u"retry-after"_s});
        }
    }
    {
        // A replay refused, one without an answer, and one answered: its difference line.
        CannedServer upstream(CannedServer::answer(503, {}, R"({"n": 2})"));
        QVERIFY(upstream.listenOn());
        CannedServer closed("");
        QVERIFY(closed.listenOn());
        const QString closedUrl = u"http://127.0.0.1:%1/v1"_s.arg(closed.serverPort());
        closed.close();
        CallRecord r = record("replay-2", Outcome::Miss, T, T + 300, 200);
        r.requestBody = R"({"model":"gpt-4o-mini","messages":[]})";
        r.responseBody = R"({"n": 1})";
        ReplayDialog dialog(r);
        const QStringList values = valuesOf(r) + QStringList{u"ftp://127.0.0.1/v1"_s};
        dialog.setThroughBreakwater(false);
        dialog.setOtherUrl(u"ftp://127.0.0.1/v1"_s);
        dialog.send();
        texts.add(u"Replay refused"_s, dialog.statusText(), values);
        QSignalSpy answered(&dialog, &ReplayDialog::answered);
        dialog.setOtherUrl(closedUrl);
        dialog.send();
        QVERIFY(answered.wait());
        texts.add(u"Replay without an answer"_s, dialog.statusText(), values);
        dialog.setOtherUrl(u"http://127.0.0.1:%1/v1"_s.arg(upstream.serverPort()));
        dialog.send();
        QVERIFY(answered.wait());
        QVERIFY(dialog.differenceText().contains(u"503"_s));
        texts.add(u"Replay difference"_s, dialog.differenceText(), values);
    }
    {
        // The breaker's reasons, as the proxy gives them, in the timeline's tips: failures open it,
        // the cool-down half-opens it, a failed trial re-opens it, a good one closes it; the buttons.
        FakeClock clock;
        ProxyHarness harness([](ProxyConfig &c) { c.breakerFailures = 2; }, &clock);
        harness.mock()->setMode(MockProvider::Mode::Error503);
        for (int i = 0; i < 2; ++i)
            QCOMPARE(harness.post("/v1/chat/completions", chatBody(u"fails %1"_s.arg(i))).status, 503);
        clock.advance(61'000);
        (void)harness.post("/v1/chat/completions", chatBody(u"a failing trial"_s));
        clock.advance(121'000);
        harness.mock()->setMode(MockProvider::Mode::Ok);
        QCOMPARE(harness.post("/v1/chat/completions", chatBody(u"a good trial"_s)).status, 200);
        for (const BreakerAction action : {BreakerAction::Open, BreakerAction::Close})
            QVERIFY(harness.onProxyThread<bool>([action](ProxyServer *p) { return p->actOnBreaker("openai", action).value_or(false); }));
        QTRY_VERIFY(harness.transitions.size() >= 7);

        DashboardModel model;
        for (const BreakerTransition &transition : std::as_const(harness.transitions))
            model.addTransition(transition);
        BreakerTimeline timeline;
        timeline.resize(4000, timeline.sizeHint().height());   // every tick on a pixel of its own
        timeline.refresh(model, harness.transitions.first().atMs - 1000, harness.transitions.last().atMs + 1000);
        QStringList tips;
        for (int y = 0; y < timeline.height(); y += 2) {
            for (int x = 0; x < timeline.width(); ++x) {
                const QString tip = timeline.toolTipAt(QPoint(x, y));
                if (tip.contains(u'→') && !tips.contains(tip))
                    tips << tip;
            }
        }
        QString shown = tips.join(u'\n');
        for (const BreakerTransition &transition : std::as_const(harness.transitions))
            QVERIFY2(shown.contains(transition.reason.translated()), qPrintable(shown));
        for (const QString &tip : std::as_const(tips))
            texts.add(u"Breaker timeline tip"_s, tip, {u"openai"_s, u"HTTP 503"_s});
    }
    QVERIFY(texts.count() >= 20);
    QVERIFY2(texts.clean(), qPrintable(texts.escaped()));
    VERIFY_IN_ZH_CN(marking);
}

void TestTranslations::durations_unitsThroughTr()
{
    // "≤ 1 min 33 s" sits inside the upstream strip's translated sentence, "1.52 s" in the
    // staircase's and the tables', "10 s" under the staircase: their units are the user's language too.
    MarkingTranslator marking;
    static const QRegularExpression marked(u"«[^«»]*»"_s);
    static const QRegularExpression latin(u"[A-Za-z]"_s);
    QStringList escaped;
    for (const QString &shown : {dashboardstyle::formatDuration(420), dashboardstyle::formatDuration(1'520),
                                 dashboardstyle::formatDuration(93'000), dashboardstyle::formatCountdown(52'910),
                                 dashboardstyle::formatCountdown(93'000), timeaxis::tickLabel(500, 500, false),
                                 timeaxis::tickLabel(10'000, 10'000, false)}) {
        if (QString(shown).remove(marked).contains(latin))
            escaped << shown;
    }
    QVERIFY2(escaped.isEmpty(), qPrintable(escaped.join(u'\n')));
    VERIFY_IN_ZH_CN(marking);
}

void TestTranslations::attachedWindowMessages_allThroughTr()
{
    // What an attached window says of its remote when the remote refuses this window's token: the
    // stream gone (the status line and the tray's tip) and a control request refused.
    MarkingTranslator marking;
    TextWalk texts;
    ProxyHarness harness;
    const QUrl remote(u"http://127.0.0.1:%1"_s.arg(harness.port()));
    const QByteArray stranger = "wrong-token-0123456789abcdefghij";
    RemoteFeed feed(remote, stranger);
    AttachStatus status(&feed);
    QSignalSpy disconnected(&feed, &RemoteFeed::disconnected);
    feed.start();
    QVERIFY(disconnected.wait());
    const QString why = disconnected.first().first().value<Message>().english();
    QVERIFY2(why.startsWith(u"the remote refused the control token: "_s), qPrintable(why));
    const QString remoteSaid = why.section(u": "_s, 1);   // the remote API's own words, English
    texts.add(u"Attach status"_s, status.text(), {feed.eventsUrl().toString(QUrl::RemovePath | QUrl::RemoveUserInfo), remoteSaid});

    RemoteControl control(remote, stranger, {});
    QSignalSpy failed(&control, &RemoteControl::failed);
    control.setAdmissionPaused(true);
    QVERIFY(failed.wait());
    const Message refused = failed.first().first().value<Message>();
    QVERIFY2(refused.english().contains(u" failed: "_s), qPrintable(refused.english()));
    texts.add(u"Remote control refused"_s, refused.translated(),
              {refused.english().section(u" failed: "_s, 0, 0), refused.english().section(u" failed: "_s, 1)});
    QCOMPARE(texts.count(), 2);
    QVERIFY2(texts.clean(), qPrintable(texts.escaped()));
    VERIFY_IN_ZH_CN(marking);
}

void TestTranslations::callLogOffAndLiveSettings_allThroughTr()
{
    // The call log's write failing turns logging off, said in the window's status line and a
    // notice; live settings refused. Both in the user's language there, English in the logs and
    // the API.
    MarkingTranslator marking;
    TextWalk texts;
    QTemporaryDir dir;
    const QString path = dir.filePath(u"calls.sqlite"_s);
    CallLog log;
    QVERIFY(log.open(path).ok());
    {
        // Another connection makes every insert fail from now on, as a full disk would.
        QSqlDatabase db = QSqlDatabase::addDatabase(u"QSQLITE"_s, u"refuser"_s);
        db.setDatabaseName(path);
        QVERIFY(db.open());
        QSqlQuery query(db);
        QVERIFY(query.exec(u"CREATE TRIGGER refuse BEFORE INSERT ON calls BEGIN SELECT RAISE(ABORT, 'disk full'); END"_s));
    }
    QSqlDatabase::removeDatabase(u"refuser"_s);
    QSignalSpy failed(&log, &CallLog::failed);
    log.append(record("logged-1", Outcome::Miss, T, T + 300));
    log.flush();
    QTRY_COMPARE(failed.size(), 1);
    const Message off = failed.first().first().value<Message>();
    QVERIFY2(off.english().startsWith(u"call log %1: cannot write a row: "_s.arg(path)), qPrintable(off.english()));
    // Ours English; what follows SQLite's own words is Qt's SQL driver's, in Qt's translation.
    QVERIFY2(!off.english().section(u"disk full"_s, 0, 0).contains(u'«'), qPrintable(off.english()));
    texts.add(u"Call log off"_s, off.translated(), {path, u"disk full"_s});

    const Expected<LiveSettings> unknown = LiveSettings::withChanges({}, {{u"bogus"_s, 1}});
    QVERIFY(!unknown.ok());
    QVERIFY2(unknown.error().startsWith(u"unknown setting 'bogus'"_s), qPrintable(unknown.error()));
    texts.add(u"Live settings unknown"_s, unknown.message().translated(),
              {u"bogus"_s, LiveSettings::options().join(u", "_s).remove(u"--"_s)});
    const Expected<LiveSettings> notANumber = LiveSettings::withChanges({}, {{u"timeout"_s, true}});
    QVERIFY(!notANumber.ok());
    QVERIFY2(notANumber.error().startsWith(u"setting 'timeout' takes"_s), qPrintable(notANumber.error()));
    texts.add(u"Live settings not a number"_s, notANumber.message().translated(), {u"timeout"_s});
    QCOMPARE(texts.count(), 3);
    QVERIFY2(texts.clean(), qPrintable(texts.escaped()));
    VERIFY_IN_ZH_CN(marking);
}

void TestTranslations::zhCN_loadsOursAndQts()
{
    QVERIFY(!apptranslation::install(qApp, QLocale(u"fr_FR"_s)));   // none: stays English
    QCOMPARE(QCoreApplication::translate("DashboardWindow", "Pause"), u"Pause"_s);

    QVERIFY(apptranslation::install(qApp, QLocale(u"zh_CN"_s)));
    QCOMPARE(QCoreApplication::translate("DashboardWindow", "Pause"), u"暂停"_s);
    QCOMPARE(QCoreApplication::translate("DashboardWindow", "Breaker timeline"), u"熔断器时间线"_s);
    QCOMPARE(QCoreApplication::translate("FiguresPanel", "joined"), u"合并请求"_s);
    QCOMPARE(dashboardstyle::formatCountdown(93'000), u"1 分 33 秒"_s);
    // Qt's own, for its dialogs' buttons (qt6-translations-l10n).
    QCOMPARE(QCoreApplication::translate("QPlatformTheme", "Cancel"), u"取消"_s);

    DashboardModel model;
    DashboardWindow window(&model);
    QCOMPARE(window.tabs()->tabText(0), u"实时"_s);
    // The outcome legend as tall as its Chinese lines: a CJK font's lines are taller than the
    // Latin font's the height was once taken from, and the second line was cut.
    window.setClock([] { return T + 30'000; });
    feed(model, recording());
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.redraw();
    ChartLegend *legend = window.outcomeChart()->legend();
    QVERIFY(legend->lineCount() >= 2);
    QTextDocument shown;
    shown.setDefaultFont(legend->font());
    shown.setDocumentMargin(0);
    shown.setHtml(legend->text());
    QVERIFY2(legend->contentsRect().height() >= qCeil(shown.size().height()),
             qPrintable(u"%1 < %2"_s.arg(legend->contentsRect().height()).arg(shown.size().height())));
    for (QTranslator *translator : qApp->findChildren<QTranslator *>()) {
        QCoreApplication::removeTranslator(translator);
        delete translator;
    }
}

// The desktop app runs the proxy in-process, with the zh_CN translator installed: what the API
// answers and what the log says stay English all the same, while the window says the same
// sentence in Chinese.
void TestTranslations::zhCN_apiErrorBodyAndLog_stayEnglish()
{
    static QMutex logged;
    static QStringList lines;
    static QtMessageHandler previous = nullptr;
    previous = qInstallMessageHandler([](QtMsgType type, const QMessageLogContext &context, const QString &text) {
        if (context.category && (QByteArrayView(context.category) == "breakwater.breaker"
                                 || QByteArrayView(context.category) == "breakwater.attach")) {
            const QMutexLocker locker(&logged);
            lines << text;
        }
        previous(type, context, text);
    });
    const auto cleanUp = qScopeGuard([] {
        qInstallMessageHandler(previous);
        for (QTranslator *translator : qApp->findChildren<QTranslator *>()) {
            QCoreApplication::removeTranslator(translator);
            delete translator;
        }
    });
    QVERIFY(apptranslation::install(qApp, QLocale(u"zh_CN"_s)));
    static const QRegularExpression chinese(u"[\\x{4e00}-\\x{9fff}]"_s);
    const QString shown = FaultRule::parse(u"503:p=150"_s).message().translated();
    QVERIFY2(shown.contains(chinese), qPrintable(shown));   // the Faults panel's Chinese

    ProxyHarness harness;
    const LoopbackResponse refused = harness.control("POST", "/breakwater/faults", R"({"rule": "503:p=150"})");
    QCOMPARE(refused.status, 400);
    const QString said = QJsonDocument::fromJson(refused.body).object().value(u"error"_s).toObject().value(u"message"_s).toString();
    QCOMPARE(said, u"fault rule '503:p=150': p is a percentage from 0 to 100, not '150'"_s);

    QCOMPARE(harness.control("POST", "/breakwater/breaker/openai/open").status, 200);
    QTRY_COMPARE(harness.transitions.size(), 1);
    {
        const QMutexLocker locker(&logged);
        QCOMPARE(lines.size(), 1);
        QVERIFY2(lines.first().contains(u"opened by hand"_s), qPrintable(lines.first()));
        QVERIFY2(!lines.first().contains(chinese), qPrintable(lines.first()));
    }

    // An attached window refused by its remote: Chinese on its status line, English in the log.
    RemoteFeed feed(QUrl(u"http://127.0.0.1:%1"_s.arg(harness.port())), "wrong-token-0123456789abcdefghij");
    AttachStatus status(&feed);
    QSignalSpy disconnected(&feed, &RemoteFeed::disconnected);
    feed.start();
    QVERIFY(disconnected.wait());
    QVERIFY2(status.text().contains(chinese), qPrintable(status.text()));
    const QMutexLocker locker(&logged);
    QCOMPARE(lines.size(), 2);
    QVERIFY2(lines.last().contains(u"stream gone: the remote refused the control token"_s), qPrintable(lines.last()));
    QVERIFY2(!lines.last().contains(chinese), qPrintable(lines.last()));
}

DASHBOARD_TEST_MAIN(TestTranslations)

#include "tst_translations.moc"
