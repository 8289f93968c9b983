#include "accounting/callinspection.h"

#include <QUrl>

#include "accounting/calllog.h"
#include "accounting/callrecord.h"
#include "http/protocol.h"

namespace {

constexpr QByteArrayView kLeftOut = "... ";

} // namespace

QByteArray CallInspection::redactTarget(const QByteArray &target)
{
    const qsizetype mark = target.indexOf('?');
    if (mark < 0)
        return target;
    return target.left(mark + 1) + redactQuery(target.mid(mark + 1));
}

QByteArray CallInspection::redactKeyInputs(const QByteArray &text)
{
    constexpr QByteArrayView kQuery = "query: ";
    constexpr QByteArrayView kUpstream = "upstream: ";
    QList<QByteArray> lines = text.split('\n');
    for (QByteArray &line : lines) {
        if (line.startsWith(kQuery)) {
            line = kQuery.toByteArray() + redactQuery(line.mid(kQuery.size()));
        } else if (line.startsWith(kUpstream)) {
            const QUrl url = QUrl::fromEncoded(line.mid(kUpstream.size()));
            if (!url.userInfo().isEmpty())
                line = kUpstream.toByteArray() + url.adjusted(QUrl::RemoveUserInfo).toEncoded();
        }
    }
    return lines.join('\n');
}

bool CallInspection::isSecretHeader(QByteArrayView name)
{
    // The credential headers (http/protocol.h's table) are among the secret names.
    return CallLog::isSecretName(name) || name.compare("cookie", Qt::CaseInsensitive) == 0
        || name.compare("set-cookie", Qt::CaseInsensitive) == 0
        || name.compare("proxy-authorization", Qt::CaseInsensitive) == 0;
}

QByteArray CallInspection::recordHeaders(const HeaderList &headers)
{
    QByteArray text;
    text.reserve(512);
    for (const auto &[name, value] : headers) {
        QByteArray shown = isSecretHeader(name) ? QByteArray(kRedacted) : value;
        shown.replace('\r', ' ').replace('\n', ' ');   // one line per header, whatever the value held
        text += name + ": " + shown + '\n';
    }
    // One pass of the key-shape redaction over the block rather than one per header: this runs for
    // every request and every response. The bound applies to the redacted text.
    text = CallLog::redactCredentials(text);
    if (text.size() <= CallRecord::kMaxHeaderBytes)
        return text;
    const qsizetype kept = text.lastIndexOf('\n', CallRecord::kMaxHeaderBytes - 64) + 1;   // room for the note
    const qsizetype leftOut = text.sliced(kept).count('\n');
    return text.left(kept) + kLeftOut.toByteArray() + QByteArray::number(leftOut) + " more header(s) left out\n";
}

HeaderList CallInspection::parseHeaders(const QByteArray &recorded)
{
    HeaderList headers;
    for (const QByteArray &line : recorded.split('\n')) {
        const qsizetype colon = line.indexOf(": ");
        if (colon <= 0 || line.startsWith(kLeftOut))
            continue;
        headers.append({line.left(colon), line.mid(colon + 2)});
    }
    return headers;
}

QByteArray CallInspection::recordErrorBody(const QByteArray &body)
{
    // Cut before redacting too: an error page may be megabytes, and only its start is kept.
    return CallLog::redactCredentials(body.left(2 * CallRecord::kMaxErrorBodyBytes)).left(CallRecord::kMaxErrorBodyBytes);
}
