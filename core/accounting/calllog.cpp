#include "accounting/calllog.h"

#include <array>
#include <future>
#include <optional>
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

#include "accounting/callcolumns.h"
#include "accounting/callending.h"
#include "privatefiles.h"
#include "http/protocol.h"

Q_LOGGING_CATEGORY(lcCallLog, "breakwater.calllog", QtInfoMsg)

using namespace Qt::StringLiterals;

namespace {

// Each entry moves the schema one version up; entry i produces version i + 1. Never change what a
// shipped entry produces: a new column is appended to CallColumns, a new entry adds it (ALTER TABLE
// calls ADD COLUMN ...), and CallLog::kSchemaVersion goes up.
const QList<QStringList> &migrations()
{
    static const QList<QStringList> list = {
        {CallColumns::createTable(CallColumns::kSchema1Columns),
         u"CREATE INDEX calls_received ON calls(received_at_ms)"_s,
         u"CREATE INDEX calls_key ON calls(key_fp)"_s},
        {u"ALTER TABLE calls ADD COLUMN ended TEXT"_s},   // filled for the rows already there by fillEnded
        {u"ALTER TABLE calls ADD COLUMN injected TEXT"_s},   // NULL for the rows already there: no fault made them
        // Schema 4: inside the call. Rows from before stay NULL (nothing was recorded then).
        CallColumns::addColumns(CallColumns::kSchema3Columns, CallColumns::kSchema4Columns),
        // Schema 5: the team member. Rows from before stay NULL (no team then).
        CallColumns::addColumns(CallColumns::kSchema4Columns, CallColumns::kSchema5Columns),
        // Schema 6: the fallback's origin. Rows from before stay NULL (no fallbacks then).
        CallColumns::addColumns(CallColumns::kSchema5Columns, CallColumns::kSchema6Columns),
        // Schema 7: a refused attempt's fallback. Rows from before stay NULL (no such rows then).
        CallColumns::addColumns(CallColumns::kSchema6Columns, CallColumns::kSchema7Columns),
    };
    return list;
}

// The names a secret goes by, as a JSON field (redactCredentials) or a header (isSecretName), in
// lower case: every credential header's (http/protocol.h's table) and the usual names of keys,
// tokens and passwords.
const QStringList &secretNameList()
{
    static const QStringList names = [] {
        QStringList list;
        for (const CredentialHeader &header : credentialHeaders())
            list.append(QString::fromLatin1(header.name).toLower());
        list += {u"apikey"_s, u"api_key"_s, u"api-key"_s, u"access_token"_s, u"refresh_token"_s,
                 u"password"_s, u"secret"_s, u"client_secret"_s};
        return list;
    }();
    return names;
}

// The same names as one regular-expression alternation.
QString secretNames()
{
    QStringList escaped;
    for (const QString &name : secretNameList())
        escaped.append(QRegularExpression::escape(name));
    return escaped.join(u'|');
}

// The credential shapes redactCredentials removes wherever they appear: each with the literal its
// pattern starts with, so one row says both what to look for cheaply and what to match.
struct KeyShape
{
    QByteArrayView literal;   // the pattern's fixed start (matched in any case when anyCase)
    bool anyCase;
    QStringView pattern;
};
constexpr KeyShape kKeyShapes[] = {
    {"sk-", false, u"\\bsk-[A-Za-z0-9_\\-]{12,}"},                 // OpenAI, Anthropic (sk-ant-), project keys
    {"AIza", false, u"\\bAIza[0-9A-Za-z_\\-]{30,}"},               // Google
    {"AKIA", false, u"\\bAKIA[0-9A-Z]{16}\\b"},                    // AWS access key ids
    {"ghp", false, u"\\bghp_?[A-Za-z0-9_\\-]{20,}"},               // GitHub
    {"gho", false, u"\\bgho_?[A-Za-z0-9_\\-]{20,}"},
    {"github_pat", false, u"\\bgithub_pat_?[A-Za-z0-9_\\-]{20,}"},
    {"xox", false, u"\\bxox[abp]_?[A-Za-z0-9_\\-]{20,}"},          // Slack
    {"bearer", true, u"\\b(?i:bearer)\\s+\\K[A-Za-z0-9._~+/\\-]{12,}=*"},
};

QString keyShapes()
{
    QStringList patterns;
    for (const KeyShape &shape : kKeyShapes)
        patterns.append(shape.pattern.toString());
    return patterns.join(u'|');
}

// False only when `text` cannot hold a key shape: it holds none of their literals. Checked first
// because most header blocks and bodies hold none, and the regular expression (on a UTF-16 copy)
// is the costly part of recording a call. One pass over the text: only where a byte can start a
// literal are the literals compared (this runs for every request's and answer's headers).
bool mayHoldKeyShape(QByteArrayView text)
{
    static const std::array<bool, 256> canStart = [] {
        std::array<bool, 256> starts{};
        for (const KeyShape &shape : kKeyShapes) {
            const uchar first = uchar(shape.literal.front());
            starts[first] = true;
            if (shape.anyCase)
                starts[uchar(QChar::toLower(first))] = starts[uchar(QChar::toUpper(first))] = true;
        }
        return starts;
    }();
    for (qsizetype at = 0; at < text.size(); ++at) {
        if (!canStart[uchar(text[at])])
            continue;
        const QByteArrayView rest = text.sliced(at);
        for (const KeyShape &shape : kKeyShapes) {
            if (shape.anyCase ? rest.size() >= shape.literal.size()
                                    && rest.first(shape.literal.size()).compare(shape.literal, Qt::CaseInsensitive) == 0
                              : rest.startsWith(shape.literal))
                return true;
        }
    }
    return false;
}

// `what` marked where a write fails (failed() reaches the window); SQLite's own text stays as it is.
Failure sqlError(const Message &what, const QSqlError &error)
{
    return {Message(QT_TRANSLATE_NOOP("Message", "%1: %2")).arg(what).arg(error.text())};
}

// Schema 2's `ended` for the rows written before it: derived from outcome, status and error_kind
// as for a new row, once per distinct combination (a handful, however many rows).
std::optional<QSqlError> fillEnded(QSqlDatabase &db)
{
    QSqlQuery select(db);
    if (!select.exec(u"SELECT DISTINCT outcome, status, error_kind FROM calls WHERE ended IS NULL"_s))
        return select.lastError();
    QList<QVariantList> combinations;   // read them all before the table is written
    while (select.next())
        combinations.append(QVariantList{select.value(0), select.value(1), select.value(2)});
    select.finish();
    QSqlQuery update(db);
    update.prepare(u"UPDATE calls SET ended = ? WHERE ended IS NULL AND outcome IS ? AND status IS ?"
                   " AND error_kind IS ?"_s);
    for (const QVariantList &values : combinations) {
        CallRecord record;
        record.outcome = outcomeFromName(values[0].toString().toUtf8());
        record.status = values[1].toInt();
        record.errorKind = values[2].toString().toUtf8();
        update.addBindValue(QString::fromLatin1(endingName(endingOf(record))));
        for (const QVariant &value : values)
            update.addBindValue(value);
        if (!update.exec())
            return update.lastError();
    }
    return std::nullopt;
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

Result CallLog::open(const QString &path)
{
    close();
    m_path = path;
    makePrivateDatabase(path);   // 0700 folder, 0600 files, before SQLite creates any
    {
        QMutexLocker lock(&m_mutex);
        m_stopping = false;
        m_openDone = false;
        m_writerGone = false;
        m_opening = {};
    }
    m_thread = QThread::create([this] { writerMain(); });
    m_thread->setObjectName(u"breakwater-calllog"_s);
    m_thread->start();

    QMutexLocker lock(&m_mutex);
    while (!m_openDone)   // opening happens on the writer thread, which owns the connection
        m_opened.wait(&m_mutex);
    const Result opening = m_opening;
    lock.unlock();
    if (!opening.ok()) {
        m_thread->wait();
        delete std::exchange(m_thread, nullptr);
        qCWarning(lcCallLog).noquote() << opening.error() << "- calls are not logged";
        return opening;
    }
    m_enabled.store(true);
    qCInfo(lcCallLog).noquote() << "logging calls to" << path;
    return {};
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
        // Joined and cached answers carry the cost of the call they shared; only the call paid. A call
        // counts on the day it ended, as SpendGuard charged it when it settled (a call received at
        // 23:59 and answered at 00:01 is the new day's); received_at_ms bounds it for the index.
        query.prepare(u"SELECT TOTAL(cost_usd) FROM calls WHERE received_at_ms >= ? AND received_at_ms < ?"
                      " AND COALESCE(end_at_ms, received_at_ms) >= ? AND COALESCE(end_at_ms, received_at_ms) < ?"
                      " AND outcome NOT IN ('joined', 'hit') AND cost_usd > 0"_s);
        const qint64 from = day.startOfDay().toMSecsSinceEpoch();
        const qint64 to = day.addDays(1).startOfDay().toMSecsSinceEpoch();
        query.addBindValue(from - 86'400'000);   // no call lasts a day
        query.addBindValue(to);
        query.addBindValue(from);
        query.addBindValue(to);
        if (query.exec() && query.next())
            spent = query.value(0).toDouble();
        else
            qCWarning(lcCallLog).noquote() << sqlError(u"reading the day's spend"_s, query.lastError()).message.english();
    });
    return spent;
}

