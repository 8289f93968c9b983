#include "attachedsession.h"

#include <algorithm>

#include <QCoreApplication>
#include <QHash>
#include <QInputDialog>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QStatusBar>

#include "attach/remotecontrol.h"
#include "attach/remotefeed.h"
#include "attachstatus.h"
#include "dashboardmodel.h"
#include "dashboardwindow.h"
#include "accounting/callrecord.h"
#include "appsettings.h"
#include "livesettings.h"
#include "proxysnapshot.h"
#include "remotetokens.h"
#include "settingsdialog.h"

using namespace Qt::StringLiterals;

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
    window.setSettingsHandler([this] { openSettings(); });
    // After connectFeedToModel's: the model holds them when this runs.
    QObject::connect(m_feed.get(), &RemoteFeed::history, &window, [this](const QList<CallRecord> &records) { showHistory(records); });
    const auto live = [this] {
        if (!m_historyReplotted)
            return;
        m_historyReplotted = false;
        if (m_window->isReplotting())
            m_window->backToLive();
    };
    QObject::connect(m_feed.get(), &RemoteFeed::callStarted, &window, live);
    // The token refused: ask its owner's, once the feed's own signal has returned.
    QObject::connect(m_feed.get(), &RemoteFeed::disconnected, &window, [this] {
        if (m_feed->lastStatus() == 401 && !m_target.tokensFile.isEmpty() && !m_asking && !m_declined)
            QMetaObject::invokeMethod(m_window.get(), [this] { askForToken(); }, Qt::QueuedConnection);
    });
    QObject::connect(m_feed.get(), &RemoteFeed::connected, &window, [this] {
        if (m_givenToken.isEmpty())
            return;
        const Result kept = RemoteTokens(m_target.tokensFile).remember(m_target.remote, m_givenToken);
        m_givenToken.clear();
        //: %1 is the remote's address, %2 the file
        m_window->statusBar()->showMessage(kept.ok() ? QCoreApplication::translate("AttachedApp", "The control token for %1 is kept in %2 (only you may read it).")
                                                           .arg(m_remote, m_target.tokensFile)
                                                     : QCoreApplication::translate("AttachedApp", "The control token could not be kept: %1").arg(kept.error()),
                                           15'000);
    });
    QObject::connect(m_feed.get(), &RemoteFeed::callCompleted, &window, live);
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

void AttachedSession::showHistory(const QList<CallRecord> &records)
{
    if (records.isEmpty() || m_window->isReplotting())
        return;
    qint64 fromMs = records.first().receivedAtMs, toMs = fromMs;
    for (const CallRecord &record : records) {
        fromMs = std::min(fromMs, record.receivedAtMs);
        toMs = std::max({toMs, record.receivedAtMs, record.endAtMs});
    }
    // Some of them in the live window: the live charts show them already.
    if (toMs >= m_window->nowMs() - m_window->windowMs())
        return;
    m_window->replotInterval(fromMs, toMs + 1000);   // the newest call's second whole
    m_historyReplotted = true;
}

void AttachedSession::askForToken()
{
    if (m_asking || m_declined || m_feed->isConnected())
        return;
    m_asking = true;
    ++m_tokenRequests;
    QInputDialog dialog(m_window.get());
    dialog.setObjectName(u"controlTokenDialog"_s);
    //: %1 is the remote's address
    dialog.setWindowTitle(QCoreApplication::translate("AttachedApp", "Control token for %1").arg(m_remote));
    dialog.setLabelText(QCoreApplication::translate(
                            "AttachedApp", "%1 refused this window's control token. Paste its owner's control token "
                                           "(on the remote: ~/.config/breakwater/control-token). It is kept for this "
                                           "address in %2, which only you may read.")
                            .arg(m_remote, m_target.tokensFile));
    dialog.setTextEchoMode(QLineEdit::Password);
    const bool given = dialog.exec() == QDialog::Accepted && !dialog.textValue().trimmed().isEmpty();
    m_asking = false;
    if (!given) {
        m_declined = true;
        m_window->statusBar()->showMessage(
            QCoreApplication::translate("AttachedApp", "Not attached: %1 needs its owner's control token "
                                                       "(attach again, or give --control-token FILE).").arg(m_remote));
        return;
    }
    m_givenToken = dialog.textValue().trimmed().toUtf8();
    m_feed->setControlToken(m_givenToken);
    m_control->setControlToken(m_givenToken);
    m_feed->reconnectNow();
}

void AttachedSession::start()
{
    m_feed->start();
}

void AttachedSession::openSettings()
{
    DashboardWindow *window = m_window.get();
    const ProxySnapshot &snapshot = m_model->snapshot();
    if (snapshot.upstreams.isEmpty()) {   // no snapshot yet: nothing known to show
        window->statusBar()->showMessage(
            QCoreApplication::translate("AttachedApp", "The remote's settings show once it has answered; not attached yet."),
            15'000);
        return;
    }
    // What the remote runs with now: its live values, its upstreams and its address.
    ProxyConfig running;
    snapshot.settings.applyTo(running);
    AppSettings shown = AppSettings::fromConfig(running);
    const QString host = m_target.remote.host();
    const int port = m_target.remote.port(m_target.remote.scheme() == u"https"_s ? 443 : 80);
    shown.listen = (host.contains(u':') ? u'[' + host + u']' : host) + u':' + QString::number(port);
    for (const UpstreamSnapshot &upstream : snapshot.upstreams) {
        if (upstream.name == "openai")
            shown.openaiUpstream = upstream.url;
        else if (upstream.name == "anthropic")
            shown.anthropicUpstream = upstream.url;
    }
    SettingsDialog dialog(shown, {}, false, window);
    dialog.setRemote(m_remote);
    dialog.setLiveApply([this](const AppSettings &values, const QStringList &changed) {
        QStringList sent;
        for (const QString &option : LiveSettings::options()) {
            if (changed.contains(option))
                sent << option;
        }
        if (sent.isEmpty())
            return sent;
        ProxyConfig config;
        values.applyTo(config);
        // LiveSettings' JSON names are the flags' without the dashes, in the flags' units.
        const QJsonObject all = LiveSettings::of(config).toJson();
        QJsonObject changes;
        for (const QString &option : std::as_const(sent))
            changes.insert(option.mid(2), all.value(option.mid(2)));
        m_control->changeSettings(changes, [this, sent](int status, const Message &why) { settingsAnswered(sent, status, why); });
        return sent;
    });
    if (dialog.exec() == QDialog::Accepted && dialog.appliedLive().isEmpty())
        window->statusBar()->showMessage(QCoreApplication::translate("AttachedApp", "Settings: nothing changed."), 15'000);
}

void AttachedSession::settingsAnswered(const QStringList &sent, int status, const Message &why)
{
    DashboardWindow *window = m_window.get();
    QStringList names;
    for (const QString &option : sent)
        names << option.mid(2);
    if (why.isEmpty()) {
        //: %1 is the remote's address, %2 the settings changed ("timeout, concurrency")
        window->statusBar()->showMessage(QCoreApplication::translate("AttachedApp", "Applied to %1: %2.")
                                             .arg(m_remote, names.join(u", "_s)), 15'000);
        return;
    }
    //: %1 the remote's address, %2 the settings ("timeout"), %3 the HTTP status, %4 the remote's reason
    QString text = QCoreApplication::translate("AttachedApp", "%1 refused to change %2 (HTTP %3): %4. Its settings are as they were.")
                       .arg(m_remote, names.join(u", "_s)).arg(status).arg(why.translated());
    if (status == 401)
        text += u"\n\n"_s + QCoreApplication::translate(
                    "AttachedApp", "The token this window uses is not the remote owner's control token (or no longer is): "
                                   "attach again with --control-token FILE holding the token from the remote's "
                                   "~/.config/breakwater/control-token.");
    auto *box = new QMessageBox(QMessageBox::Warning, QCoreApplication::translate("AttachedApp", "Settings not changed"),
                                text, QMessageBox::Ok, window);
    box->setObjectName(u"settingsRefused"_s);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();   // not exec(): the dashboard goes on drawing behind it
}
