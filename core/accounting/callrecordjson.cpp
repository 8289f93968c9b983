#include "accounting/callrecordjson.h"

#include "accounting/callending.h"
#include "accounting/callrecord.h"

using namespace Qt::StringLiterals;

namespace {

// The record's fields, each once: its name, how it is written and how it is read. Both
// directions walk this one list, so a field added to it cannot be written and not read.
struct Field
{
    QString name;
    QJsonValue (*write)(const CallRecord &);
    void (*read)(CallRecord &, const QJsonValue &);
};

#define BYTES(member) \
    Field{QStringLiteral(#member), [](const CallRecord &r) { return QJsonValue(QString::fromUtf8(r.member)); }, \
          [](CallRecord &r, const QJsonValue &v) { r.member = v.toString().toUtf8(); }}
#define TEXT(member) \
    Field{QStringLiteral(#member), [](const CallRecord &r) { return QJsonValue(r.member); }, \
          [](CallRecord &r, const QJsonValue &v) { r.member = v.toString(); }}
#define INT64(member) \
    Field{QStringLiteral(#member), [](const CallRecord &r) { return QJsonValue(qint64(r.member)); }, \
          [](CallRecord &r, const QJsonValue &v) { r.member = v.toInteger(r.member); }}
#define NUMBER(member) \
    Field{QStringLiteral(#member), [](const CallRecord &r) { return QJsonValue(r.member); }, \
          [](CallRecord &r, const QJsonValue &v) { r.member = v.toDouble(r.member); }}

const QList<Field> &fields()
{
    static const QList<Field> list{
        BYTES(requestId), BYTES(route), BYTES(upstream), BYTES(fallbackFrom), BYTES(fallbackTo), TEXT(model),
        Field{u"stream"_s, [](const CallRecord &r) { return QJsonValue(r.stream); },
              [](CallRecord &r, const QJsonValue &v) { r.stream = v.toBool(); }},
        BYTES(keyFingerprint), BYTES(credentialFingerprint), TEXT(clientAddress),
        Field{u"outcome"_s, [](const CallRecord &r) { return QJsonValue(QString::fromLatin1(outcomeName(r.outcome))); },
              [](CallRecord &r, const QJsonValue &v) { r.outcome = outcomeFromName(v.toString().toUtf8()); }},
        Field{u"status"_s, [](const CallRecord &r) { return QJsonValue(r.status); },
              [](CallRecord &r, const QJsonValue &v) { r.status = v.toInt(); }},
        BYTES(errorKind), BYTES(breakerState), TEXT(member), TEXT(injected),
        INT64(receivedAtMs), INT64(upstreamStartAtMs), INT64(firstByteAtMs), INT64(endAtMs), INT64(queueWaitMs),
        INT64(inputTokens), INT64(outputTokens), INT64(cachedTokens), NUMBER(costUsd), NUMBER(costSavedUsd),
        BYTES(requestBody), BYTES(responseBody), BYTES(method), BYTES(target), BYTES(requestHeaders),
        BYTES(responseHeaders), BYTES(keyInputs),
        Field{u"retryAttempt"_s, [](const CallRecord &r) { return QJsonValue(r.retryAttempt); },
              [](CallRecord &r, const QJsonValue &v) { r.retryAttempt = v.toInt(r.retryAttempt); }},
        BYTES(errorBody), INT64(firstTokenAtMs), INT64(maxEventGapMs), INT64(eventCount), BYTES(streamVerdict),
    };
    return list;
}

#undef BYTES
#undef TEXT
#undef INT64
#undef NUMBER

} // namespace

QJsonObject callRecordToJson(const CallRecord &record)
{
    QJsonObject json;
    for (const Field &field : fields())
        json.insert(field.name, field.write(record));
    return json;
}

CallRecord callRecordFromJson(const QJsonObject &json)
{
    CallRecord record;
    for (const Field &field : fields()) {
        const QJsonValue value = json.value(field.name);
        if (!value.isUndefined() && !value.isNull())
            field.read(record, value);
    }
    return record;
}
