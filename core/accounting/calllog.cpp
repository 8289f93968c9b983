#include "accounting/calllog.h"

#include <future>
#include <utility>

#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QLoggingCategory>
#include <QRegularExpression>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QStandardPaths>
#include <QThread>

#include "accounting/privatefiles.h"

Q_LOGGING_CATEGORY(lcCallLog, "breakwater.calllog", QtInfoMsg)

using namespace Qt::StringLiterals;

namespace {

// Each entry moves the schema one version up; entry i produces version i + 1. Never edit a
// shipped entry: append a new one (ALTER TABLE ...) and bump CallLog::kSchemaVersion.
const QList<QStringList> kMigrations = {
    {u"CREATE TABLE calls ("
     "id INTEGER PRIMARY KEY, request_id TEXT, received_at_ms INTEGER NOT NULL,"
     " upstream_start_at_ms INTEGER, first_byte_at_ms INTEGER, end_at_ms INTEGER,"
     " route TEXT, upstream TEXT, model TEXT, stream INTEGER, key_fp TEXT, credential_fp TEXT,"
     " client_address TEXT, outcome TEXT NOT NULL, status INTEGER, error_kind TEXT,"
     " breaker_state TEXT, queue_wait_ms INTEGER, upstream_ms INTEGER, ttfb_ms INTEGER,"
     " total_ms INTEGER, input_tokens INTEGER, output_tokens INTEGER, cached_tokens INTEGER,"
     " cost_usd REAL, cost_saved_usd REAL, request_body BLOB, response_body BLOB)"_s,
     u"CREATE INDEX calls_received ON calls(received_at_ms)"_s,
     u"CREATE INDEX calls_key ON calls(key_fp)"_s},
};

// Column order shared by INSERT and SELECT (the SELECT adds nothing before these).
const QString kColumns =
    u"request_id, received_at_ms, upstream_start_at_ms, first_byte_at_ms, end_at_ms, route, upstream,"
    " model, stream, key_fp, credential_fp, client_address, outcome, status, error_kind, breaker_state,"
    " queue_wait_ms, upstream_ms, ttfb_ms, total_ms, input_tokens, output_tokens, cached_tokens,"
    " cost_usd, cost_saved_usd, request_body, response_body"_s;
constexpr int kColumnCount = 27;

QVariant nullInt() { return QVariant(QMetaType::fromType<qint64>()); }
// Times and counts: 0 (times) or -1 (counts) mean "did not happen" / "unknown" and are stored as NULL.
QVariant timeOrNull(qint64 ms) { return ms > 0 ? QVariant(ms) : nullInt(); }
QVariant countOrNull(qint64 n) { return n >= 0 ? QVariant(n) : nullInt(); }
QVariant spanOrNull(qint64 from, qint64 to) { return from > 0 && to > 0 ? QVariant(to - from) : nullInt(); }
QVariant text(const QByteArray &latin1) { return QString::fromUtf8(latin1); }  // TEXT, not BLOB

Outcome outcomeFromName(const QByteArray &name)
{
    for (Outcome o : {Outcome::Miss, Outcome::Joined, Outcome::Hit, Outcome::Bypass,
                      Outcome::BreakerRefused, Outcome::SpendRefused, Outcome::Error}) {
        if (outcomeName(o) == name)
            return o;
    }
    return Outcome::Error;
}

QString sqlError(const QString &what, const QSqlError &error)
{
    return u"%1: %2"_s.arg(what, error.text());
}

} // namespace

CallLog::CallLog(QObject *parent) : QObject(parent)
{
    static std::atomic<int> instances{0};
    m_connectionName = u"breakwater-calllog-%1"_s.arg(++instances);
}

CallLog::~CallLog()
{
    close();
}

QString CallLog::defaultPath()
{
    const QString folder = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
    makePrivateFolder(folder, /*tightenExisting=*/true);   // Breakwater's own: 0700
    return folder + u"/calls.sqlite"_s;
}

void CallLog::setRetention(int days, qint64 rows)
{
    QMutexLocker lock(&m_mutex);
    m_retentionDays = qMax(0, days);
    m_retentionRows = qMax<qint64>(0, rows);
}

bool CallLog::open(const QString &path, QString *error)
{
    close();
    m_path = path;
    makePrivateDatabase(path);   // 0700 folder, 0600 files, before SQLite creates any
    {
        QMutexLocker lock(&m_mutex);
        m_stopping = false;
        m_openDone = false;
        m_writerGone = false;
        m_openError.clear();
    }
    m_thread = QThread::create([this] { writerMain(); });
    m_thread->setObjectName(u"breakwater-calllog"_s);
    m_thread->start();

    QMutexLocker lock(&m_mutex);
    while (!m_openDone)   // opening happens on the writer thread, which owns the connection
        m_opened.wait(&m_mutex);
    const QString openError = m_openError;
    lock.unlock();
    if (!openError.isEmpty()) {
        m_thread->wait();
        delete std::exchange(m_thread, nullptr);
        qCWarning(lcCallLog).noquote() << openError << "- calls are not logged";
        if (error)
            *error = openError;
        return false;
    }
    m_enabled.store(true);
    qCInfo(lcCallLog).noquote() << "logging calls to" << path;
    return true;
}

