#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QScopeGuard>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

#include "accounting/calllog.h"
#include "privatefiles.h"

using namespace Qt::StringLiterals;

namespace {

// The first column of every row, read with a connection of the test's own, as another process would.
QVariantList column(const QString &path, const QString &sql)
{
    QVariantList values;
    {
        QSqlDatabase db = QSqlDatabase::addDatabase(u"QSQLITE"_s, u"test-reader"_s);
        db.setDatabaseName(path);
        if (db.open()) {
            QSqlQuery query(db);
            if (!query.exec(sql))
                qWarning() << sql << query.lastError().text();
            while (query.next())
                values.append(query.value(0));
        }
    }
    QSqlDatabase::removeDatabase(u"test-reader"_s);
    return values;
}

// Reads one value.
QVariant scalar(const QString &path, const QString &sql)
{
    return column(path, sql).value(0);
}

// Schema 1 exactly as the first release created it: the table and indexes users' databases hold.
// Never edit these to match the code; the code has to match them.
const QStringList kReleasedSchema1{
    u"CREATE TABLE calls (id INTEGER PRIMARY KEY, request_id TEXT, received_at_ms INTEGER NOT NULL,"
    " upstream_start_at_ms INTEGER, first_byte_at_ms INTEGER, end_at_ms INTEGER,"
    " route TEXT, upstream TEXT, model TEXT, stream INTEGER, key_fp TEXT, credential_fp TEXT,"
    " client_address TEXT, outcome TEXT NOT NULL, status INTEGER, error_kind TEXT,"
    " breaker_state TEXT, queue_wait_ms INTEGER, upstream_ms INTEGER, ttfb_ms INTEGER,"
    " total_ms INTEGER, input_tokens INTEGER, output_tokens INTEGER, cached_tokens INTEGER,"
    " cost_usd REAL, cost_saved_usd REAL, request_body BLOB, response_body BLOB)"_s,
    u"CREATE INDEX calls_received ON calls(received_at_ms)"_s,
    u"CREATE INDEX calls_key ON calls(key_fp)"_s,
};

// Every field of a record, to compare two records in one go.
QVariantList fields(const CallRecord &r)
{
    return {r.requestId, r.route, r.upstream, r.model, r.stream, r.keyFingerprint, r.credentialFingerprint,
            r.clientAddress, int(r.outcome), r.status, r.errorKind, r.breakerState, r.receivedAtMs,
            r.upstreamStartAtMs, r.firstByteAtMs, r.endAtMs, r.queueWaitMs, r.inputTokens, r.outputTokens,
            r.cachedTokens, r.costUsd, r.costSavedUsd, r.requestBody, r.responseBody, r.injected,
            r.method, r.target, r.requestHeaders, r.responseHeaders, r.keyInputs, r.retryAttempt, r.errorBody,
            r.firstTokenAtMs, r.maxEventGapMs, r.eventCount, r.streamVerdict, r.fallbackFrom, r.fallbackTo};
}

// The columns schemas 2, 3 and 4 added, as SQLite's ALTER TABLE leaves them in the table's statement.
const QString kSchema2Added = u", ended TEXT"_s;
const QString kSchema3Added = u", injected TEXT"_s;
const QString kSchema4Added = u", method TEXT, target TEXT, request_headers TEXT, response_headers TEXT,"
                              " key_inputs TEXT, retry_attempt INTEGER, error_body BLOB, first_token_at_ms INTEGER,"
                              " max_event_gap_ms INTEGER, event_count INTEGER, stream_verdict TEXT"_s;
const QString kSchema5Added = u", member TEXT"_s;
const QString kSchema6Added = u", fallback_from TEXT"_s;
const QString kSchema7Added = u", fallback_to TEXT"_s;

// The statements that make the database schema `version` shipped: schema 1's, then each later
// column (`added`, as the kSchemaNAdded lists) by ALTER TABLE, then its user_version.
QStringList schemaAsShipped(int version, const QString &added)
{
    QStringList statements = kReleasedSchema1;
    for (const QString &column : added.split(u", "_s, Qt::SkipEmptyParts))
        statements.append(u"ALTER TABLE calls ADD COLUMN "_s + column.trimmed());
    statements.append(u"PRAGMA user_version = %1"_s.arg(version));
    return statements;
}

CallRecord call(Outcome outcome, qint64 atMs, const QByteArray &key = "0123456789ab")
{
    CallRecord r;
    r.requestId = "req-" + QByteArray::number(atMs);
    r.route = "/v1/chat/completions";
    r.upstream = "openai";
    r.model = u"gpt-4o-mini"_s;
    r.keyFingerprint = key;
    r.credentialFingerprint = "c0ffee000001";
    r.clientAddress = u"127.0.0.1"_s;
    r.outcome = outcome;
    r.status = 200;
    r.breakerState = "closed";
    r.receivedAtMs = atMs;
    r.endAtMs = atMs + 40;
    return r;
}

} // namespace

// The call log: every field on record, batching on its own thread, schema, retention, failures
// that leave the proxy serving, and a writer killed mid-load.
class TestCallLog : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void open_createsVersionedSchemaInWalMode();
    void open_createsTheReleasedSchemaByteForByte();
    void releasedDatabase_readsBackAndIsWrittenAsBefore();
    void mixedRun_everyFieldRoundTrips();
    void schema2Database_migratesToSchema4AndKeepsItsRows();
    void schema5Database_migratesToSchema6_andAFallbackRoundTrips();
    void schema6Database_migratesToSchema7_andARefusedAttemptRoundTrips();
    void insideTheCall_roundTripsWithoutLogBodies();
    void bodies_storedOnlyWhenAskedAndRedacted();
    void queryKeysAndUserinfo_neverReachTheFileNorComeBackFromIt();
    void append_writesInBatchesNotPerRow();
    void append_isCommittedWithinTheFlushIntervalWithoutFlush();
    void closedLog_ignoresAppends();
    void badDatabase_openFailsWithAClearMessage_data();
    void badDatabase_openFailsWithAClearMessage();
    void reopen_keepsRows();
    void retention_prunesByAgeAndRowCountOnOpen();
    void spentOnDay_countsOnlyCallsOfThatLocalDay();
    void between_readsTheCallsReceivedInAnInterval_oldestFirst();
    void defaultPath_isInAppDataAndFolderExists();
    void open_createsFolderAndFilesForTheOwnerOnly_data();
    void open_createsFolderAndFilesForTheOwnerOnly();
    void open_tightensALooserLogButNotAFolderItDidNotMake();
    void defaultPath_makesItsFolderOwnerOnly();
    void writePrivateFile_isTheOwnersWhateverTheUmaskOrTheFileBefore_data();
    void writePrivateFile_isTheOwnersWhateverTheUmaskOrTheFileBefore();
    void killedWriter_losesAtMostTheLastSecondAndStaysIntact();