QList<CallRecord> CallLog::recent(int limit)
{
    QList<CallRecord> records;
    runOnWriter([&](QSqlDatabase &db) {
        QSqlQuery query(db);
        query.setForwardOnly(true);
        query.prepare(CallColumns::selectStatement(u"ORDER BY id DESC LIMIT ?"_s));
        query.addBindValue(limit);
        if (!query.exec()) {
            qCWarning(lcCallLog).noquote() << sqlError(u"reading recent calls"_s, query.lastError()).message.english();
            return;
        }
        while (query.next())
            records.prepend(CallColumns::read(query));
    });
    return records;
}

QList<CallRecord> CallLog::between(qint64 fromMs, qint64 toMs, int limit)
{
    QList<CallRecord> records;
    runOnWriter([&](QSqlDatabase &db) {
        QSqlQuery query(db);
        query.setForwardOnly(true);
        query.prepare(CallColumns::selectStatement(
            u"WHERE received_at_ms BETWEEN ? AND ? ORDER BY received_at_ms, id LIMIT ?"_s));
        query.addBindValue(fromMs);
        query.addBindValue(toMs);
        query.addBindValue(limit);
        if (!query.exec()) {
            qCWarning(lcCallLog).noquote() << sqlError(u"reading calls of an interval"_s, query.lastError()).message.english();
            return;
        }
        while (query.next())
            records.append(CallColumns::read(query));
    });
    return records;
}

