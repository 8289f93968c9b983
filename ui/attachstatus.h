#pragma once

#include <QDeadlineTimer>
#include <QObject>
#include <QString>
#include <QTimer>

#include "message.h"

class RemoteFeed;

// What an attached dashboard (`breakwater --attach`) says about its remote: nothing while the
// event stream is up; "disconnected — reconnecting in N s" (and why) while it is away, counting
// down each second until the next try. The window's status line and the tray's tooltip show it.
// Lives on the GUI thread beside the feed it watches.
class AttachStatus final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(AttachStatus)
public:
    explicit AttachStatus(RemoteFeed *feed, QObject *parent = nullptr);

    bool isAway() const { return m_away; }
    QString text() const;        // empty while attached
    const Message &reason() const { return m_reason; }

Q_SIGNALS:
    void changed();   // text() is another one

private:
    RemoteFeed *m_feed = nullptr;
    bool m_away = false;
    Message m_reason;
    QDeadlineTimer m_retryAt;
    QTimer m_countdown;
};
