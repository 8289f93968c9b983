#pragma once

#include <array>

#include <QHash>
#include <QWidget>

#include "livesettings.h"

class DashboardModel;
class FittedLabel;
class QGridLayout;
class QLabel;
class QToolButton;

// The strip at the top of the window that says where Breakwater is and where it sends calls: the
// listen URL (with a Copy button) and, per upstream, its URL and health: breaker state, failures in
// a row toward the threshold that opens it, the cool-down left while open, the newest failure and
// the health probe's newest answer (what it saw and when).
// Always visible, unlike the status bar, which a small screen or a temporary message can hide.
// The health comes from the proxy's snapshots (ProxySnapshot), the URLs from the configuration.
// Beside each upstream are its breaker buttons (open now, close now, probe now), and beside the Copy
// button the Pause admission toggle; they only ask (the signals below, which ui/livecontrol.h sends
// to the proxy's thread), and show what the proxy did when its next snapshot says so.
class ProxyPanel final : public QWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ProxyPanel)
public:
    explicit ProxyPanel(QWidget *parent = nullptr);

    void setListenUrl(const QString &baseUrl, bool demo);
    // `breakwater --attach`: the strip names the remote (http(s)://host:port) it is attached to,
    // never an address here, and says whether the connection is encrypted; Copy gives the base
    // URL members point their apps at (the remote's, with /v1).
    void setAttachedTo(const QString &remote);
    void setUpstreamUrl(const QString &upstream, const QString &url);   // "openai" -> its base URL
    // Redraws only the lines whose text changed (setText repaints).
    void refresh(const DashboardModel &model);

    QString listenUrl() const;
    QString titleText() const;   // "Listening on", or "Attached to" for a remote
    QString listenText() const;   // with the mode
    // Its whole health line (the strip shows what fits, the tool tip all); empty if no such upstream yet.
    QString upstreamText(const QString &upstream) const;
    // For tests: an upstream's breaker button (null if no such upstream yet), the pause toggle.
    QToolButton *breakerButton(const QString &upstream, BreakerAction action) const;
    QToolButton *pauseButton() const { return m_pause; }

Q_SIGNALS:
    void breakerActionRequested(const QString &upstream, BreakerAction action);
    void admissionPauseRequested(bool paused);

private:
    struct Row
    {
        QLabel *name = nullptr;
        FittedLabel *status = nullptr;
        std::array<QToolButton *, 3> buttons{};   // by BreakerAction
    };
    Row &row(const QString &upstream);

    QGridLayout *m_layout = nullptr;
    QLabel *m_title = nullptr;
    QLabel *m_listen = nullptr;
    QString m_copied;   // what Copy puts on the clipboard
    FittedLabel *m_mode = nullptr;
    QToolButton *m_pause = nullptr;
    QHash<QString, QString> m_urls;
    QHash<QString, Row> m_rows;
};