bool CallLog::isSecretName(QByteArrayView name)
{
    // A set of bytes looked up by a lower-case copy on the stack rather than a match: this runs for
    // every header of every request and answer.
    static const QSet<QByteArray> names = [] {
        QSet<QByteArray> set;
        for (const QString &secret : secretNameList()) {
            Q_ASSERT(secret.size() <= 32);
            set.insert(secret.toLatin1());
        }
        return set;
    }();
    char lower[32];
    if (name.size() > qsizetype(sizeof lower))
        return false;   // longer than any of the names
    for (qsizetype i = 0; i < name.size(); ++i)
        lower[i] = name[i] >= 'A' && name[i] <= 'Z' ? char(name[i] - 'A' + 'a') : name[i];
    return names.contains(QByteArray::fromRawData(lower, name.size()));
}

QByteArray CallLog::redactCredentials(const QByteArray &body)
{
    // A field named like a secret loses its whole value (escaped quotes included); a known key shape
    // anywhere else (in a prompt, a header echoed in an error) loses the key only. Either way the
    // text stays valid JSON: nothing outside a string's quotes is touched.
    static const QRegularExpression namedField(
        u"(\"(?i:"_s + secretNames() + u")\""
        "\\s*:\\s*)\"(?:[^\"\\\\]|\\\\.)*\""_s);
    static const QRegularExpression keyShape(keyShapes());
    const bool namedFieldPossible = body.contains('"');   // a named field is quoted
    const bool keyShapePossible = mayHoldKeyShape(body);
    if (!namedFieldPossible && !keyShapePossible)
        return body;
    QString text = QString::fromUtf8(body);
    if (namedFieldPossible)
        text.replace(namedField, u"\\1\"[redacted]\""_s);
    if (keyShapePossible)
        text.replace(keyShape, u"[redacted]"_s);
    return text.toUtf8();
}

