#pragma once

#include <memory>

#include <QList>
#include <QString>
#include <QStringList>

#include "attachedapp.h"
#include "result.h"

class AttachStatus;
struct CallRecord;
class DashboardModel;
class DashboardWindow;
class RemoteControl;
class RemoteFeed;

// One `breakwater --attach URL` session without its event loop and tray: the model, the remote's
// event feed and control, what is said while it is away, and the window wired to all of them
// (runAttached adds the tray and runs it; tests build one against a real server and look at the
// window). The window says it is attached to the remote, never that it listens here. Its Settings
// dialog edits the remote's live settings through the remote's control API (what a team's owner
// watching from a laptop expects: the timeout or a cap changed during an outage, no ssh); a
// refusal (a token that is not, or no longer, the owner's) is said in a message, and nothing is
// saved on this machine.
// The calls the remote had on record when the stream opened are drawn in every view; when they all
// lie before the live window (a CI run's outage an hour ago), the charts replot their interval,
// until the first call that happens now brings them back to live.
// When the remote refuses the token (401) and none was given with --control-token, the window
// asks for its owner's token in a dialog, tries it at once, and once the remote takes it keeps it
// for that remote (AttachTarget::tokensFile), so the next attach does not ask. Cancel: it asks no
// more this run, and the window says why it is not attached.
// Lives on the GUI thread; destroyed window first, then status, control, feed and model.
class AttachedSession final
{
    Q_DISABLE_COPY_MOVE(AttachedSession)
public:
    // Fails when the CA file gives no certificate.
    static Expected<std::unique_ptr<AttachedSession>> open(const AttachTarget &target);
    ~AttachedSession();

    // Opens the event stream (the window is shown by the caller).
    void start();

    // The remote as shown: scheme, host and port, without user:password or path.
    QString remote() const { return m_remote; }
    QString title() const { return m_title; }
    DashboardModel *model() const { return m_model.get(); }
    RemoteFeed *feed() const { return m_feed.get(); }
    RemoteControl *control() const { return m_control.get(); }
    AttachStatus *status() const { return m_status.get(); }
    DashboardWindow *window() const { return m_window.get(); }

    // The toolbar's Settings…: the remote's live settings from its latest snapshot, in the
    // dialog; the changed ones go to the remote at OK (modal: returns when the dialog closes).
    void openSettings();
    int tokenRequests() const { return m_tokenRequests; }   // token dialogs shown so far

private:
    explicit AttachedSession(const AttachTarget &target);
    void buildWindow();
    void settingsAnswered(const QStringList &sent, int status, const Message &why);
    void showHistory(const QList<CallRecord> &records);
    void askForToken();

    AttachTarget m_target;
    bool m_historyReplotted = false;   // the charts show the opening history, not live
    bool m_asking = false;             // the token dialog is up
    bool m_declined = false;           // its Cancel: not asked again this run
    int m_tokenRequests = 0;
    QByteArray m_givenToken;           // from the dialog, kept once the remote takes it
    QString m_remote;
    QString m_title;
    std::unique_ptr<DashboardModel> m_model;
    std::unique_ptr<RemoteFeed> m_feed;
    std::unique_ptr<RemoteControl> m_control;
    std::unique_ptr<AttachStatus> m_status;
    std::unique_ptr<DashboardWindow> m_window;
};
