#include "attachedapp.h"

#include <cstdio>

#include <QCoreApplication>
#include <QStatusBar>

#include "attach/remotecontrol.h"
#include "attach/remotefeed.h"
#include "attachedsession.h"
#include "attachstatus.h"
#include "dashboardmodel.h"
#include "dashboardwindow.h"
#include "desktopapp.h"
#include "faultspanel.h"
#include "proxypanel.h"
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
                     [window](const Message &why) { window->statusBar()->showMessage(why.translated(), 15'000); });
}

int runAttached(const AttachTarget &target)
{
    Expected<std::unique_ptr<AttachedSession>> opened = AttachedSession::open(target);
    if (!opened.ok()) {
        std::fprintf(stderr, "breakwater: --ca-file: %s\n", qPrintable(opened.error()));
        showStartupFailure(opened.error());
        return 2;
    }
    // Destroyed in reverse: the tray, then the session (window, status, control, feed, model).
    const std::unique_ptr<AttachedSession> session = std::move(opened).value();
    AttachStatus *status = session->status();
    DashboardWindow *window = session->window();
    const QString remote = session->remote();
    TrayWatcher tray({session->model(), window, remote + QStringLiteral("/v1"), remote, nullptr, QUrl(), QUrl(), nullptr,
                      [status] { return status->text(); }});
    session->start();
    if (!target.minimized)
        window->show();
    else if (!tray.tray())
        window->showMinimized();
    return QCoreApplication::exec();
}
