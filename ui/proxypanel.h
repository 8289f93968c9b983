#pragma once

#include <QHash>
#include <QWidget>

class DashboardModel;
class QGridLayout;
class QLabel;

// The strip at the top of the window that says where Breakwater is and where it sends calls: the
// listen URL (with a Copy button) and, per upstream, its URL and health: breaker state, failures in
// a row toward the threshold that opens it, the cool-down left while open, the newest failure and
// the health probe's newest answer (what it saw and when).
// Always visible, unlike the status bar, which a small screen or a temporary message can hide.
// The health comes from the proxy's snapshots (ProxySnapshot), the URLs from the configuration.
class ProxyPanel final : public QWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ProxyPanel)
public:
    explicit ProxyPanel(QWidget *parent = nullptr);

    void setListenUrl(const QString &baseUrl, bool demo);
    void setUpstreamUrl(const QString &upstream, const QString &url);   // "openai" -> its base URL
    // Redraws only the lines whose text changed (setText repaints).
    void refresh(const DashboardModel &model);

    QString listenUrl() const;
    QString listenText() const;   // with the mode
    QString upstreamText(const QString &upstream) const;   // empty if no such upstream yet

private:
    struct Row
    {
        QLabel *name = nullptr;
        QLabel *status = nullptr;
    };
    Row &row(const QString &upstream);

    QGridLayout *m_layout = nullptr;
    QLabel *m_listen = nullptr;
    QLabel *m_mode = nullptr;
    QHash<QString, QString> m_urls;
    QHash<QString, Row> m_rows;
};
