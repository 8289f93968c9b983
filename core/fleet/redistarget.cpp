#include "fleet/redistarget.h"

#include <QHostAddress>
#include <QUrl>
#include <QUrlQuery>

#include "faults/faultduration.h"

using namespace Qt::StringLiterals;

QString RedisTarget::display() const
{
    QString credentials;
    if (!password.isEmpty())
        credentials = (user.isEmpty() ? QString() : QString::fromUtf8(user)) + u":***@"_s;
    const QString shownHost = host.contains(u':') ? u'[' + host + u']' : host;
    const QString query = timeout == kDefaultTimeout ? QString() : u"?timeout=%1ms"_s.arg(timeout.count());
    return u"redis://%1%2:%3/%4%5"_s.arg(credentials, shownHost).arg(port).arg(db).arg(query);
}

Expected<RedisTarget> parseRedisTarget(const QString &text)
{
    const QString expected = u"redis://[user:password@]host:port[/db][?timeout=D]"_s;
    const QUrl url(text, QUrl::StrictMode);
    // The message names the problem only: the text given may hold a password.
    const auto bad = [&](const QString &why) {
        return Failure{u"invalid value for --shared-state: %1 (expected %2)"_s.arg(why, expected)};
    };
    if (!url.isValid())
        return bad(u"not a URL"_s);
    if (url.scheme() == u"rediss"_s)
        return bad(u"rediss:// (TLS) is not supported by this build's Redis client (hiredis 0.14)"_s);
    if (url.scheme() != u"redis"_s)
        return bad(u"the scheme must be redis://"_s);
    if (url.host().isEmpty())
        return bad(u"no host"_s);
    if (url.port() <= 0)
        return bad(u"no port (or port 0)"_s);
    if (url.hasFragment())
        return bad(u"a fragment"_s);
    RedisTarget target;
    for (const auto &[name, value] : QUrlQuery(url).queryItems(QUrl::FullyDecoded)) {
        if (name != u"timeout"_s)
            return bad(u"an unknown query parameter (only timeout= is understood)"_s);
        const std::optional<std::chrono::milliseconds> timeout = parseFaultDuration(value);
        if (!timeout || *timeout <= std::chrono::milliseconds(0) || *timeout > std::chrono::minutes(1))
            return bad(u"timeout= must be a duration from 1ms to 60s, e.g. 100ms or 2s"_s);
        target.timeout = *timeout;
    }
    target.host = url.host();
    target.port = quint16(url.port());
    target.user = url.userName(QUrl::FullyDecoded).toUtf8();
    target.password = url.password(QUrl::FullyDecoded).toUtf8();
    if (!target.user.isEmpty() && target.password.isEmpty())
        return bad(u"a user without a password"_s);
    QString path = url.path();
    if (path.startsWith(u'/'))
        path.remove(0, 1);
    if (!path.isEmpty()) {
        bool ok = false;
        target.db = path.toInt(&ok);
        if (!ok || target.db < 0 || target.db > 15 || path.contains(u'/'))
            return bad(u"the database must be a number from 0 to 15"_s);
    }
    return target;
}