Result CallLog::openDatabase(QSqlDatabase &db)
{
    const QFileInfo info(m_path);
    if (!QDir().mkpath(info.absolutePath()))
        return Failure{u"call log %1: cannot create the folder %2"_s.arg(m_path, info.absolutePath())};
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
        return Failure{u"call log %1 was written by a newer Breakwater (schema %2; this one knows up to %3)"_s
                           .arg(m_path).arg(version).arg(kSchemaVersion)};
    }
    if (!query.exec(u"PRAGMA journal_mode=WAL"_s) || !query.next())
        return sqlError(u"call log %1: cannot switch to WAL"_s.arg(m_path), query.lastError());
    if (query.value(0).toString() != u"wal")   // e.g. a file system without shared memory
        qCWarning(lcCallLog).noquote() << "call log" << m_path << "runs in journal mode" << query.value(0).toString();
    query.exec(u"PRAGMA synchronous=NORMAL"_s);   // WAL + NORMAL: a killed process loses no commit

    if (version < kSchemaVersion) {
        db.transaction();
        for (int v = version; v < kSchemaVersion; ++v) {
            std::optional<QSqlError> error;
            for (const QString &statement : migrations().at(v)) {
                if (!query.exec(statement)) {
                    error = query.lastError();
                    break;
                }
            }
            if (!error && v + 1 == 2)
                error = fillEnded(db);
            if (error) {
                const Failure failure = sqlError(u"call log %1: migrating to schema %2"_s.arg(m_path).arg(v + 1), *error);
                db.rollback();
                return failure;
            }
        }
        query.exec(u"PRAGMA user_version = %1"_s.arg(kSchemaVersion));
        if (!db.commit())
            return sqlError(u"call log %1: cannot write"_s.arg(m_path), db.lastError());
        qCInfo(lcCallLog) << "call log schema" << version << "->" << kSchemaVersion;
    }
    if (const Result pruned = prune(db); !pruned.ok())   // a DELETE also proves the file is writable
        return Failure{u"call log %1 is not writable (%2)"_s.arg(m_path, pruned.error())};
    return {};
}

Result CallLog::prune(QSqlDatabase &db)
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
    if (!ok)
        return sqlError(u"cannot prune old rows"_s, query.lastError());
    if (removed > 0)
        qCInfo(lcCallLog) << "pruned" << removed << "rows (keeping" << days << "days," << rows << "rows)";
    return {};
}

Result CallLog::writeBatch(QSqlDatabase &db, const QList<CallRecord> &batch)
{
    const bool bodies = m_storeBodies.load();
    QSqlQuery insert(db);
    insert.prepare(CallColumns::insertStatement());
    if (!db.transaction())
        return sqlError(Message(QT_TRANSLATE_NOOP("Message", "cannot begin a batch")), db.lastError());
    for (const CallRecord &r : batch) {
        CallColumns::bind(insert, r, bodies);
        if (!insert.exec()) {
            const Failure failure = sqlError(Message(QT_TRANSLATE_NOOP("Message", "cannot write a row")), insert.lastError());
            db.rollback();
            return failure;
        }
    }
    if (!db.commit()) {
        const Failure failure = sqlError(Message(QT_TRANSLATE_NOOP("Message", "cannot commit a batch")), db.lastError());
        db.rollback();
        return failure;
    }
    m_rowsWritten.fetch_add(batch.size());
    m_batchesWritten.fetch_add(1);
    return {};
}

void CallLog::writerMain()
{
    {
        QSqlDatabase db;
        const Result opening = openDatabase(db);
        {
            QMutexLocker lock(&m_mutex);
            m_opening = opening;
            m_openDone = true;
            m_opened.wakeAll();
        }
        bool healthy = true;   // false after a failed write: logging is off for good
        QDeadlineTimer nextPrune(kPruneInterval);

        QMutexLocker lock(&m_mutex);
        while (opening.ok()) {
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

            if (!healthy) {
                m_rowsDropped.fetch_add(batch.size());
            } else if (const Result written = batch.isEmpty() ? Result() : writeBatch(db, batch); !written.ok()) {
                healthy = false;
                m_enabled.store(false);
                m_rowsDropped.fetch_add(batch.size());
                qCWarning(lcCallLog).noquote() << u"call log %1: %2 - logging is off"_s.arg(m_path, written.error());
                //: %1 is the call log's file, %2 what went wrong
                Q_EMIT failed(Message(QT_TRANSLATE_NOOP("Message", "call log %1: %2")).arg(m_path).arg(written.message()));
            }
            for (const Job &job : jobs)
                job(db);
            if (nextPrune.hasExpired()) {
                if (const Result pruned = prune(db); !pruned.ok())
                    qCWarning(lcCallLog).noquote() << pruned.error();
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
