#include "attachedsession.h"

#include <QCoreApplication>
#include <QHash>
#include <QLabel>
#include <QStatusBar>

#include "attach/remotecontrol.h"
#include "attach/remotefeed.h"
#include "attachstatus.h"
#include "dashboardmodel.h"
#include "dashboardwindow.h"
#include "proxysnapshot.h"

AttachedSession::AttachedSession(const AttachTarget &target)
    : m_target(target),
      m_remote(target.remote.toString(QUrl::RemoveUserInfo | QUrl::RemovePath | QUrl::RemoveQuery
                                      | QUrl::StripTrailingSlash)),
      m_model(std::make_unique<DashboardModel>()),
      m_feed(std::make_unique<RemoteFeed>(target.remote, target.controlToken))
{
    //: %1 is the remote Breakwater's address, https://host:port
    m_title = QCoreApplication::translate("AttachedApp", "Breakwater — attached to %1").arg(m_remote);
}

AttachedSession::~AttachedSession()
{
    m_window.reset();   // before the status and the feed its lambdas read
}

Expected<std::unique_ptr<AttachedSession>> AttachedSession::open(const AttachTarget &target)
{
    std::unique_ptr<AttachedSession> session(new AttachedSession(target));
    if (!target.caFile.isEmpty()) {
        if (const Result added = session->m_feed->addCaFile(target.caFile); !added.ok())
            return Failure{added.error()};
    }
    // The control requests trust what the stream trusts.
    session->m_control = std::make_unique<RemoteControl>(target.remote, target.controlToken,
                                                         session->m_feed->sslConfiguration());
    connectFeedToModel(session->m_feed.get(), session->m_model.get());
    session->m_status = std::make_unique<AttachStatus>(session->m_feed.get());
    session->buildWindow();
    return session;
}

void AttachedSession::buildWindow()
{
    m_window = std::make_unique<DashboardWindow>(m_model.get());
    DashboardWindow &window = *m_window;
    window.setAttachedTo(m_remote);
    window.setWindowTitle(m_title);
    connectWindowToRemote(&window, m_control.get());
    // The remote's upstreams by their addresses, as the local window names them, from its snapshots.
    QObject::connect(m_feed.get(), &RemoteFeed::snapshotReady, &window, [&window, shown = QHash<QString, QString>()](
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
    AttachStatus *status = m_status.get();
    QObject::connect(status, &AttachStatus::changed, &window, [&window, status, away, title = m_title] {
        const QString text = status->text();
        away->setText(text);
        away->setVisible(!text.isEmpty());
        window.setWindowTitle(text.isEmpty() ? title
                                             //: the window's title while the remote is away
                                             : QCoreApplication::translate("AttachedApp", "%1 (disconnected)").arg(title));
    });
}

void AttachedSession::start()
{
    m_feed->start();
}
