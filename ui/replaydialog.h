#pragma once

#include <QDialog>
#include <QHash>

#include "accounting/callrecord.h"
#include "replay/replayer.h"

class QButtonGroup;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QRadioButton;

// "Replay…" from the details pane: sends a recorded call again (replay/replayer.h) and shows the
// recorded answer and the replayed one side by side, with a line saying what differs. The target is
// Breakwater itself (a fresh upstream call through the breaker, timeout and call log) or another
// base URL (a local model, the other upstream); the credential is typed, and kept only in the
// password box while the dialog is open, or comes from the environment variable the route's API
// style reads, offered only when the replay reaches that variable's own provider (through
// Breakwater: when the upstream is it). The body can be edited before sending (shown pretty-printed; sent as recorded while it
// is left alone). A call whose body was not logged cannot be sent, and the dialog says why.
class ReplayDialog final : public QDialog
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ReplayDialog)
public:
    explicit ReplayDialog(const CallRecord &record, QWidget *parent = nullptr);

    // Breakwater's own address, "http://127.0.0.1:8080".
    void setBreakwaterOrigin(const QString &origin);
    // The configured upstreams' base URLs by name ("openai", "anthropic"): where a replay through
    // Breakwater ends up, and what the other-URL box starts with.
    void setUpstreamUrls(const QHash<QString, QString> &urls);
    // --ca-file: authorities trusted for an https replay besides the system's.
    void setCaFile(const QString &path) { m_caFile = path; }

    // What the controls hold, for tests and for the panel that opens it.
    void setThroughBreakwater(bool through);
    void setOtherUrl(const QString &url);
    void setTypedCredential(const QString &credential);   // and chooses "typed"
    void setBodyText(const QString &text);
    QString bodyText() const;
    bool canSend() const;
    void send();

    QString originalText() const;
    QString replayText() const;
    QString differenceText() const;
    QString statusText() const;

Q_SIGNALS:
    void answered();   // a replay's answer (or its failure) is shown

private:
    void showAnswer(const Replayer::Answer &answer);
    void updateControls();
    QUrl destination() const;   // where the request ends up: the upstream behind Breakwater, or the other URL
    bool environmentCredentialOffered() const;

    CallRecord m_record;
    QByteArray m_shownBody;   // the body as first shown: while the box holds it, the recorded bytes go out
    Replayer *m_replayer = nullptr;
    QString m_caFile;
    QString m_origin = QStringLiteral("http://127.0.0.1:8080");
    QHash<QString, QString> m_upstreamUrls;
    QRadioButton *m_through = nullptr;
    QRadioButton *m_other = nullptr;
    QLineEdit *m_otherUrl = nullptr;
    QRadioButton *m_fromEnvironment = nullptr;
    QRadioButton *m_typed = nullptr;
    QRadioButton *m_noCredential = nullptr;
    QLineEdit *m_credential = nullptr;
    QPlainTextEdit *m_body = nullptr;
    QPushButton *m_send = nullptr;
    QLabel *m_status = nullptr;
    QPlainTextEdit *m_original = nullptr;
    QPlainTextEdit *m_replayed = nullptr;
    QLabel *m_difference = nullptr;
};