private:
    QTemporaryDir m_dir;
    QString m_path;
    int m_serial = 0;
};

void TestCallLog::init()
{
    m_path = m_dir.filePath(u"calls-%1.sqlite"_s.arg(++m_serial));
}

void TestCallLog::open_createsVersionedSchemaInWalMode()
{
    CallLog log;
    const Result opened = log.open(m_path);
    QVERIFY2(opened.ok(), qPrintable(opened.error()));
    QVERIFY(log.isOpen());
    QCOMPARE(scalar(m_path, u"PRAGMA user_version"_s).toInt(), CallLog::kSchemaVersion);
    QCOMPARE(scalar(m_path, u"PRAGMA journal_mode"_s).toString(), u"wal"_s);
    QCOMPARE(scalar(m_path, u"SELECT COUNT(*) FROM calls"_s).toInt(), 0);
}

void TestCallLog::open_createsTheReleasedSchemaByteForByte()
{
    CallLog log;
    const Result opened = log.open(m_path);
    QVERIFY2(opened.ok(), qPrintable(opened.error()));
    QStringList schema;
    for (const QVariant &sql : column(m_path, u"SELECT sql FROM sqlite_master ORDER BY rowid"_s))
        schema.append(sql.toString());
    // Schema 1 as released, then schema 2's, 3's, 4's, 5's and 6's columns as SQLite's ALTER TABLE leaves the
    // statement.
    QStringList expected = kReleasedSchema1;
    expected[0].replace(u"response_body BLOB)"_s,
                        u"response_body BLOB"_s + kSchema2Added + kSchema3Added + kSchema4Added + kSchema5Added + kSchema6Added + kSchema7Added + u')');
    QCOMPARE(schema, expected);
}

// A database the first release wrote: its schema, one row as its writer stored it. The new code
// opens it, reads the row back field for field, and stores the same record exactly the same way.
void TestCallLog::releasedDatabase_readsBackAndIsWrittenAsBefore()
{
    const qint64 t = QDateTime::currentMSecsSinceEpoch() - 60'000;   // within the retention
    CallRecord released;
    released.requestId = "req-released";
    released.route = "/v1/messages";
    released.upstream = "anthropic";
    released.model = u"claude-3-5-haiku-latest"_s;
    released.stream = true;
    released.keyFingerprint = "fedcba987654";
    released.credentialFingerprint = "c0ffee000001";
    released.clientAddress = u"::1"_s;
    released.outcome = Outcome::Miss;
    released.status = 200;
    released.breakerState = "half-open";
    released.receivedAtMs = t;
    released.upstreamStartAtMs = t + 3;
    released.endAtMs = t + 900;   // no first byte: a stream cut before it began
    released.queueWaitMs = 3;
    released.inputTokens = 1200;
    released.outputTokens = 85;
    released.costUsd = 0.375;
    released.requestBody = R"({"model":"claude-3-5-haiku-latest"})";
    {
        QSqlDatabase db = QSqlDatabase::addDatabase(u"QSQLITE"_s, u"release-writer"_s);
        db.setDatabaseName(m_path);
        QVERIFY(db.open());
        QSqlQuery query(db);
        for (const QString &statement : kReleasedSchema1)
            QVERIFY2(query.exec(statement), qPrintable(query.lastError().text()));
        QVERIFY(query.exec(u"PRAGMA user_version = 1"_s));
        // A time that did not happen, empty text, an unknown count and an empty body are NULL; the
        // durations are derived from the times.
        QVERIFY2(query.exec(u"INSERT INTO calls (request_id, received_at_ms, upstream_start_at_ms,"
                            " first_byte_at_ms, end_at_ms, route, upstream, model, stream, key_fp, credential_fp,"
                            " client_address, outcome, status, error_kind, breaker_state, queue_wait_ms,"
                            " upstream_ms, ttfb_ms, total_ms, input_tokens, output_tokens, cached_tokens,"
                            " cost_usd, cost_saved_usd, request_body, response_body)"
                            " VALUES ('req-released', %1, %2, NULL, %3, '/v1/messages', 'anthropic',"
                            " 'claude-3-5-haiku-latest', 1, 'fedcba987654', 'c0ffee000001', '::1', 'miss', 200,"
                            " NULL, 'half-open', 3, 897, NULL, 900, 1200, 85, NULL, 0.375, 0.0,"
                            " CAST('{\"model\":\"claude-3-5-haiku-latest\"}' AS BLOB), NULL)"_s
                                .arg(t).arg(t + 3).arg(t + 900)),
                 qPrintable(query.lastError().text()));
    }
    QSqlDatabase::removeDatabase(u"release-writer"_s);

    CallLog log;
    log.setStoreBodies(true);
    const Result opened = log.open(m_path);
    QVERIFY2(opened.ok(), qPrintable(opened.error()));
    QList<CallRecord> back = log.recent(10);
    QCOMPARE(back.size(), 1);
    QCOMPARE(fields(back.first()), fields(released));

    log.append(released);
    log.flush();
    back = log.recent(10);
    QCOMPARE(back.size(), 2);
    QCOMPARE(fields(back.last()), fields(released));
    const QVariantList names = column(m_path, u"SELECT name FROM pragma_table_info('calls') WHERE name != 'id'"_s);
    QCOMPARE(names.size(), 43);   // schema 2 added `ended`, filled for the released row; 3 `injected`; 4 eleven more; 5 `member`; 6 `fallback_from`; 7 `fallback_to`
    for (const QVariant &name : names) {
        const QVariantList stored = column(m_path, u"SELECT typeof(%1) || ' ' || quote(%1) FROM calls ORDER BY id"_s
                                                       .arg(name.toString()));
        QCOMPARE(stored.size(), 2);
        QVERIFY2(stored[1] == stored[0], qPrintable(u"%1: released %2, now %3"_s.arg(name.toString(),
                                                        stored[0].toString(), stored[1].toString())));
    }
}

