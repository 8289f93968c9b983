// HAR export: the document must be HAR 1.2 as the spec lists it
// (http://www.softwareishard.com/blog/har-12-spec/): every required field of log, creator, entry,
// request, response, content, cache and timings present with the JSON type the spec gives, timings
// that add up to the entry's time, and what the record holds (headers, bodies, a stream's events,
// a failed call's error body) where a HAR reader looks for it.

#include "accounting/callinspection.h"
#include "accounting/callrecord.h"
#include "accounting/harexport.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTest>

using namespace Qt::StringLiterals;

namespace {

const QString kOrigin = u"http://127.0.0.1:8080"_s;

// The spec's required fields, per object, with their JSON type.
struct Required
{
    QString field;
    QJsonValue::Type type;
};
using Schema = QList<Required>;
const Schema kLog{{u"version"_s, QJsonValue::String}, {u"creator"_s, QJsonValue::Object}, {u"entries"_s, QJsonValue::Array}};
const Schema kCreator{{u"name"_s, QJsonValue::String}, {u"version"_s, QJsonValue::String}};
const Schema kEntry{{u"startedDateTime"_s, QJsonValue::String}, {u"time"_s, QJsonValue::Double},
                    {u"request"_s, QJsonValue::Object}, {u"response"_s, QJsonValue::Object},
                    {u"cache"_s, QJsonValue::Object}, {u"timings"_s, QJsonValue::Object}};
const Schema kRequest{{u"method"_s, QJsonValue::String}, {u"url"_s, QJsonValue::String},
                      {u"httpVersion"_s, QJsonValue::String}, {u"cookies"_s, QJsonValue::Array},
                      {u"headers"_s, QJsonValue::Array}, {u"queryString"_s, QJsonValue::Array},
                      {u"headersSize"_s, QJsonValue::Double}, {u"bodySize"_s, QJsonValue::Double}};
const Schema kResponse{{u"status"_s, QJsonValue::Double}, {u"statusText"_s, QJsonValue::String},
                       {u"httpVersion"_s, QJsonValue::String}, {u"cookies"_s, QJsonValue::Array},
                       {u"headers"_s, QJsonValue::Array}, {u"content"_s, QJsonValue::Object},
                       {u"redirectURL"_s, QJsonValue::String}, {u"headersSize"_s, QJsonValue::Double},
                       {u"bodySize"_s, QJsonValue::Double}};
const Schema kContent{{u"size"_s, QJsonValue::Double}, {u"mimeType"_s, QJsonValue::String}};
// The spec's params and text are mutually exclusive; a JSON body is text.
const Schema kPostData{{u"mimeType"_s, QJsonValue::String}, {u"text"_s, QJsonValue::String}};
const Schema kTimings{{u"send"_s, QJsonValue::Double}, {u"wait"_s, QJsonValue::Double},
                      {u"receive"_s, QJsonValue::Double}};
const Schema kNameValue{{u"name"_s, QJsonValue::String}, {u"value"_s, QJsonValue::String}};

// Empty when `object` has every field of `schema` with its type; else what is wrong.
QString check(const QJsonObject &object, const Schema &schema, const QString &where)
{
    for (const Required &required : schema) {
        if (!object.contains(required.field))
            return where + u'.' + required.field + u" is missing"_s;
        if (object.value(required.field).type() != required.type)
            return where + u'.' + required.field + u" has the wrong type"_s;
    }
    return {};
}

QString checkNameValues(const QJsonArray &list, const QString &where)
{
    for (const QJsonValue &item : list) {
        if (!item.isObject())
            return where + u" holds a non-object"_s;
        if (const QString wrong = check(item.toObject(), kNameValue, where); !wrong.isEmpty())
            return wrong;
    }
    return {};
}

CallRecord streamCall()
{
    CallRecord r;
    r.requestId = "bw-0000000000000001";
    r.method = "POST";
    r.route = "/v1/chat/completions";
    r.target = "/v1/chat/completions?trace=1&x=a%20b";
    r.upstream = "openai";
    r.model = u"gpt-4o-mini"_s;
    r.stream = true;
    r.status = 200;
    r.receivedAtMs = 1'700'000'000'123;
    r.upstreamStartAtMs = r.receivedAtMs + 2;
    r.firstByteAtMs = r.receivedAtMs + 250;
    r.endAtMs = r.receivedAtMs + 900;
    r.retryAttempt = 1;
    r.eventCount = 3;
    r.maxEventGapMs = 300;
    r.streamVerdict = "complete";
    r.firstTokenAtMs = r.receivedAtMs + 300;
    r.requestHeaders = CallInspection::recordHeaders({{"Authorization", "Bearer sk-secret-key-123456"},
                                                      {"Content-Type", "application/json"}});
    r.responseHeaders = CallInspection::recordHeaders({{"Content-Type", "text/event-stream"},
                                                       {"x-breakwater-dedup", "miss"}});
    r.requestBody = R"({"model":"gpt-4o-mini","stream":true})";
    r.responseBody = "data: {\"choices\":[]}\n\ndata: [DONE]\n\n";
    return r;
}

CallRecord failedCall()
{
    CallRecord r;
    r.method = "POST";
    r.route = "/v1/messages";
    r.upstream = "anthropic";
    r.status = 529;
    r.outcome = Outcome::Miss;
    r.receivedAtMs = 1'700'000'001'000;
    r.endAtMs = r.receivedAtMs + 40;   // no first byte recorded: all of it is wait
    r.errorBody = R"({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}})";
    return r;
}

} // namespace

