#include "attachedapp.h"

#include <cstdio>

#include <QCoreApplication>
#include <QHash>
#include <QLabel>
#include <QStatusBar>

#include "attach/remotecontrol.h"
#include "attach/remotefeed.h"
#include "attachstatus.h"
#include "dashboardmodel.h"
#include "dashboardwindow.h"
#include "desktopapp.h"
#include "faultspanel.h"
#include "proxysnapshot.h"
#include "proxypanel.h"
#include "traycontroller.h"
#include "traywatcher.h"

void connectFeedToModel(RemoteFeed *feed, DashboardModel *model)
{
    // The feed lives on the GUI thread with the model: direct connections, in the stream's order.
    QObject::connect(feed, &RemoteFeed::callStarted, model, &DashboardModel::addStarted);
    QObject::connect(feed, &RemoteFeed::callCompleted, model, &DashboardModel::addRecord);
    QObject::connect(feed, &RemoteFeed::breakerChanged, model, &DashboardModel::addTransition);
    QObject::connect(feed, &RemoteFeed::snapshotReady, model, &DashboardModel::setSnapshot);
    QObject::connect(feed, &RemoteFeed::history, model, &DashboardModel::addHistory);
}

void connectWindowToRemote(DashboardWindow *window, RemoteControl *control)
{
    ProxyPanel *panel = window->proxyPanel();
    QObject::connect(panel, &ProxyPanel::breakerActionRequested, control, &RemoteControl::actOnBreaker);
    QObject::connect(panel, &ProxyPanel::admissionPauseRequested, control, &RemoteControl::setAdmissionPaused);
    FaultsPanel *faults = window->faultsPanel();
    QObject::connect(faults, &FaultsPanel::armRequested, control, &RemoteControl::armFault);
    QObject::connect(faults, &FaultsPanel::disarmRequested, control, &RemoteControl::disarmFault);
    QObject::connect(faults, &FaultsPanel::clearRequested, control, &RemoteControl::clearFaults);
    QObject::connect(control, &RemoteControl::failed, window,
                     [window](const QString &why) { window->statusBar()->showMessage(why, 15'000); });
}

int runAttached(const AttachTarget &target)
{
    // Declared in order of need; destroyed in reverse: tray, window, status, control, feed, model.
    DashboardModel model;
    RemoteFeed feed(target.remote, target.controlToken);
    if (!target.caFile.isEmpty()) {
        if (const Result added = feed.addCaFile(target.caFile); !added.ok()) {
            std::fprintf(stderr, "breakwater: --ca-file: %s\n", qPrintable(added.error()));
            showStartupFailure(added.error());
            return 2;
        }
    }
    RemoteControl control(target.remote, target.controlToken, feed.sslConfiguration());
    connectFeedToModel(&feed, &model);
    AttachStatus status(&feed);

    const QString remote = target.remote.toString(QUrl::RemoveUserInfo | QUrl::RemovePath | QUrl::RemoveQuery
                                                  | QUrl::StripTrailingSlash);
    DashboardWindow window(&model);
    // The addresses members use are the remote's: the getting-started lines and copied URLs say so.
    window.setProxyInfo(remote + QStringLiteral("/v1"), false);
    //: %1 is the remote Breakwater's address, https://host:port
    const QString title = QCoreApplication::translate("AttachedApp", "Breakwater — attached to %1").arg(remote);
    window.setWindowTitle(title);
    connectWindowToRemote(&window, &control);
    // The remote's upstreams by their addresses, as the local window names them, from its snapshots.
    QObject::connect(&feed, &RemoteFeed::snapshotReady, &window, [&window, shown = QHash<QString, QString>()](
                                                                     const ProxySnapshot &snapshot) mutable {
        for (const UpstreamSnapshot &upstream : snapshot.upstreams) {
            const QString name = QString::fromUtf8(upstream.name);
            if (!upstream.url.isEmpty() && shown.value(name) != upstream.url) {
                shown.insert(name, upstream.url);
                window.setUpstreamUrl(name, upstream.url);
            }
        }
    });

    // Away: said in a status line that stays until the stream is back, and in the title.
    auto *away = new QLabel(&window);
    away->setObjectName(QStringLiteral("attachStatus"));
    away->setStyleSheet(QStringLiteral("QLabel { color: #b00020; font-weight: bold; }"));
    away->hide();
    window.statusBar()->addPermanentWidget(away);
    QObject::connect(&status, &AttachStatus::changed, &window, [&window, &status, away, title] {
        const QString text = status.text();
        away->setText(text);
        away->setVisible(!text.isEmpty());
        window.setWindowTitle(text.isEmpty() ? title
                                             //: the window's title while the remote is away
                                             : QCoreApplication::translate("AttachedApp", "%1 (disconnected)").arg(title));
    });

    TrayWatcher tray({&model, &window, remote + QStringLiteral("/v1"), remote, nullptr, QUrl(), QUrl(), nullptr,
                      [&status] { return status.text(); }});
    feed.start();
    if (!target.minimized)
        window.show();
    else if (!tray.tray())
        window.showMinimized();
    return QCoreApplication::exec();
}