void CallLog::close()
{
    if (!m_thread)
        return;
    m_enabled.store(false);
    {
        QMutexLocker lock(&m_mutex);
        m_stopping = true;
        m_wake.wakeOne();
    }
    m_thread->wait();   // the writer commits what is queued before it returns
    delete std::exchange(m_thread, nullptr);
}

void CallLog::append(const CallRecord &record)
{
    if (!m_enabled.load()) {
        return;
    }
    QMutexLocker lock(&m_mutex);
    if (m_pending.size() >= kMaxPendingRows) {
        if (m_rowsDropped.fetch_add(1) % 10'000 == 0)
            qCWarning(lcCallLog) << "the writer is behind; dropping rows";
        return;
    }
    m_pending.append(record);
    // Wake the writer only to start the flush deadline and when a batch is full, not per row.
    if (m_pending.size() == 1) {
        m_pendingDue = QDeadlineTimer(kFlushInterval);
        m_wake.wakeOne();
    } else if (m_pending.size() == kBatchRows) {
        m_wake.wakeOne();
    }
}

void CallLog::runOnWriter(const Job &job)
{
    if (!m_thread || QThread::currentThread() == m_thread)
        return;   // the writer waiting on itself would never wake
    std::promise<void> done;
    std::future<void> finished = done.get_future();
    {
        QMutexLocker lock(&m_mutex);
        if (m_writerGone)
            return;
        m_jobs.append([&](QSqlDatabase &db) {
            job(db);
            done.set_value();
        });
        m_wake.wakeOne();
    }
    finished.wait();   // the writer runs every job, also when stopping or after a failure
}

void CallLog::flush()
{
    runOnWriter([](QSqlDatabase &) {});   // pending rows are always written before jobs run
}

double CallLog::spentOnDay(QDate day)
{
    double spent = 0;
    runOnWriter([&](QSqlDatabase &db) {
        QSqlQuery query(db);
        // Joined and cached answers carry the cost of the call they shared; only the call paid.
        query.prepare(u"SELECT TOTAL(cost_usd) FROM calls WHERE received_at_ms >= ? AND received_at_ms < ?"
                      " AND outcome NOT IN ('joined', 'hit') AND cost_usd > 0"_s);
        query.addBindValue(day.startOfDay().toMSecsSinceEpoch());
        query.addBindValue(day.addDays(1).startOfDay().toMSecsSinceEpoch());
        if (query.exec() && query.next())
            spent = query.value(0).toDouble();
        else
            qCWarning(lcCallLog).noquote() << sqlError(u"reading the day's spend"_s, query.lastError());
    });
    return spent;
}

QList<CallRecord> CallLog::recent(int limit)
{
    QList<CallRecord> records;
    runOnWriter([&](QSqlDatabase &db) {
        QSqlQuery query(db);
        query.setForwardOnly(true);
        query.prepare(u"SELECT %1 FROM calls ORDER BY id DESC LIMIT ?"_s.arg(kColumns));
        query.addBindValue(limit);
        if (!query.exec()) {
            qCWarning(lcCallLog).noquote() << sqlError(u"reading recent calls"_s, query.lastError());
            return;
        }
        while (query.next()) {
            const auto v = [&query](int i) { return query.value(i); };
            const auto count = [&v](int i) { return v(i).isNull() ? qint64(-1) : v(i).toLongLong(); };
            CallRecord r;
            r.requestId = v(0).toString().toUtf8();
            r.receivedAtMs = v(1).toLongLong();
            r.upstreamStartAtMs = v(2).toLongLong();
            r.firstByteAtMs = v(3).toLongLong();
            r.endAtMs = v(4).toLongLong();
            r.route = v(5).toString().toUtf8();
            r.upstream = v(6).toString().toUtf8();
            r.model = v(7).toString();
            r.stream = v(8).toBool();
            r.keyFingerprint = v(9).toString().toUtf8();
            r.credentialFingerprint = v(10).toString().toUtf8();
            r.clientAddress = v(11).toString();
            r.outcome = outcomeFromName(v(12).toString().toUtf8());
            r.status = v(13).toInt();
            r.errorKind = v(14).toString().toUtf8();
            r.breakerState = v(15).toString().toUtf8();
            r.queueWaitMs = v(16).toLongLong();
            // 17-19 (upstream, ttfb, total) are derived from the times above.
            r.inputTokens = count(20);
            r.outputTokens = count(21);
            r.cachedTokens = count(22);
            r.costUsd = v(23).isNull() ? -1 : v(23).toDouble();
            r.costSavedUsd = v(24).toDouble();
            r.requestBody = v(25).toByteArray();
            r.responseBody = v(26).toByteArray();
            records.prepend(r);
        }
    });
    return records;
}

QByteArray CallLog::redactCredentials(const QByteArray &body)
{
    // API keys (sk-..., sk-ant-..., sk-proj-...), bearer tokens, and JSON fields named like a key.
    static const QRegularExpression secrets(
        u"\\bsk-[A-Za-z0-9_\\-]{12,}|(?i:bearer)\\s+[A-Za-z0-9._~+/\\-]{12,}=*"
        "|(\"(?i:api[_-]?key|x-api-key|authorization|access_token|password|secret)\"\\s*:\\s*)\"[^\"]*\""_s);
    QString text = QString::fromUtf8(body);
    text.replace(secrets, u"\\1\"[redacted]\""_s);
    return text.toUtf8();
}

QString CallLog::openDatabase(QSqlDatabase &db)
{
    const QFileInfo info(m_path);
    if (!QDir().mkpath(info.absolutePath()))
        return u"call log %1: cannot create the folder %2"_s.arg(m_path, info.absolutePath());
    db = QSqlDatabase::addDatabase(u"QSQLITE"_s, m_connectionName);
    db.setDatabaseName(m_path);
    if (!db.open())
        return sqlError(u"call log %1: cannot open"_s.arg(m_path), db.lastError());

    QSqlQuery query(db);
    // The first read is where SQLite notices a file that is not a database (or a damaged header).
    if (!query.exec(u"PRAGMA user_version"_s) || !query.next())
        return sqlError(u"call log %1 is corrupt or not a database"_s.arg(m_path), query.lastError());
    const int version = query.value(0).toInt();
    if (version > kSchemaVersion) {
        return u"call log %1 was written by a newer Breakwater (schema %2; this one knows up to %3)"_s
            .arg(m_path).arg(version).arg(kSchemaVersion);
    }
    if (!query.exec(u"PRAGMA journal_mode=WAL"_s) || !query.next())
        return sqlError(u"call log %1: cannot switch to WAL"_s.arg(m_path), query.lastError());
    if (query.value(0).toString() != u"wal")   // e.g. a file system without shared memory
        qCWarning(lcCallLog).noquote() << "call log" << m_path << "runs in journal mode" << query.value(0).toString();
    query.exec(u"PRAGMA synchronous=NORMAL"_s);   // WAL + NORMAL: a killed process loses no commit

    if (version < kSchemaVersion) {
        db.transaction();
        for (int v = version; v < kSchemaVersion; ++v) {
            for (const QString &statement : kMigrations.at(v)) {
                if (!query.exec(statement)) {
                    const QString message = sqlError(u"call log %1: migrating to schema %2"_s.arg(m_path).arg(v + 1),
                                                      query.lastError());
                    db.rollback();
                    return message;
                }
            }
        }
        query.exec(u"PRAGMA user_version = %1"_s.arg(kSchemaVersion));
        if (!db.commit())
            return sqlError(u"call log %1: cannot write"_s.arg(m_path), db.lastError());
        qCInfo(lcCallLog) << "call log schema" << version << "->" << kSchemaVersion;
    }
    QString error;
    if (!prune(db, &error))   // a DELETE also proves the file is writable
        return u"call log %1 is not writable (%2)"_s.arg(m_path, error);
    return {};
}

bool CallLog::prune(QSqlDatabase &db, QString *error)
{
    int days = 0;
    qint64 rows = 0;
    {
        QMutexLocker lock(&m_mutex);
        days = m_retentionDays;
        rows = m_retentionRows;
    }
    QSqlQuery query(db);
    const qint64 cutoff = days > 0 ? QDateTime::currentMSecsSinceEpoch() - qint64(days) * 86'400'000 : 0;
    query.prepare(u"DELETE FROM calls WHERE received_at_ms < ?"_s);
    query.addBindValue(cutoff);
    bool ok = query.exec();
    qint64 removed = ok ? query.numRowsAffected() : 0;
    if (ok && rows > 0) {
        query.prepare(u"DELETE FROM calls WHERE id <= (SELECT id FROM calls ORDER BY id DESC LIMIT 1 OFFSET ?)"_s);
        query.addBindValue(rows);
        ok = query.exec();
        removed += ok ? query.numRowsAffected() : 0;
    }
    if (!ok) {
        *error = sqlError(u"cannot prune old rows"_s, query.lastError());
        return false;
    }
    if (removed > 0)
        qCInfo(lcCallLog) << "pruned" << removed << "rows (keeping" << days << "days," << rows << "rows)";
    return true;
}

bool CallLog::writeBatch(QSqlDatabase &db, const QList<CallRecord> &batch, QString *error)
{
    const bool bodies = m_storeBodies.load();
    QSqlQuery insert(db);
    insert.prepare(u"INSERT INTO calls (%1) VALUES (?%2)"_s.arg(kColumns, u", ?"_s.repeated(kColumnCount - 1)));
    if (!db.transaction()) {
        *error = sqlError(u"cannot begin a batch"_s, db.lastError());
        return false;
    }
    for (const CallRecord &r : batch) {
        const QVariant values[kColumnCount] = {
            text(r.requestId), r.receivedAtMs, timeOrNull(r.upstreamStartAtMs), timeOrNull(r.firstByteAtMs),
            timeOrNull(r.endAtMs), text(r.route), text(r.upstream), r.model, int(r.stream),
            text(r.keyFingerprint), text(r.credentialFingerprint), r.clientAddress, text(outcomeName(r.outcome)),
            r.status, text(r.errorKind), text(r.breakerState), r.queueWaitMs,
            spanOrNull(r.upstreamStartAtMs, r.endAtMs), spanOrNull(r.receivedAtMs, r.firstByteAtMs),
            spanOrNull(r.receivedAtMs, r.endAtMs), countOrNull(r.inputTokens), countOrNull(r.outputTokens),
            countOrNull(r.cachedTokens), r.costUsd >= 0 ? QVariant(r.costUsd) : QVariant(QMetaType::fromType<double>()),
            r.costSavedUsd,
            bodies && !r.requestBody.isEmpty() ? QVariant(redactCredentials(r.requestBody)) : QVariant(QMetaType::fromType<QByteArray>()),
            bodies && !r.responseBody.isEmpty() ? QVariant(redactCredentials(r.responseBody)) : QVariant(QMetaType::fromType<QByteArray>())};
        for (int i = 0; i < kColumnCount; ++i)
            insert.bindValue(i, values[i]);
        if (!insert.exec()) {
            *error = sqlError(u"cannot write a row"_s, insert.lastError());
            db.rollback();
            return false;
        }
    }
    if (!db.commit()) {
        *error = sqlError(u"cannot commit a batch"_s, db.lastError());
        db.rollback();
        return false;
    }
    m_rowsWritten.fetch_add(batch.size());
    m_batchesWritten.fetch_add(1);
    return true;
}

void CallLog::writerMain()
{
    {
        QSqlDatabase db;
        const QString openError = openDatabase(db);
        {
            QMutexLocker lock(&m_mutex);
            m_openError = openError;
            m_openDone = true;
            m_opened.wakeAll();
        }
        bool healthy = true;   // false after a failed write: logging is off for good
        QDeadlineTimer nextPrune(kPruneInterval);

        QMutexLocker lock(&m_mutex);
        while (openError.isEmpty()) {
            // Sleep until a batch is full, the oldest row is due, a job or stop arrives, or pruning is due.
            while (!m_stopping && m_jobs.isEmpty() && m_pending.size() < kBatchRows) {
                const QDeadlineTimer due = m_pending.isEmpty() ? nextPrune : qMin(nextPrune, m_pendingDue);
                if (due.hasExpired())
                    break;
                m_wake.wait(&m_mutex, due);
            }
            const QList<CallRecord> batch = std::exchange(m_pending, {});
            m_pending.reserve(kBatchRows);   // fewer reallocations while append() holds the lock
            const QList<Job> jobs = std::exchange(m_jobs, {});
            const bool stopping = m_stopping;
            lock.unlock();

            QString error;
            if (!healthy) {
                m_rowsDropped.fetch_add(batch.size());
            } else if (!batch.isEmpty() && !writeBatch(db, batch, &error)) {
                healthy = false;
                m_enabled.store(false);
                m_rowsDropped.fetch_add(batch.size());
                qCWarning(lcCallLog).noquote() << u"call log %1: %2 - logging is off"_s.arg(m_path, error);
                Q_EMIT failed(u"call log %1: %2"_s.arg(m_path, error));
            }
            for (const Job &job : jobs)
                job(db);
            if (nextPrune.hasExpired()) {
                if (!prune(db, &error))
                    qCWarning(lcCallLog).noquote() << error;
                nextPrune = QDeadlineTimer(kPruneInterval);
            }

            lock.relock();
            if (stopping && m_pending.isEmpty() && m_jobs.isEmpty())
                break;
        }
        // Jobs that arrived while closing still get an answer (an empty one), so no caller hangs;
        // later ones are refused by runOnWriter.
        const QList<Job> late = std::exchange(m_jobs, {});
        m_pending.clear();
        m_writerGone = true;
        lock.unlock();
        for (const Job &job : late)
            job(db);
        db.close();
    }
    QSqlDatabase::removeDatabase(m_connectionName);   // after every handle on it is gone
}