class TestHarExport final : public QObject
{
    Q_OBJECT
private slots:
    void document_hasEveryRequiredFieldWithItsType();
    void entry_carriesTheRecordedCall();
    void failedCall_carriesItsErrorBodyWithoutLoggedBodies();
};

void TestHarExport::document_hasEveryRequiredFieldWithItsType()
{
    const QByteArray text = HarExport::toJson({streamCall(), failedCall()}, kOrigin);
    QJsonParseError error;
    const QJsonObject root = QJsonDocument::fromJson(text, &error).object();
    QCOMPARE(error.error, QJsonParseError::NoError);
    QVERIFY(root.value(u"log"_s).isObject());
    const QJsonObject log = root.value(u"log"_s).toObject();
    QCOMPARE(check(log, kLog, u"log"_s), QString());
    QCOMPARE(log.value(u"version"_s).toString(), u"1.2"_s);
    QCOMPARE(check(log.value(u"creator"_s).toObject(), kCreator, u"creator"_s), QString());
    const QJsonArray entries = log.value(u"entries"_s).toArray();
    QCOMPARE(entries.size(), 2);
    static const QRegularExpression iso8601(u"\\A\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}(Z|[+-]\\d\\d:\\d\\d)\\z"_s);
    for (const QJsonValue &value : entries) {
        const QJsonObject entry = value.toObject();
        QCOMPARE(check(entry, kEntry, u"entry"_s), QString());
        QVERIFY2(iso8601.match(entry.value(u"startedDateTime"_s).toString()).hasMatch(),
                 qPrintable(entry.value(u"startedDateTime"_s).toString()));
        const QJsonObject request = entry.value(u"request"_s).toObject();
        QCOMPARE(check(request, kRequest, u"request"_s), QString());
        QCOMPARE(checkNameValues(request.value(u"headers"_s).toArray(), u"request.headers"_s), QString());
        QCOMPARE(checkNameValues(request.value(u"queryString"_s).toArray(), u"request.queryString"_s), QString());
        if (request.contains(u"postData"_s))
            QCOMPARE(check(request.value(u"postData"_s).toObject(), kPostData, u"postData"_s), QString());
        const QJsonObject response = entry.value(u"response"_s).toObject();
        QCOMPARE(check(response, kResponse, u"response"_s), QString());
        QCOMPARE(checkNameValues(response.value(u"headers"_s).toArray(), u"response.headers"_s), QString());
        QCOMPARE(check(response.value(u"content"_s).toObject(), kContent, u"content"_s), QString());
        const QJsonObject timings = entry.value(u"timings"_s).toObject();
        QCOMPARE(check(timings, kTimings, u"timings"_s), QString());
        // The timings are non-negative and add up to the entry's time.
        double sum = 0;
        for (const QString &phase : {u"send"_s, u"wait"_s, u"receive"_s}) {
            QVERIFY(timings.value(phase).toDouble() >= 0);
            sum += timings.value(phase).toDouble();
        }
        QCOMPARE(sum, entry.value(u"time"_s).toDouble());
    }
}

