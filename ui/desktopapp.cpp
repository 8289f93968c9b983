#include "desktopapp.h"

#include <memory>

#include <QApplication>
#include <QGuiApplication>
#include <QLocale>
#include <QMessageBox>
#include <QSettings>
#include <QStatusBar>

#include "accounting/calllog.h"
#include "accounting/callrecord.h"
#include "apptheme.h"
#include "apptranslation.h"
#include "appsettings.h"
#include "cleartextwarning.h"
#include "dashboardmodel.h"
#include "dashboardwindow.h"
#include "democontroller.h"
#include "faultcontrol.h"
#include "livecontrol.h"
#include "loginautostart.h"
#include "proxypanel.h"
#include "requestpanel.h"
#include "proxyserver.h"
#include "proxysnapshot.h"
#include "settingsdialog.h"
#include "traycontroller.h"
#include "traywatcher.h"
#include "upstream/circuitbreaker.h"

using namespace Qt::StringLiterals;

namespace {

// The call log's latest rows loaded at start, into every view: as many as the model keeps.
constexpr int kHistoryRows = DashboardModel::kMaxRecords;

QStringList overriddenSettings(const QStringList &given)
{
    const QStringList settingOptions = AppSettings::options();
    QStringList overridden;
    for (const QString &option : given) {
        if (settingOptions.contains(option) && !overridden.contains(option))
            overridden << option;
    }
    return overridden;
}

// ~/.config/breakwater/breakwater.conf on Linux. Named here rather than through an organization
// name, which would also move every QStandardPaths location (the call log's) under a second folder.
std::unique_ptr<QSettings> openSettings()
{
    return std::make_unique<QSettings>(QSettings::NativeFormat, QSettings::UserScope, u"breakwater"_s,
                                       u"breakwater"_s);
}

} // namespace

bool displayAvailable()
{
#if defined(Q_OS_UNIX) && !defined(Q_OS_MACOS)
    return qEnvironmentVariableIsSet("QT_QPA_PLATFORM") || !qEnvironmentVariableIsEmpty("DISPLAY")
        || !qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY");
#else
    return true;
#endif
}

std::unique_ptr<QCoreApplication> createApplication(int &argc, char **argv, bool desktop)
{
    if (desktop) {
        auto app = std::make_unique<QApplication>(argc, argv);
        apptranslation::install(app.get(), QLocale::system());   // LANGUAGE / LANG
        return app;
    }
    return std::make_unique<QCoreApplication>(argc, argv);
}

void showStartupFailure(const QString &why)
{
    // Nobody could see it there, and a modal dialog would hold the exit forever.
    const QString platform = QGuiApplication::platformName();
    if (platform == u"offscreen"_s || platform == u"minimal"_s)
        return;
    QMessageBox::critical(nullptr, QCoreApplication::translate("DesktopApp", "Breakwater cannot start"),
                          //: %1 is why, e.g. "cannot listen on 127.0.0.1:8080: the address is already in use ..."
                          QCoreApplication::translate("DesktopApp", "Breakwater cannot start: %1").arg(why));
}

ProxyConfig withSavedDesktopSettings(const ProxyConfig &config, const QStringList &given)
{
    return withSavedSettings(config, given, *openSettings());
}

void connectProxyToModel(ProxyServer *proxy, DashboardModel *model)
{
    qRegisterMetaType<CallRecord>();
    qRegisterMetaType<BreakerTransition>();
    qRegisterMetaType<ProxySnapshot>();
    QObject::connect(proxy, &ProxyServer::callStarted, model, &DashboardModel::addStarted, Qt::QueuedConnection);
    QObject::connect(proxy, &ProxyServer::callCompleted, model, &DashboardModel::addRecord, Qt::QueuedConnection);
    QObject::connect(proxy, &ProxyServer::breakerChanged, model, &DashboardModel::addTransition, Qt::QueuedConnection);
    // Sifted on the proxy thread, before anything is posted: four snapshots a second that differ
    // only in their times, or in a countdown, would wake the GUI thread four times a second at rest
    // (issue 26). One still goes through every kSnapshotHeartbeatMs: countdowns step once a second.
    struct Sift
    {
        ProxySnapshot passed;   // touched only on the proxy thread
        qint64 passedAtMs = 0;
    };
    constexpr qint64 kSnapshotHeartbeatMs = 1000;
    auto sift = std::make_shared<Sift>();
    QObject::connect(proxy, &ProxyServer::snapshotReady, model, [model, sift](const ProxySnapshot &snapshot) {
        if (sift->passedAtMs > 0 && snapshot.atMs - sift->passedAtMs < kSnapshotHeartbeatMs
            && snapshot.sameBesidesAges(sift->passed))
            return;
        sift->passed = snapshot;
        sift->passedAtMs = snapshot.atMs;
        QMetaObject::invokeMethod(model, [model, snapshot] { model->setSnapshot(snapshot); }, Qt::QueuedConnection);
    }, Qt::DirectConnection);
}