void TestCallLog::mixedRun_everyFieldRoundTrips()
{
    const qint64 t = QDateTime::currentMSecsSinceEpoch() - 60'000;
    CallRecord miss = call(Outcome::Miss, t);
    miss.upstreamStartAtMs = t + 3;
    miss.firstByteAtMs = t + 250;
    miss.endAtMs = t + 900;
    miss.queueWaitMs = 3;
    miss.inputTokens = 1200;
    miss.outputTokens = 85;
    miss.cachedTokens = 1024;
    miss.costUsd = 0.000231;
    CallRecord joined = call(Outcome::Joined, t + 10);
    joined.clientAddress = u"::1"_s;
    joined.costUsd = 0.000231;
    joined.costSavedUsd = 0.000231;
    CallRecord hit = call(Outcome::Hit, t + 2000);
    hit.costSavedUsd = 0.000231;
    CallRecord refused = call(Outcome::BreakerRefused, t + 3000, {});
    refused.status = 503;
    refused.breakerState = "open";
    CallRecord spend = call(Outcome::SpendRefused, t + 3100, {});
    spend.status = 429;
    CallRecord error = call(Outcome::Error, t + 4000);
    error.status = 504;
    error.errorKind = "timeout";
    error.upstreamStartAtMs = t + 4001;
    error.injected = u"#1 hang"_s;   // an injected fault's record names its rule
    CallRecord stream = call(Outcome::Bypass, t + 5000, "fedcba987654");
    stream.upstream = "anthropic";
    stream.route = "/v1/messages";
    stream.model = u"claude-3-5-haiku-latest"_s;
    stream.stream = true;
    stream.firstByteAtMs = t + 5100;
    stream.inputTokens = 35;
    stream.outputTokens = 17;
    stream.cachedTokens = 10;
    stream.costUsd = 0.0001;
    const QList<CallRecord> records{miss, joined, hit, refused, spend, error, stream};

    CallLog log;
    const Result opened = log.open(m_path);
    QVERIFY2(opened.ok(), qPrintable(opened.error()));
    for (const CallRecord &r : records)
        log.append(r);
    const QList<CallRecord> back = log.recent(100);
    QCOMPARE(back.size(), records.size());
    for (qsizetype i = 0; i < records.size(); ++i) {
        const CallRecord &a = records[i];
        const CallRecord &b = back[i];
        QCOMPARE(b.requestId, a.requestId);
        QCOMPARE(b.route, a.route);
        QCOMPARE(b.upstream, a.upstream);
        QCOMPARE(b.model, a.model);
        QCOMPARE(b.stream, a.stream);
        QCOMPARE(b.keyFingerprint, a.keyFingerprint);
        QCOMPARE(b.credentialFingerprint, a.credentialFingerprint);
        QCOMPARE(b.clientAddress, a.clientAddress);
        QCOMPARE(b.outcome, a.outcome);
        QCOMPARE(b.status, a.status);
        QCOMPARE(b.errorKind, a.errorKind);
        QCOMPARE(b.breakerState, a.breakerState);
        QCOMPARE(b.receivedAtMs, a.receivedAtMs);
        QCOMPARE(b.upstreamStartAtMs, a.upstreamStartAtMs);
        QCOMPARE(b.firstByteAtMs, a.firstByteAtMs);
        QCOMPARE(b.endAtMs, a.endAtMs);
        QCOMPARE(b.queueWaitMs, a.queueWaitMs);
        QCOMPARE(b.inputTokens, a.inputTokens);
        QCOMPARE(b.outputTokens, a.outputTokens);
        QCOMPARE(b.cachedTokens, a.cachedTokens);
        QCOMPARE(b.costUsd, a.costUsd);
        QCOMPARE(b.costSavedUsd, a.costSavedUsd);
    }
    // The derived timings, for anyone querying the file directly.
    QCOMPARE(scalar(m_path, u"SELECT upstream_ms FROM calls WHERE outcome = 'miss'"_s).toLongLong(), 897);
    QCOMPARE(scalar(m_path, u"SELECT ttfb_ms FROM calls WHERE outcome = 'miss'"_s).toLongLong(), 250);
    QCOMPARE(scalar(m_path, u"SELECT total_ms FROM calls WHERE outcome = 'miss'"_s).toLongLong(), 900);
    QVERIFY(scalar(m_path, u"SELECT cost_usd FROM calls WHERE outcome = 'hit'"_s).isNull());   // unknown, not 0
    QCOMPARE(scalar(m_path, u"SELECT COUNT(*) FROM calls WHERE outcome = 'breaker_refused'"_s).toInt(), 1);
    QCOMPARE(scalar(m_path, u"SELECT typeof(route) FROM calls LIMIT 1"_s).toString(), u"text"_s);
    QCOMPARE(log.recent(2).size(), 2);
    QCOMPARE(log.recent(2).last().model, stream.model);   // the newest, oldest first
}