void TestHarExport::entry_carriesTheRecordedCall()
{
    const QJsonObject entry = HarExport::document({streamCall()}, kOrigin)
                                  .value(u"log"_s).toObject().value(u"entries"_s).toArray().first().toObject();
    QCOMPARE(entry.value(u"startedDateTime"_s).toString(), u"2023-11-14T22:13:20.123Z"_s);
    QCOMPARE(entry.value(u"time"_s).toInt(), 900);
    QCOMPARE(entry.value(u"timings"_s).toObject().value(u"wait"_s).toInt(), 250);
    const QJsonObject request = entry.value(u"request"_s).toObject();
    QCOMPARE(request.value(u"url"_s).toString(), u"http://127.0.0.1:8080/v1/chat/completions?trace=1&x=a%20b"_s);
    const QJsonArray query = request.value(u"queryString"_s).toArray();
    QCOMPARE(query.size(), 2);
    QCOMPARE(query.at(1).toObject().value(u"value"_s).toString(), u"a b"_s);
    const QByteArray requestJson = QJsonDocument(request).toJson();
    QVERIFY2(!requestJson.contains("sk-secret-key"), requestJson.constData());
    QVERIFY(requestJson.contains("[redacted]"));
    QCOMPARE(request.value(u"postData"_s).toObject().value(u"text"_s).toString(), u"{\"model\":\"gpt-4o-mini\",\"stream\":true}"_s);
    QVERIFY(!request.value(u"postData"_s).toObject().contains(u"params"_s));
    const QJsonObject content = entry.value(u"response"_s).toObject().value(u"content"_s).toObject();
    QCOMPARE(content.value(u"mimeType"_s).toString(), u"text/event-stream"_s);
    QCOMPARE(content.value(u"text"_s).toString(), u"data: {\"choices\":[]}\n\ndata: [DONE]\n\n"_s);   // the events as text
    QCOMPARE(entry.value(u"response"_s).toObject().value(u"statusText"_s).toString(), u"OK"_s);
    const QJsonObject view = entry.value(u"_breakwater"_s).toObject();
    QCOMPARE(view.value(u"streamVerdict"_s).toString(), u"complete"_s);
    QCOMPARE(view.value(u"retryAttempt"_s).toInt(), 1);
    QCOMPARE(view.value(u"timeToFirstTokenMs"_s).toInt(), 300);
}

void TestHarExport::failedCall_carriesItsErrorBodyWithoutLoggedBodies()
{
    const QJsonObject entry = HarExport::document({failedCall()}, kOrigin)
                                  .value(u"log"_s).toObject().value(u"entries"_s).toArray().first().toObject();
    const QJsonObject request = entry.value(u"request"_s).toObject();
    QCOMPARE(request.value(u"url"_s).toString(), u"http://127.0.0.1:8080/v1/messages"_s);   // the route, for old rows
    QVERIFY(!request.contains(u"postData"_s));   // not logged: absent, as the spec allows
    const QJsonObject response = entry.value(u"response"_s).toObject();
    QCOMPARE(response.value(u"status"_s).toInt(), 529);
    const QJsonObject content = response.value(u"content"_s).toObject();
    QVERIFY(content.value(u"text"_s).toString().contains(u"overloaded_error"_s));
    QCOMPARE(content.value(u"size"_s).toInt(), int(failedCall().errorBody.size()));
    QCOMPARE(entry.value(u"timings"_s).toObject().value(u"wait"_s).toInt(), 40);
}

QTEST_GUILESS_MAIN(TestHarExport)
#include "tst_harexport.moc"
