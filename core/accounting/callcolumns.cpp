#include "accounting/callcolumns.h"

#include <iterator>
#include <span>
#include <type_traits>
#include <utility>

#include <QSqlQuery>
#include <QStringList>
#include <QVariant>

#include "accounting/callending.h"
#include "accounting/callinspection.h"
#include "accounting/calllog.h"

using namespace Qt::StringLiterals;

namespace {

// Writes a record's field as the value bound to the column; `storeBodies` is --log-bodies.
using Writer = QVariant (*)(const CallRecord &record, bool storeBodies);
// Sets the record's field from the column's value.
using Reader = void (*)(CallRecord &record, const QVariant &value);

struct Column
{
    QStringView name;
    QStringView type;       // as in the shipped CREATE TABLE
    Writer write = nullptr;
    Reader read = nullptr;  // null: derived, not read back
};

template <auto Field>
using FieldType = std::remove_cvref_t<decltype(std::declval<CallRecord>().*Field)>;

// Text, from a QString or from UTF-8 bytes. Stored as TEXT either way: a BLOB would never equal
// 'miss' in a query.
template <auto Field>
constexpr Column text(QStringView name, QStringView type)
{
    constexpr bool bytes = std::is_same_v<FieldType<Field>, QByteArray>;
    return {name, type,
            [](const CallRecord &r, bool) -> QVariant {
                if constexpr (bytes)
                    return QString::fromUtf8(r.*Field);
                else
                    return r.*Field;
            },
            [](CallRecord &r, const QVariant &v) {
                if constexpr (bytes)
                    r.*Field = v.toString().toUtf8();
                else
                    r.*Field = v.toString();
            }};
}

// A number stored as it is; a bool as 0 or 1 (SQLite has no boolean).
template <auto Field>
constexpr Column number(QStringView name, QStringView type)
{
    using T = FieldType<Field>;
    return {name, type,
            [](const CallRecord &r, bool) -> QVariant {
                if constexpr (std::is_same_v<T, bool>)
                    return int(r.*Field);
                else
                    return r.*Field;
            },
            [](CallRecord &r, const QVariant &v) { r.*Field = v.value<T>(); }};
}

// A wall-clock time: 0 means it did not happen and is stored as NULL, which reads back as 0.
template <auto Field>
constexpr Column timestamp(QStringView name, QStringView type)
{
    return {name, type,
            [](const CallRecord &r, bool) {
                return r.*Field > 0 ? QVariant(r.*Field) : QVariant(QMetaType::fromType<qint64>());
            },
            [](CallRecord &r, const QVariant &v) { r.*Field = v.toLongLong(); }};
}

// A count or cost that may be unknown (negative in the record): stored as NULL, read back as -1.
template <auto Field>
constexpr Column orUnknown(QStringView name, QStringView type)
{
    using T = FieldType<Field>;
    return {name, type,
            [](const CallRecord &r, bool) {
                return r.*Field >= 0 ? QVariant(r.*Field) : QVariant(QMetaType::fromType<T>());
            },
            [](CallRecord &r, const QVariant &v) { r.*Field = v.isNull() ? T(-1) : v.value<T>(); }};
}

// The milliseconds from one time to another, NULL unless both happened. Derived: not read back.
template <auto From, auto To>
constexpr Column span(QStringView name, QStringView type)
{
    return {name, type,
            [](const CallRecord &r, bool) {
                return r.*From > 0 && r.*To > 0 ? QVariant(r.*To - r.*From) : QVariant(QMetaType::fromType<qint64>());
            },
            nullptr};
}

// A request or response body: written only with --log-bodies, credentials redacted; NULL otherwise.
template <auto Field>
constexpr Column body(QStringView name, QStringView type)
{
    return {name, type,
            [](const CallRecord &r, bool storeBodies) {
                return storeBodies && !(r.*Field).isEmpty() ? QVariant(CallLog::redactCredentials(r.*Field))
                                                            : QVariant(QMetaType::fromType<QByteArray>());
            },
            [](CallRecord &r, const QVariant &v) { r.*Field = v.toByteArray(); }};
}

// Bytes recorded always, already bounded and redacted by the proxy (accounting/callinspection.h);
// NULL when empty.
template <auto Field>
constexpr Column blob(QStringView name, QStringView type)
{
    return {name, type,
            [](const CallRecord &r, bool) {
                return !(r.*Field).isEmpty() ? QVariant(r.*Field) : QVariant(QMetaType::fromType<QByteArray>());
            },
            [](CallRecord &r, const QVariant &v) { r.*Field = v.toByteArray(); }};
}

// Text recorded always that could hold a secret (a target's ?key=, the upstream's userinfo in the
// key's inputs): redacted by the proxy when recorded, and by `Redact` again when written and read
// back, so that a row written before those were left out never leaves the log with one either.
template <auto Field, QByteArray (*Redact)(const QByteArray &)>
constexpr Column redacted(QStringView name, QStringView type)
{
    return {name, type,
            [](const CallRecord &r, bool) -> QVariant { return QString::fromUtf8(Redact(r.*Field)); },
            [](CallRecord &r, const QVariant &v) { r.*Field = Redact(v.toString().toUtf8()); }};
}

// The calls table after its id, in on-disk order.
constexpr Column kColumns[] = {
    text<&CallRecord::requestId>(u"request_id", u"TEXT"),
    number<&CallRecord::receivedAtMs>(u"received_at_ms", u"INTEGER NOT NULL"),
    timestamp<&CallRecord::upstreamStartAtMs>(u"upstream_start_at_ms", u"INTEGER"),
    timestamp<&CallRecord::firstByteAtMs>(u"first_byte_at_ms", u"INTEGER"),
    timestamp<&CallRecord::endAtMs>(u"end_at_ms", u"INTEGER"),
    text<&CallRecord::route>(u"route", u"TEXT"),
    text<&CallRecord::upstream>(u"upstream", u"TEXT"),
    text<&CallRecord::model>(u"model", u"TEXT"),
    number<&CallRecord::stream>(u"stream", u"INTEGER"),
    text<&CallRecord::keyFingerprint>(u"key_fp", u"TEXT"),
    text<&CallRecord::credentialFingerprint>(u"credential_fp", u"TEXT"),
    text<&CallRecord::clientAddress>(u"client_address", u"TEXT"),
    {u"outcome", u"TEXT NOT NULL",
     [](const CallRecord &r, bool) -> QVariant { return QString::fromUtf8(outcomeName(r.outcome)); },
     [](CallRecord &r, const QVariant &v) { r.outcome = outcomeFromName(v.toString().toUtf8()); }},
    number<&CallRecord::status>(u"status", u"INTEGER"),
    text<&CallRecord::errorKind>(u"error_kind", u"TEXT"),
    text<&CallRecord::breakerState>(u"breaker_state", u"TEXT"),
    number<&CallRecord::queueWaitMs>(u"queue_wait_ms", u"INTEGER"),
    span<&CallRecord::upstreamStartAtMs, &CallRecord::endAtMs>(u"upstream_ms", u"INTEGER"),
    span<&CallRecord::receivedAtMs, &CallRecord::firstByteAtMs>(u"ttfb_ms", u"INTEGER"),
    span<&CallRecord::receivedAtMs, &CallRecord::endAtMs>(u"total_ms", u"INTEGER"),
    orUnknown<&CallRecord::inputTokens>(u"input_tokens", u"INTEGER"),
    orUnknown<&CallRecord::outputTokens>(u"output_tokens", u"INTEGER"),
    orUnknown<&CallRecord::cachedTokens>(u"cached_tokens", u"INTEGER"),
    orUnknown<&CallRecord::costUsd>(u"cost_usd", u"REAL"),
    number<&CallRecord::costSavedUsd>(u"cost_saved_usd", u"REAL"),
    body<&CallRecord::requestBody>(u"request_body", u"BLOB"),
    body<&CallRecord::responseBody>(u"response_body", u"BLOB"),
    // Schema 2. How the call ended (accounting/callending.h), for people querying the file; derived
    // from outcome, status and error_kind, so it is not read back.
    {u"ended", u"TEXT",
     [](const CallRecord &r, bool) -> QVariant { return QString::fromLatin1(endingName(endingOf(r))); }, nullptr},
    // Schema 3. The fault rule that made the answer (faults/faultrule.h), NULL for a real one.
    {u"injected", u"TEXT",
     [](const CallRecord &r, bool) { return r.injected.isEmpty() ? QVariant(QMetaType::fromType<QString>()) : QVariant(r.injected); },
     [](CallRecord &r, const QVariant &v) { r.injected = v.toString(); }},
    // Schema 4. Inside the call: recorded always, bounded and redacted (accounting/callinspection.h).
    text<&CallRecord::method>(u"method", u"TEXT"),
    redacted<&CallRecord::target, &CallInspection::redactTarget>(u"target", u"TEXT"),
    text<&CallRecord::requestHeaders>(u"request_headers", u"TEXT"),
    text<&CallRecord::responseHeaders>(u"response_headers", u"TEXT"),
    redacted<&CallRecord::keyInputs, &CallInspection::redactKeyInputs>(u"key_inputs", u"TEXT"),
    orUnknown<&CallRecord::retryAttempt>(u"retry_attempt", u"INTEGER"),
    blob<&CallRecord::errorBody>(u"error_body", u"BLOB"),
    timestamp<&CallRecord::firstTokenAtMs>(u"first_token_at_ms", u"INTEGER"),
    orUnknown<&CallRecord::maxEventGapMs>(u"max_event_gap_ms", u"INTEGER"),
    orUnknown<&CallRecord::eventCount>(u"event_count", u"INTEGER"),
    text<&CallRecord::streamVerdict>(u"stream_verdict", u"TEXT"),
    // Schema 5. The team member (--access-tokens), NULL without a team.
    {u"member", u"TEXT",
     [](const CallRecord &r, bool) { return r.member.isEmpty() ? QVariant(QMetaType::fromType<QString>()) : QVariant(r.member); },
     [](CallRecord &r, const QVariant &v) { r.member = v.toString(); }},
    // Schema 6. The upstream the call was meant for when its fallback answered it, NULL otherwise.
    {u"fallback_from", u"TEXT",
     [](const CallRecord &r, bool) {
         return r.fallbackFrom.isEmpty() ? QVariant(QMetaType::fromType<QString>()) : QVariant(QString::fromUtf8(r.fallbackFrom));
     },
     [](CallRecord &r, const QVariant &v) { r.fallbackFrom = v.toString().toUtf8(); }},
    // Schema 7. On a fell_back row (the refused attempt), the fallback that answered; NULL otherwise.
    {u"fallback_to", u"TEXT",
     [](const CallRecord &r, bool) {
         return r.fallbackTo.isEmpty() ? QVariant(QMetaType::fromType<QString>()) : QVariant(QString::fromUtf8(r.fallbackTo));
     },
     [](CallRecord &r, const QVariant &v) { r.fallbackTo = v.toString().toUtf8(); }},
};
constexpr int kColumnCount = int(std::size(kColumns));
static_assert(kColumnCount == CallColumns::kSchema7Columns);

QString names()
{
    QStringList names;
    for (const Column &column : kColumns)
        names.append(column.name.toString());
    return names.join(u", ");
}

} // namespace