// A database schema 5 wrote (before fallbacks): opened, it gains `fallback_from`, NULL for its row,
// and a fallback's record reads back naming the upstream it was meant for.
void TestCallLog::schema5Database_migratesToSchema6_andAFallbackRoundTrips()
{
    const qint64 t = QDateTime::currentMSecsSinceEpoch() - 60'000;
    QStringList schema5 = schemaAsShipped(5, kSchema2Added + kSchema3Added + kSchema4Added + kSchema5Added);
    schema5 += {u"INSERT INTO calls (request_id, received_at_ms, end_at_ms, route, upstream, model, stream, key_fp,"
                " outcome, status, breaker_state, queue_wait_ms, cost_saved_usd, member)"
                " VALUES ('req-v5', %1, %2, '/v1/chat/completions', 'openai', 'gpt-4o-mini', 0, '0123456789ab',"
                " 'miss', 200, 'closed', 0, 0.0, 'ana')"_s.arg(t).arg(t + 40)};
    for (const QString &statement : std::as_const(schema5))
        scalar(m_path, statement);
    QCOMPARE(scalar(m_path, u"PRAGMA user_version"_s).toInt(), 5);

    CallLog log;
    const Result opened = log.open(m_path);
    QVERIFY2(opened.ok(), qPrintable(opened.error()));
    QCOMPARE(scalar(m_path, u"PRAGMA user_version"_s).toInt(), CallLog::kSchemaVersion);
    QVERIFY(scalar(m_path, u"SELECT fallback_from FROM calls WHERE request_id = 'req-v5'"_s).isNull());
    CallRecord fell = call(Outcome::Miss, t + 100);
    fell.upstream = "cloud";
    fell.fallbackFrom = "local";
    log.append(fell);
    const QList<CallRecord> back = log.recent(10);
    QCOMPARE(back.size(), 2);
    QCOMPARE(back[0].member, u"ana"_s);
    QCOMPARE(back[0].fallbackFrom, QByteArray());
    QCOMPARE(back[1].upstream, "cloud"_ba);
    QCOMPARE(back[1].fallbackFrom, "local"_ba);
    QCOMPARE(scalar(m_path, u"SELECT fallback_from FROM calls WHERE request_id = '%1'"_s
                                .arg(QString::fromLatin1(fell.requestId))).toString(), u"local"_s);
}

// A database schema 6 wrote (fallbacks without their refused attempts): opened, it gains
// `fallback_to`, NULL for its row, and a refused attempt reads back naming its fallback.
void TestCallLog::schema6Database_migratesToSchema7_andARefusedAttemptRoundTrips()
{
    const qint64 t = QDateTime::currentMSecsSinceEpoch() - 60'000;
    QStringList schema6 = schemaAsShipped(6, kSchema2Added + kSchema3Added + kSchema4Added + kSchema5Added + kSchema6Added);
    schema6 += {u"INSERT INTO calls (request_id, received_at_ms, end_at_ms, route, upstream, model, stream, key_fp,"
                " outcome, status, breaker_state, queue_wait_ms, cost_saved_usd, fallback_from)"
                " VALUES ('req-v6', %1, %2, '/v1/chat/completions', 'cloud', 'gpt-4o-mini', 0, '0123456789ab',"
                " 'miss', 200, 'closed', 0, 0.0, 'local')"_s.arg(t).arg(t + 40)};
    for (const QString &statement : std::as_const(schema6))
        scalar(m_path, statement);

    CallLog log;
    const Result opened = log.open(m_path);
    QVERIFY2(opened.ok(), qPrintable(opened.error()));
    QCOMPARE(scalar(m_path, u"PRAGMA user_version"_s).toInt(), 7);
    QVERIFY(scalar(m_path, u"SELECT fallback_to FROM calls WHERE request_id = 'req-v6'"_s).isNull());
    CallRecord refused = call(Outcome::FellBack, t + 100);
    refused.upstream = "local";
    refused.status = 529;
    refused.fallbackTo = "cloud";
    log.append(refused);
    const QList<CallRecord> back = log.recent(10);
    QCOMPARE(back.size(), 2);
    QCOMPARE(back[0].fallbackFrom, "local"_ba);
    QCOMPARE(back[0].fallbackTo, QByteArray());
    QCOMPARE(back[1].outcome, Outcome::FellBack);
    QCOMPARE(back[1].fallbackTo, "cloud"_ba);
    QCOMPARE(scalar(m_path, u"SELECT outcome || ' ' || fallback_to || ' ' || ended FROM calls WHERE request_id = '%1'"_s
                                .arg(QString::fromLatin1(refused.requestId))).toString(),
             u"fell_back cloud upstream_error"_s);
}

// A database schema 2 wrote (the release with `ended`): opened, it gains schema 4's columns, its
// row reads back as before with nothing recorded inside the call, and new rows fill them.
void TestCallLog::schema2Database_migratesToSchema4AndKeepsItsRows()
{
    const qint64 t = QDateTime::currentMSecsSinceEpoch() - 60'000;
    QStringList schema2 = kReleasedSchema1;
    schema2 += {u"ALTER TABLE calls ADD COLUMN ended TEXT"_s, u"PRAGMA user_version = 2"_s,
                u"INSERT INTO calls (request_id, received_at_ms, end_at_ms, route, upstream, model, stream,"
                " key_fp, outcome, status, error_kind, breaker_state, queue_wait_ms, cost_saved_usd, ended)"
                " VALUES ('req-v2', %1, %2, '/v1/chat/completions', 'openai', 'gpt-4o-mini', 0,"
                " '0123456789ab', 'miss', 503, NULL, 'closed', 0, 0.0, 'upstream_error')"_s.arg(t).arg(t + 40)};
    for (const QString &statement : std::as_const(schema2))
        scalar(m_path, statement);   // each on a connection of its own, as schema 2's writer left the file
    QCOMPARE(scalar(m_path, u"PRAGMA user_version"_s).toInt(), 2);
    QCOMPARE(scalar(m_path, u"SELECT COUNT(*) FROM calls"_s).toInt(), 1);

    CallLog log;
    const Result opened = log.open(m_path);
    QVERIFY2(opened.ok(), qPrintable(opened.error()));
    QCOMPARE(scalar(m_path, u"PRAGMA user_version"_s).toInt(), CallLog::kSchemaVersion);
    QCOMPARE(scalar(m_path, u"SELECT ended FROM calls WHERE request_id = 'req-v2'"_s).toString(), u"upstream_error"_s);
    const QList<CallRecord> back = log.recent(10);
    QCOMPARE(back.size(), 1);
    const CallRecord &old = back.first();
    QCOMPARE(old.requestId, "req-v2"_ba);
    QCOMPARE(old.status, 503);
    QCOMPARE(old.endAtMs, t + 40);
    // Nothing was recorded inside the call then: unknown, not zero.
    QVERIFY(old.method.isEmpty() && old.requestHeaders.isEmpty() && old.responseHeaders.isEmpty());
    QVERIFY(old.keyInputs.isEmpty() && old.errorBody.isEmpty() && old.streamVerdict.isEmpty());
    QCOMPARE(old.retryAttempt, -1);
    QCOMPARE(old.eventCount, -1);
    QCOMPARE(old.maxEventGapMs, -1);
    QCOMPARE(old.firstTokenAtMs, 0);
    for (const QString &name : {u"retry_attempt"_s, u"event_count"_s, u"request_headers"_s, u"error_body"_s})
        QVERIFY(scalar(m_path, u"SELECT %1 FROM calls WHERE request_id = 'req-v2'"_s.arg(name)).isNull());
}

