#include "accounting/callinspection.h"

#include "accounting/calllog.h"
#include "accounting/callrecord.h"
#include "http/protocol.h"

namespace {

constexpr QByteArrayView kLeftOut = "... ";

} // namespace

bool CallInspection::isSecretHeader(const QByteArray &lowerName)
{
    return isCredentialHeader(lowerName) || lowerName == "cookie" || lowerName == "set-cookie"
        || lowerName == "proxy-authorization" || CallLog::isSecretName(QString::fromLatin1(lowerName));
}

QByteArray CallInspection::recordHeaders(const HeaderList &headers)
{
    QByteArray text;
    qsizetype leftOut = 0;
    for (const auto &[name, value] : headers) {
        QByteArray shown = isSecretHeader(name.toLower()) ? QByteArray(kRedacted) : CallLog::redactCredentials(value);
        shown.replace('\r', ' ').replace('\n', ' ');   // one line per header, whatever the value held
        const QByteArray line = name + ": " + shown + '\n';
        if (leftOut > 0 || text.size() + line.size() > CallRecord::kMaxHeaderBytes) {
            ++leftOut;
            continue;
        }
        text += line;
    }
    if (leftOut > 0)
        text += kLeftOut.toByteArray() + QByteArray::number(leftOut) + " more header(s) left out\n";
    return text;
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