QString CallColumns::createTable(qsizetype columns)
{
    QStringList definitions{u"id INTEGER PRIMARY KEY"_s};
    for (const Column &column : std::span(kColumns).first(columns))
        definitions.append(column.name + u' ' + column.type);
    return u"CREATE TABLE calls (%1)"_s.arg(definitions.join(u", "));
}

QStringList CallColumns::addColumns(qsizetype from, qsizetype to)
{
    QStringList statements;
    for (const Column &column : std::span(kColumns).subspan(from, to - from))
        statements.append(u"ALTER TABLE calls ADD COLUMN "_s + column.name + u' ' + column.type);
    return statements;
}

QString CallColumns::insertStatement()
{
    static const QString statement =
        u"INSERT INTO calls (%1) VALUES (?%2)"_s.arg(names(), u", ?"_s.repeated(kColumnCount - 1));
    return statement;
}

void CallColumns::bind(QSqlQuery &insert, const CallRecord &record, bool storeBodies)
{
    for (int i = 0; i < kColumnCount; ++i)
        insert.bindValue(i, kColumns[i].write(record, storeBodies));
}

QString CallColumns::selectStatement(const QString &clauses)
{
    static const QString select = u"SELECT %1 FROM calls "_s.arg(names());
    return select + clauses;
}

CallRecord CallColumns::read(const QSqlQuery &query)
{
    CallRecord record;
    for (int i = 0; i < kColumnCount; ++i) {
        if (kColumns[i].read)
            kColumns[i].read(record, query.value(i));
    }
    return record;
}