void TestCallLog::insideTheCall_roundTripsWithoutLogBodies()
{
    const qint64 t = QDateTime::currentMSecsSinceEpoch() - 60'000;
    CallRecord stream = call(Outcome::Miss, t);
    stream.stream = true;
    stream.method = "POST";
    stream.target = "/v1/chat/completions?x=1";
    stream.requestHeaders = "Authorization: [redacted]\nContent-Type: application/json\n";
    stream.responseHeaders = "Content-Type: text/event-stream\nx-breakwater-dedup: miss\n";
    stream.keyInputs = "route: /v1/chat/completions\ncredential authorization: sha256 0123456789ab\n";
    stream.retryAttempt = 2;
    stream.errorBody = R"({"type":"error","error":{"type":"overloaded_error"}})";
    stream.firstTokenAtMs = t + 120;
    stream.maxEventGapMs = 0;   // a known zero is not unknown
    stream.eventCount = 9;
    stream.streamVerdict = "error_event";
    stream.requestBody = "not stored without --log-bodies";
    CallLog log;
    const Result opened = log.open(m_path);
    QVERIFY2(opened.ok(), qPrintable(opened.error()));
    log.append(stream);
    const QList<CallRecord> back = log.recent(10);
    QCOMPARE(back.size(), 1);
    CallRecord expected = stream;
    expected.requestBody.clear();
    QCOMPARE(fields(back.first()), fields(expected));
    QCOMPARE(scalar(m_path, u"SELECT typeof(error_body) FROM calls"_s).toString(), u"blob"_s);
}

void TestCallLog::queryKeysAndUserinfo_neverReachTheFileNorComeBackFromIt()
{
    const qint64 t = QDateTime::currentMSecsSinceEpoch() - 60'000;
    CallRecord r = call(Outcome::Bypass, t);
    r.method = "GET";
    r.target = "/v1/models?key=AIzaSyD-fresh-0123456789abcdefghijklmn&limit=2";
    r.keyInputs = "route: /v1/**\nquery: api_key=azure-fresh-1\nupstream: http://u:fresh-pass@127.0.0.1:9/v1\n";
    CallLog log;
    const Result opened = log.open(m_path);
    QVERIFY2(opened.ok(), qPrintable(opened.error()));
    log.append(r);
    log.flush();
    QCOMPARE(scalar(m_path, u"SELECT target FROM calls"_s).toString(), u"/v1/models?key=REDACTED&limit=2"_s);
    QCOMPARE(scalar(m_path, u"SELECT key_inputs FROM calls"_s).toString(),
             u"route: /v1/**\nquery: api_key=REDACTED\nupstream: http://127.0.0.1:9/v1\n"_s);
    // A row that an older Breakwater wrote with the secrets in it comes back without them.
    log.close();
    {
        QSqlDatabase db = QSqlDatabase::addDatabase(u"QSQLITE"_s, u"old-writer"_s);
        db.setDatabaseName(m_path);
        QVERIFY(db.open());
        QSqlQuery query(db);
        QVERIFY(query.exec(u"UPDATE calls SET target = '/v1/x?access_token=old-token-1',"
                           " key_inputs = 'query: token=old-token-2\nupstream: https://a:old-pass@gw.example/v1\n'"_s));
    }
    QSqlDatabase::removeDatabase(u"old-writer"_s);
    QVERIFY(log.open(m_path).ok());
    const QList<CallRecord> back = log.recent(10);
    QCOMPARE(back.size(), 1);
    QCOMPARE(back.first().target, "/v1/x?access_token=REDACTED"_ba);
    QCOMPARE(back.first().keyInputs, "query: token=REDACTED\nupstream: https://gw.example/v1\n"_ba);
}

void TestCallLog::bodies_storedOnlyWhenAskedAndRedacted()
{
    CallRecord r = call(Outcome::Miss, QDateTime::currentMSecsSinceEpoch());
    r.requestBody = R"({"model":"m","api_key":"sk-proj-abcdefghijklmnop1234","messages":[]})";
    r.responseBody = R"({"note":"use Bearer abcdefghijklmnopqrstuvwxyz please"})";
    CallLog log;
    const Result opened = log.open(m_path);
    QVERIFY2(opened.ok(), qPrintable(opened.error()));
    log.append(r);
    log.flush();   // written without bodies: they are off by default
    log.setStoreBodies(true);
    log.append(r);
    const QList<CallRecord> back = log.recent(10);
    QCOMPARE(back.size(), 2);
    const CallRecord &stored = back.last();
    QVERIFY(!stored.requestBody.isEmpty());
    QVERIFY2(!stored.requestBody.contains("abcdefghijklmnop1234"), stored.requestBody.constData());
    QVERIFY2(stored.requestBody.contains(R"("api_key":"[redacted]")"), stored.requestBody.constData());
    QVERIFY2(stored.requestBody.contains(R"("model":"m")"), stored.requestBody.constData());
    QVERIFY2(!stored.responseBody.contains("abcdefghijklmnopqrstuvwxyz"), stored.responseBody.constData());
    QVERIFY(back.first().requestBody.isEmpty());
}

