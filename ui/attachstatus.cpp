#include "attachstatus.h"

#include "attach/remotefeed.h"

AttachStatus::AttachStatus(RemoteFeed *feed, QObject *parent)
    : QObject(parent),
      m_feed(feed)
{
    m_countdown.setInterval(1000);
    connect(&m_countdown, &QTimer::timeout, this, &AttachStatus::changed);
    connect(feed, &RemoteFeed::connected, this, [this] {
        m_away = false;
        m_reason = {};
        m_countdown.stop();
        Q_EMIT changed();
    });
    connect(feed, &RemoteFeed::disconnected, this, [this](const Message &why, std::chrono::milliseconds retryIn) {
        m_away = true;
        m_reason = why;
        m_retryAt = QDeadlineTimer(retryIn);
        m_countdown.start();
        Q_EMIT changed();
    });
}

QString AttachStatus::text() const
{
    if (!m_away)
        return {};
    const qint64 seconds = (std::max<qint64>(m_retryAt.remainingTime(), 0) + 999) / 1000;
    const QString where = m_feed->eventsUrl().toString(QUrl::RemovePath | QUrl::RemoveUserInfo);
    if (seconds == 0) {
        //: %1 is the remote Breakwater's address, %2 why the connection went
        return tr("%1 disconnected — reconnecting now (%2)").arg(where, m_reason.translated());
    }
    //: %1 is the remote Breakwater's address, %2 seconds until the next try, %3 why the connection went
    return tr("%1 disconnected — reconnecting in %2 s (%3)").arg(where).arg(seconds).arg(m_reason.translated());
}