int runDesktop(ProxyServer *proxy, MockProvider *mock, const ProxyConfig &config, const QStringList &given,
               bool minimized, CallLog *callLog)
{
    // Declared in order of need; destroyed in reverse: tray, demo, window, then the model.
    DashboardModel model;
    if (callLog)
        model.addHistory(callLog->recent(kHistoryRows));
    connectProxyToModel(proxy, &model);

    const QString openaiBase = proxy->baseUrl();
    QString anthropicBase = openaiBase;
    if (anthropicBase.endsWith(u"/v1"_s))
        anthropicBase.chop(3);

    // The theme chosen in View, before anything is drawn; kept again whenever one is chosen.
    if (const apptheme::Theme theme = apptheme::load(*openSettings()); theme != apptheme::Theme::System)
        apptheme::apply(theme);
    DashboardWindow window(&model);
    QObject::connect(&window, &DashboardWindow::themeChosen, &window,
                     [](apptheme::Theme theme) { apptheme::save(*openSettings(), theme); });
    window.setProxyInfo(openaiBase, mock != nullptr);
    window.setUpstreamUrl(u"openai"_s, config.openaiUpstream.toString());
    window.setUpstreamUrl(u"anthropic"_s, config.anthropicUpstream.toString());
    window.requests()->setCaFile(config.caFile);   // a replay straight to an https upstream trusts it too
    cleartextwarning::show(&window, config);
    if (callLog) {
        window.setHistorySource([callLog](qint64 fromMs, qint64 toMs) {
            callLog->flush();   // the calls of the last moments too
            return callLog->between(fromMs, toMs, DashboardModel::kMaxRecords);
        });
    }
    window.restoreGeometryFrom(*openSettings());
    // Saved at the end, whether the window was closed, hidden in the tray or never shown.
    QObject::connect(qApp, &QCoreApplication::aboutToQuit, &window, [&window] { window.saveGeometryTo(*openSettings()); });

    std::unique_ptr<DemoController> demo;
    if (mock) {
        demo = std::make_unique<DemoController>(&model, proxy->port(), mock, config);
        demo->setCallLog(callLog);
        window.setDemoController(demo.get());
    }

    livecontrol::connectPanel(window.proxyPanel(), proxy);
    faultcontrol::connectPanel(window.faultsPanel(), proxy);
    const QStringList overridden = overriddenSettings(given);
    window.setSettingsHandler([&window, &model, proxy, &config, overridden, demoMode = mock != nullptr] {
        const std::unique_ptr<QSettings> settings = openSettings();
        // What the proxy runs with now: its start values, with the live ones from its latest snapshot.
        ProxyConfig now = config;
        if (!model.snapshot().upstreams.isEmpty())
            model.snapshot().settings.applyTo(now);
        AppSettings running = AppSettings::fromConfig(now);
        const AppSettings shown = SettingsDialog::initialValues(now, *settings, demoMode);
        if (demoMode) {   // the mock stands in for the upstreams: compare what the user saved
            running.openaiUpstream = shown.openaiUpstream;
            running.anthropicUpstream = shown.anthropicUpstream;
        }
        SettingsDialog dialog(shown, overridden, demoMode, &window);
        dialog.setStartAtLogin(LoginAutostart::isEnabled());
        if (demoMode)   // where calls go now, without a user:password
            dialog.setUpstreamsInUse(config.openaiUpstream.toString(QUrl::RemoveUserInfo),
                                     config.anthropicUpstream.toString(QUrl::RemoveUserInfo));
        dialog.setLiveApply([proxy](const AppSettings &values, const QStringList &changed) {
            return livecontrol::applySettings(proxy, values, changed);
        });
        if (dialog.exec() != QDialog::Accepted)
            return;
        dialog.saveChanges(*settings);
        QString message = SettingsDialog::restartMessage(dialog.values(), running, overridden, dialog.appliedLive());
        if (dialog.startAtLogin() != LoginAutostart::isEnabled()) {
            const Result changed = LoginAutostart::setEnabled(dialog.startAtLogin(), QCoreApplication::applicationFilePath());
            message += u'\n' + SettingsDialog::startAtLoginMessage(dialog.startAtLogin(), changed);
        }
        QMessageBox::information(&window, QCoreApplication::translate("DesktopApp", "Settings"), message);
    });

    // In demo mode the mock stands in for the providers: the tray keeps their names.
    TrayWatcher tray({&model, &window, openaiBase, anthropicBase, demo.get(),
                      mock ? QUrl() : config.openaiUpstream, mock ? QUrl() : config.anthropicUpstream, proxy});

    if (callLog) {
        // The writer turns logging off after a failed write (disk full, file removed); the proxy
        // goes on, but nothing is recorded any more, and the user must know. Emitted on its thread.
        QObject::connect(callLog, &CallLog::failed, &window, [&window, &tray](const Message &error) {
            const QString text = QCoreApplication::translate("DesktopApp", "Call log off: %1. Calls are still served, but no longer recorded.").arg(error.translated());
            window.statusBar()->showMessage(text);
            window.setWindowTitle(QCoreApplication::translate("DesktopApp", "Breakwater (call log off)"));
            if (TrayController *controller = tray.tray())
                controller->notify(QCoreApplication::translate("DesktopApp", "Breakwater: call log off"), text);
        }, Qt::QueuedConnection);
    }

    if (!minimized)
        window.show();
    else if (!tray.tray())   // nowhere to hide (yet): start minimised rather than invisible
        window.showMinimized();
    const int status = QCoreApplication::exec();
    // The proxy outlives us: stop its events from reaching the model before the model goes.
    QObject::disconnect(proxy, nullptr, &model, nullptr);
    return status;
}