void TestCallLog::append_writesInBatchesNotPerRow()
{
    CallLog log;
    const Result opened = log.open(m_path);
    QVERIFY2(opened.ok(), qPrintable(opened.error()));
    const qint64 t = QDateTime::currentMSecsSinceEpoch();
    for (int i = 0; i < 1200; ++i)
        log.append(call(Outcome::Miss, t + i));
    log.flush();
    QCOMPARE(log.rowsWritten(), 1200);
    QVERIFY2(log.batchesWritten() <= 3, qPrintable(QString::number(log.batchesWritten())));
    QCOMPARE(scalar(m_path, u"SELECT COUNT(*) FROM calls"_s).toInt(), 1200);
}

void TestCallLog::append_isCommittedWithinTheFlushIntervalWithoutFlush()
{
    CallLog log;
    const Result opened = log.open(m_path);
    QVERIFY2(opened.ok(), qPrintable(opened.error()));
    log.append(call(Outcome::Miss, QDateTime::currentMSecsSinceEpoch()));
    QTRY_COMPARE(log.rowsWritten(), 1);
    QCOMPARE(scalar(m_path, u"SELECT COUNT(*) FROM calls"_s).toInt(), 1);   // committed, visible to others
}

void TestCallLog::closedLog_ignoresAppends()
{
    CallLog log;
    log.append(call(Outcome::Miss, 1));
    log.flush();
    QCOMPARE(log.recent(5).size(), 0);
    QCOMPARE(log.spentOnDay(QDate::currentDate()), 0.0);
    const Result opened = log.open(m_path);
    QVERIFY2(opened.ok(), qPrintable(opened.error()));
    log.close();
    log.append(call(Outcome::Miss, 2));
    QCOMPARE(log.rowsWritten(), 0);
}

void TestCallLog::badDatabase_openFailsWithAClearMessage_data()
{
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("mention");
    QTest::newRow("not a database") << u"garbage"_s << u"corrupt or not a database"_s;
    QTest::newRow("newer schema") << u"newer"_s << u"newer Breakwater"_s;
    QTest::newRow("unwritable folder") << u"folder"_s << u"cannot"_s;
}

void TestCallLog::badDatabase_openFailsWithAClearMessage()
{
    QFETCH(QString, kind);
    QFETCH(QString, mention);
    QString path = m_path;
    if (kind == u"garbage") {
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(QByteArray(8192, 'x'));
    } else if (kind == u"newer") {
        scalar(path, u"PRAGMA user_version = 99"_s);
        QCOMPARE(scalar(path, u"PRAGMA user_version"_s).toInt(), 99);
    } else {
        QFile file(path);   // a plain file where the folder should be (tests may run as root)
        QVERIFY(file.open(QIODevice::WriteOnly));
        path += u"/sub/calls.sqlite"_s;
    }
    CallLog log;
    QTest::ignoreMessage(QtWarningMsg, QRegularExpression(u"calls are not logged"_s));
    const Result opened = log.open(path);
    QVERIFY(!opened.ok());
    QVERIFY(!log.isOpen());
    const QString &error = opened.error();
    QVERIFY2(error.contains(mention) && error.contains(path.section(u'/', 0, -2)), qPrintable(error));
    log.append(call(Outcome::Miss, 1));   // logging off: the proxy keeps serving
    log.flush();
    QCOMPARE(log.rowsWritten(), 0);
}

void TestCallLog::reopen_keepsRows()
{
    const qint64 t = QDateTime::currentMSecsSinceEpoch();
    {
        CallLog log;
        const Result opened = log.open(m_path);
        QVERIFY2(opened.ok(), qPrintable(opened.error()));
        for (int i = 0; i < 10; ++i)
            log.append(call(Outcome::Miss, t + i));
    }   // the destructor writes what is queued
    CallLog log;
    const Result opened = log.open(m_path);
    QVERIFY2(opened.ok(), qPrintable(opened.error()));
    QCOMPARE(log.recent(100).size(), 10);
    QCOMPARE(scalar(m_path, u"PRAGMA user_version"_s).toInt(), CallLog::kSchemaVersion);
}

void TestCallLog::retention_prunesByAgeAndRowCountOnOpen()
{
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    const qint64 day = 86'400'000;
    {
        CallLog log;
        log.setRetention(3650, 0);
        const Result opened = log.open(m_path);
        QVERIFY2(opened.ok(), qPrintable(opened.error()));
        for (int i = 0; i < 5; ++i)
            log.append(call(Outcome::Miss, now - 40 * day + i));   // older than 30 days
        for (int i = 0; i < 20; ++i)
            log.append(call(Outcome::Miss, now - day + i));
    }
    {
        CallLog log;   // default retention: 30 days
        const Result opened = log.open(m_path);
        QVERIFY2(opened.ok(), qPrintable(opened.error()));
        QCOMPARE(scalar(m_path, u"SELECT COUNT(*) FROM calls"_s).toInt(), 20);
    }
    CallLog log;
    log.setRetention(30, 8);
    const Result opened = log.open(m_path);
    QVERIFY2(opened.ok(), qPrintable(opened.error()));
    const QList<CallRecord> kept = log.recent(100);
    QCOMPARE(kept.size(), 8);
    QCOMPARE(kept.first().receivedAtMs, now - day + 12);   // the newest rows stay
}

