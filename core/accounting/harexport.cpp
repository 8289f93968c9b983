#include "accounting/harexport.h"

#include <algorithm>

#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <QUrlQuery>

#include "accounting/callending.h"
#include "accounting/callinspection.h"
#include "accounting/callrecord.h"
#include "accounting/calllog.h"
#include "http/responsewriter.h"

using namespace Qt::StringLiterals;

namespace {

QJsonArray nameValues(const HeaderList &pairs)
{
    QJsonArray list;
    for (const auto &[name, value] : pairs)
        list.append(QJsonObject{{u"name"_s, QString::fromUtf8(name)}, {u"value"_s, QString::fromUtf8(value)}});
    return list;
}

QString headerValue(const HeaderList &headers, QByteArrayView name)
{
    for (const auto &[key, value] : headers) {
        if (key.compare(name, Qt::CaseInsensitive) == 0)
            return QString::fromUtf8(value);
    }
    return {};
}

QJsonObject request(const CallRecord &r, const QString &origin)
{
    const QByteArray target = r.target.isEmpty() ? r.route : r.target;
    const HeaderList headers = CallInspection::parseHeaders(r.requestHeaders);
    HeaderList query;
    if (const qsizetype mark = target.indexOf('?'); mark >= 0) {
        for (const auto &[name, value] : QUrlQuery(QString::fromUtf8(target.mid(mark + 1))).queryItems(QUrl::FullyDecoded))
            query.append({name.toUtf8(), value.toUtf8()});
    }
    const QString length = headerValue(headers, "content-length");
    QJsonObject request{{u"method"_s, QString::fromLatin1(r.method.isEmpty() ? QByteArray("POST") : r.method)},
                        {u"url"_s, QString(origin + QString::fromUtf8(target))},
                        {u"httpVersion"_s, u"HTTP/1.1"_s},
                        {u"cookies"_s, QJsonArray()},
                        {u"headers"_s, nameValues(headers)},
                        {u"queryString"_s, nameValues(query)},
                        {u"headersSize"_s, -1},
                        {u"bodySize"_s, length.isEmpty() ? -1 : length.toLongLong()}};
    if (!r.requestBody.isEmpty()) {
        const QString mime = headerValue(headers, "content-type");
        request.insert(u"postData"_s, QJsonObject{{u"mimeType"_s, mime.isEmpty() ? u"application/json"_s : mime},
                                                  {u"text"_s, QString::fromUtf8(CallLog::redactCredentials(r.requestBody))}});
    }
    return request;
}

QJsonObject response(const CallRecord &r)
{
    const HeaderList headers = CallInspection::parseHeaders(r.responseHeaders);
    const QByteArray text = !r.responseBody.isEmpty() ? CallLog::redactCredentials(r.responseBody) : r.errorBody;
    QString mime = headerValue(headers, "content-type");
    if (mime.isEmpty())
        mime = r.stream ? u"text/event-stream"_s : u"application/json"_s;
    QJsonObject content{{u"size"_s, text.isEmpty() ? 0 : qint64(text.size())}, {u"mimeType"_s, mime}};
    if (!text.isEmpty())
        content.insert(u"text"_s, QString::fromUtf8(text));
    if (r.responseBody.isEmpty())
        content.insert(u"comment"_s, text.isEmpty() ? u"The body was not logged (--log-bodies keeps bodies)."_s
                                                    : u"The upstream's error body, kept without --log-bodies."_s);
    const QString length = headerValue(headers, "content-length");
    return {{u"status"_s, r.status},
            {u"statusText"_s, r.status > 0 ? QString::fromLatin1(reasonPhrase(r.status)) : QString()},
            {u"httpVersion"_s, u"HTTP/1.1"_s},
            {u"cookies"_s, QJsonArray()},
            {u"headers"_s, nameValues(headers)},
            {u"content"_s, content},
            {u"redirectURL"_s, headerValue(headers, "location")},
            {u"headersSize"_s, -1},
            {u"bodySize"_s, length.isEmpty() ? -1 : length.toLongLong()}};
}

QJsonObject breakwaterView(const CallRecord &r)
{
    QJsonObject view{{u"requestId"_s, QString::fromLatin1(r.requestId)},
                     {u"outcome"_s, QString::fromLatin1(outcomeName(r.outcome))},
                     {u"ended"_s, QString::fromLatin1(endingName(endingOf(r)))},
                     {u"upstream"_s, QString::fromLatin1(r.upstream)},
                     {u"model"_s, r.model},
                     {u"keyFingerprint"_s, QString::fromLatin1(r.keyFingerprint)},
                     {u"keyInputs"_s, QString::fromUtf8(r.keyInputs)}};
    if (!r.errorKind.isEmpty())
        view.insert(u"errorKind"_s, QString::fromLatin1(r.errorKind));
    if (r.retryAttempt >= 0)
        view.insert(u"retryAttempt"_s, r.retryAttempt);
    if (!r.streamVerdict.isEmpty()) {
        view.insert(u"streamVerdict"_s, QString::fromLatin1(r.streamVerdict));
        view.insert(u"events"_s, r.eventCount);
        view.insert(u"maxEventGapMs"_s, r.maxEventGapMs);
        if (r.firstTokenAtMs > 0)
            view.insert(u"timeToFirstTokenMs"_s, r.firstTokenAtMs - r.receivedAtMs);
    }
    return view;
}

} // namespace

QJsonObject HarExport::document(const QList<CallRecord> &records, const QString &origin)
{
    QJsonArray entries;
    for (const CallRecord &r : records) {
        const qint64 total = std::max<qint64>(r.totalMs(), 0);
        const qint64 wait = r.firstByteAtMs > 0 ? std::clamp<qint64>(r.firstByteAtMs - r.receivedAtMs, 0, total) : total;
        const QJsonObject timings{{u"send"_s, 0}, {u"wait"_s, wait}, {u"receive"_s, total - wait}};
        entries.append(QJsonObject{
            {u"startedDateTime"_s, QDateTime::fromMSecsSinceEpoch(r.receivedAtMs, Qt::UTC).toString(Qt::ISODateWithMs)},
            {u"time"_s, total},
            {u"request"_s, request(r, origin)},
            {u"response"_s, response(r)},
            {u"cache"_s, QJsonObject()},
            {u"timings"_s, timings},
            {u"_breakwater"_s, breakwaterView(r)}});
    }
    const QJsonObject creator{{u"name"_s, u"Breakwater"_s}, {u"version"_s, QStringLiteral(BREAKWATER_VERSION)}};
    return {{u"log"_s, QJsonObject{{u"version"_s, u"1.2"_s}, {u"creator"_s, creator}, {u"entries"_s, entries}}}};
}

QByteArray HarExport::toJson(const QList<CallRecord> &records, const QString &origin)
{
    return QJsonDocument(document(records, origin)).toJson(QJsonDocument::Indented);
}
