#pragma once

#include <atomic>
#include <chrono>
#include <functional>

#include <QDate>
#include <QDeadlineTimer>
#include <QList>
#include <QMutex>
#include <QObject>
#include <QWaitCondition>

#include "accounting/callrecord.h"
#include "result.h"

class QSqlDatabase;
class QThread;

// Every call on record: one row per client request in a SQLite database (default
// <AppDataLocation>/calls.sqlite, --log-db overrides). Rows are queued by append() from any thread
// and written in batches by a writer thread of the log's own, in WAL mode with synchronous=NORMAL:
// the request path never waits on disk, a batch is committed at least every kFlushInterval or
// kBatchRows rows, and a process killed with SIGKILL loses only what was not yet committed (well
// under a second) while the database stays intact.
//
// The schema is versioned (PRAGMA user_version) and migrated on open; its columns, and how a
// CallRecord maps onto them, are listed once in accounting/callcolumns.h. A corrupt, newer or
// unwritable database makes open() fail with a message saying which; a write failure later emits
// failed() and turns logging off. Either way the proxy keeps serving. Old rows are pruned on open and hourly
// (setRetention). The SQL connection is created, used and closed only on the writer thread; reads
// (spentOnDay, recent) run there too and block their caller.
class CallLog final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(CallLog)
public:
    explicit CallLog(QObject *parent = nullptr);
    ~CallLog() override;   // writes what is queued, then stops the writer

    Result open(const QString &path);
    void close();
    bool isOpen() const { return m_enabled.load(); }
    QString path() const { return m_path; }

    // Any thread; never blocks on disk. Dropped (and counted) when the log is off or the writer
    // has fallen kMaxPendingRows behind.
    void append(const CallRecord &record);
    // Blocks until every row appended before the call is committed.
    void flush();

    // Before open(); applied on open and every kPruneInterval. 0 turns a bound off.
    void setRetention(int days, qint64 rows);
    // --log-bodies: store request and response bodies, with credentials redacted.
    void setStoreBodies(bool store) { m_storeBodies.store(store); }

    // USD of the upstream calls (not joined or cached answers) received on that local day.
    double spentOnDay(QDate day);
    // The last `limit` rows, oldest first.
    QList<CallRecord> recent(int limit);
    // The rows received in [fromMs, toMs] (wall clock), oldest first, at most `limit` (the oldest
    // ones): a past interval replotted in the dashboard.
    QList<CallRecord> between(qint64 fromMs, qint64 toMs, int limit);

    qint64 rowsWritten() const { return m_rowsWritten.load(); }
    qint64 rowsDropped() const { return m_rowsDropped.load(); }
    int batchesWritten() const { return m_batchesWritten.load(); }

    static QString defaultPath();   // creates the folder (0700)
    static QByteArray redactCredentials(const QByteArray &body);
    // A field or header name redactCredentials treats as a secret (api_key, authorization, ...), in
    // any case.
    static bool isSecretName(QByteArrayView name);

    static constexpr int kSchemaVersion = 7;
    static constexpr std::chrono::milliseconds kFlushInterval{250};
    static constexpr int kBatchRows = 500;
    static constexpr int kMaxPendingRows = 100'000;
    static constexpr std::chrono::hours kPruneInterval{1};
    static constexpr int kDefaultRetentionDays = 30;
    static constexpr qint64 kDefaultRetentionRows = 1'000'000;

Q_SIGNALS:
    // Emitted on the writer thread when a write fails; logging is off from then on. For a person:
    // english() for a log, translated() in the window.
    void failed(const Message &error);

private:
    using Job = std::function<void(QSqlDatabase &)>;
    void writerMain();
    Result openDatabase(QSqlDatabase &db);
    Result writeBatch(QSqlDatabase &db, const QList<CallRecord> &batch);
    Result prune(QSqlDatabase &db);
    void runOnWriter(const Job &job);

    QString m_path;
    QString m_connectionName;
    QThread *m_thread = nullptr;
    std::atomic<bool> m_enabled{false};
    std::atomic<bool> m_storeBodies{false};
    std::atomic<qint64> m_rowsWritten{0};
    std::atomic<qint64> m_rowsDropped{0};
    std::atomic<int> m_batchesWritten{0};
    int m_retentionDays = kDefaultRetentionDays;
    qint64 m_retentionRows = kDefaultRetentionRows;

    // Shared with the writer thread, under m_mutex.
    QMutex m_mutex;
    QWaitCondition m_wake;        // the writer: rows, a job or stop
    QWaitCondition m_opened;      // open(): the writer has tried the database
    QList<CallRecord> m_pending;
    QDeadlineTimer m_pendingDue;  // when the oldest pending row must be committed
    QList<Job> m_jobs;
    bool m_stopping = false;
    bool m_openDone = false;
    bool m_writerGone = false;
    Result m_opening;             // what the writer found opening the database
};