void TestCallLog::spentOnDay_countsOnlyCallsOfThatLocalDay()
{
    const QDate day = QDate::currentDate().addDays(-2);
    const qint64 start = day.startOfDay().toMSecsSinceEpoch();
    const qint64 next = day.addDays(1).startOfDay().toMSecsSinceEpoch();
    const auto costing = [](Outcome outcome, qint64 at, double cost) {
        CallRecord r = call(outcome, at);
        r.costUsd = cost;
        return r;
    };
    CallLog log;
    const Result opened = log.open(m_path);
    QVERIFY2(opened.ok(), qPrintable(opened.error()));
    log.append(costing(Outcome::Miss, start, 0.5));
    log.append(costing(Outcome::Bypass, next - 100, 0.25));   // received and ended that day
    log.append(costing(Outcome::Error, start + 10, 0.125));     // a call that began and then failed
    log.append(costing(Outcome::Joined, start + 20, 0.5));      // shared: not paid again
    log.append(costing(Outcome::Hit, start + 30, 0.5));
    log.append(costing(Outcome::Miss, start + 40, -1));         // unknown cost
    log.append(costing(Outcome::Miss, start - 100, 4));         // the day before (ended then too)
    log.append(costing(Outcome::Miss, next, 8));                // the day after
    // Received a moment before midnight, ended after it: the day it was charged, the next.
    log.append(costing(Outcome::Miss, next - 10, 16));
    QCOMPARE(log.spentOnDay(day), 0.875);
    QCOMPARE(log.spentOnDay(day.addDays(1)), 24.0);
}

void TestCallLog::between_readsTheCallsReceivedInAnInterval_oldestFirst()
{
    CallLog log;
    QVERIFY(log.open(m_path).ok());
    // Appended out of arrival order: the interval comes back by arrival.
    for (const qint64 at : {5000, 1000, 3000, 2000, 4000, 6000})
        log.append(call(Outcome::Miss, at));
    log.flush();
    const QList<CallRecord> inside = log.between(2000, 5000, 100);
    QCOMPARE(inside.size(), 4);
    for (qsizetype i = 0; i < inside.size(); ++i)
        QCOMPARE(inside[i].receivedAtMs, 2000 + 1000 * i);
    const QList<CallRecord> limited = log.between(2000, 5000, 2);   // the oldest ones
    QCOMPARE(limited.size(), 2);
    QCOMPARE(limited.last().receivedAtMs, 3000);
    QVERIFY(log.between(7000, 9000, 100).isEmpty());
}

void TestCallLog::defaultPath_isInAppDataAndFolderExists()
{
    QStandardPaths::setTestModeEnabled(true);
    const QString path = CallLog::defaultPath();
    QVERIFY(path.endsWith(u"/calls.sqlite"_s));
    QVERIFY(path.startsWith(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation)));
    QVERIFY(QFileInfo(path).dir().exists());
    QStandardPaths::setTestModeEnabled(false);
}

namespace {
// The permission bits, as ls shows them (-1: missing).
int modeOf(const QString &path)
{
    struct stat info {};
    return ::stat(QFile::encodeName(path).constData(), &info) == 0 ? int(info.st_mode & 07777) : -1;
}
QString octal(int mode) { return u"%1"_s.arg(mode, 4, 8, QChar(u'0')); }
} // namespace

void TestCallLog::open_createsFolderAndFilesForTheOwnerOnly_data()
{
    QTest::addColumn<int>("umask");
    QTest::newRow("umask 022 (Debian's)") << 022;
    QTest::newRow("umask 000") << 0;
    QTest::newRow("umask 277 (takes the owner's write)") << 0277;
}

void TestCallLog::open_createsFolderAndFilesForTheOwnerOnly()
{
    QFETCH(int, umask);
    const QString folder = m_dir.filePath(u"private-%1/breakwater"_s.arg(m_serial));
    const QString path = folder + u"/calls.sqlite"_s;
    {
        const auto restore = qScopeGuard([before = ::umask(mode_t(umask))] { ::umask(before); });
        CallLog log;
        const Result opened = log.open(path);
        QVERIFY2(opened.ok(), qPrintable(opened.error()));
        log.append(call(Outcome::Miss, QDateTime::currentMSecsSinceEpoch()));
        log.flush();
        // While the log is open SQLite has its -wal and -shm files next to it.
        QCOMPARE(octal(modeOf(folder)), u"0700"_s);
        for (const QString &suffix : {u""_s, u"-wal"_s, u"-shm"_s})
            QVERIFY2(modeOf(path + suffix) == 0600, qPrintable(suffix + u": "_s + octal(modeOf(path + suffix))));
    }
    QCOMPARE(octal(modeOf(path)), u"0600"_s);
}

void TestCallLog::writePrivateFile_isTheOwnersWhateverTheUmaskOrTheFileBefore_data()
{
    QTest::addColumn<int>("umask");
    QTest::addColumn<int>("before");   // the mode of a file already there; -1: none
    QTest::newRow("new, umask 022") << 022 << -1;
    QTest::newRow("new, umask 000") << 0 << -1;
    QTest::newRow("new, umask 277") << 0277 << -1;
    QTest::newRow("replacing a 0644 file") << 022 << 0644;
    QTest::newRow("replacing a 0666 file") << 0 << 0666;
}

void TestCallLog::writePrivateFile_isTheOwnersWhateverTheUmaskOrTheFileBefore()
{
    QFETCH(int, umask);
    QFETCH(int, before);
    const QString path = m_dir.filePath(u"export-%1.har"_s.arg(m_serial));
    if (before >= 0) {
        QFile old(path);
        QVERIFY(old.open(QIODevice::WriteOnly));
        old.write("an older export, longer than the new one");
        old.close();
        QVERIFY(::chmod(QFile::encodeName(path).constData(), mode_t(before)) == 0);
    }
    {
        const auto restore = qScopeGuard([previous = ::umask(mode_t(umask))] { ::umask(previous); });
        const Result written = writePrivateFile(path, "{\"log\":{}}");
        QVERIFY2(written.ok(), qPrintable(written.error()));
    }
    QCOMPARE(octal(modeOf(path)), u"0600"_s);
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(file.readAll(), "{\"log\":{}}"_ba);
    // A folder that cannot be written says so, and writes nothing.
    const Result refused = writePrivateFile(m_dir.filePath(u"no-such-folder/x.har"_s), "x");
    QVERIFY(!refused.ok());
    QVERIFY2(refused.error().contains(u"no-such-folder"_s), qPrintable(refused.error()));
}

void TestCallLog::open_tightensALooserLogButNotAFolderItDidNotMake()
{
    // A log from before (0644, in a folder the user chose), open in another process as well, so
    // that its -wal and -shm files exist too.
    const QString folder = m_dir.filePath(u"shared-%1"_s.arg(m_serial));
    QVERIFY(QDir().mkpath(folder));
    QVERIFY(::chmod(QFile::encodeName(folder).constData(), 0755) == 0);
    {
        CallLog log;
        const Result opened = log.open(folder + u"/calls.sqlite"_s);
        QVERIFY2(opened.ok(), qPrintable(opened.error()));
    }
    const QString path = folder + u"/calls.sqlite"_s;
    {
        QSqlDatabase other = QSqlDatabase::addDatabase(u"QSQLITE"_s, u"other-process"_s);
        other.setDatabaseName(path);
        QVERIFY(other.open());
        QSqlQuery query(other);
        QVERIFY(query.exec(u"PRAGMA journal_mode=WAL"_s));
        QVERIFY(query.exec(u"SELECT COUNT(*) FROM calls"_s));
        for (const QString &suffix : {u""_s, u"-wal"_s, u"-shm"_s})
            QVERIFY2(::chmod(QFile::encodeName(path + suffix).constData(), 0644) == 0, qPrintable(suffix));

        for (const QString &suffix : {u""_s, u"-wal"_s, u"-shm"_s}) {   // each is said in the log
            QTest::ignoreMessage(QtInfoMsg, QRegularExpression(
                u"only the owner may read it now: file .*calls.sqlite%1: 0644 -> 0600"_s.arg(suffix)));
        }
        CallLog log;
        const Result opened = log.open(path);
        QVERIFY2(opened.ok(), qPrintable(opened.error()));
        for (const QString &suffix : {u""_s, u"-wal"_s, u"-shm"_s})
            QVERIFY2(modeOf(path + suffix) == 0600, qPrintable(suffix + u": "_s + octal(modeOf(path + suffix))));
        QCOMPARE(octal(modeOf(folder)), u"0755"_s);   // not Breakwater's to change (it could be /tmp)
    }
    QSqlDatabase::removeDatabase(u"other-process"_s);
}

void TestCallLog::defaultPath_makesItsFolderOwnerOnly()
{
    // Breakwater's own folder is made 0700 when it is created and when it was looser before.
    QTemporaryDir home;
    const QByteArray saved = qgetenv("XDG_DATA_HOME");
    qputenv("XDG_DATA_HOME", QFile::encodeName(home.path()));
    const QString created = QFileInfo(CallLog::defaultPath()).absolutePath();
    QVERIFY2(created.startsWith(home.path()), qPrintable(created));
    const int createdMode = modeOf(created);
    QVERIFY(::chmod(QFile::encodeName(created).constData(), 0755) == 0);
    QTest::ignoreMessage(QtInfoMsg, QRegularExpression(u"folder .*: 0755 -> 0700"_s));
    CallLog::defaultPath();
    const int tightenedMode = modeOf(created);
    if (saved.isNull())
        qunsetenv("XDG_DATA_HOME");
    else
        qputenv("XDG_DATA_HOME", saved);
    QCOMPARE(octal(createdMode), u"0700"_s);
    QCOMPARE(octal(tightenedMode), u"0700"_s);
}

void TestCallLog::killedWriter_losesAtMostTheLastSecondAndStaysIntact()
{
    QProcess child;
    child.setProgram(QStringLiteral(CALLLOG_WRITER_CHILD));
    child.setArguments({m_path});
    child.start();
    QVERIFY2(child.waitForStarted(), qPrintable(child.errorString()));

    // "<elapsed ms> <rows appended>" lines, every 100 ms. Kill it once it has been writing for 2 s.
    QList<QPair<qint64, qint64>> progress;
    QByteArray buffer;
    while (progress.isEmpty() || progress.last().first < 2000) {
        QVERIFY2(child.waitForReadyRead(10'000), child.readAllStandardError().constData());
        buffer += child.readAllStandardOutput();
        qsizetype newline;
        while ((newline = buffer.indexOf('\n')) >= 0) {
            const QList<QByteArray> fields = buffer.left(newline).split(' ');
            buffer.remove(0, newline + 1);
            QCOMPARE(fields.size(), 2);
            progress.append({fields[0].toLongLong(), fields[1].toLongLong()});
        }
    }
    child.kill();   // SIGKILL: no destructor, no final flush
    QVERIFY(child.waitForFinished());
    QCOMPARE(child.exitStatus(), QProcess::CrashExit);

    // Every row appended a full second before the last report must be on disk.
    const qint64 lastMs = progress.last().first;
    qint64 mustHave = 0;
    for (const auto &[atMs, appended] : progress) {
        if (atMs <= lastMs - 1000)
            mustHave = appended;
    }
    QVERIFY(mustHave > 1000);   // really under load

    QCOMPARE(scalar(m_path, u"PRAGMA integrity_check"_s).toString(), u"ok"_s);
    const qint64 stored = scalar(m_path, u"SELECT COUNT(*) FROM calls"_s).toLongLong();
    QVERIFY2(stored >= mustHave, qPrintable(u"%1 rows stored, %2 appended over a second before the kill"_s
                                                 .arg(stored).arg(mustHave)));
    // And the log opens again as usual.
    CallLog log;
    const Result opened = log.open(m_path);
    QVERIFY2(opened.ok(), qPrintable(opened.error()));
    QCOMPARE(log.recent(1).size(), 1);
}

QTEST_GUILESS_MAIN(TestCallLog)
#include "tst_calllog.moc"
