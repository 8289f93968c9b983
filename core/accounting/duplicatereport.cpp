#include "accounting/duplicatereport.h"

#include <algorithm>
#include <atomic>

#include <QDateTime>
#include <QFileInfo>
#include <QHash>
#include <QJsonArray>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>

using namespace Qt::StringLiterals;

namespace {

struct KeySeen
{
    qint64 lastMs = 0;
    QHash<QString, qint64> lastByClient;
    DuplicateReport::RepeatedKey summary;
};

QString percent(double share)
{
    return u"%1 %"_s.arg(share * 100, 0, 'f', 2);
}

} // namespace

Expected<DuplicateReport> DuplicateReport::compute(const QString &dbPath)
{
    DuplicateReport report;
    report.m_path = dbPath;
    report.m_windows = {{u"5 min"_s, 5 * 60}, {u"1 h"_s, 60 * 60}, {u"24 h"_s, 24 * 60 * 60}, {u"all time"_s, -1}};
    if (!QFileInfo(dbPath).isFile())   // SQLite would quietly create an empty file
        return Failure{u"no call log at %1"_s.arg(dbPath)};

    static std::atomic<int> connections{0};
    const QString connection = u"breakwater-report-%1"_s.arg(++connections);
    QHash<QByteArray, KeySeen> seen;
    Result reading;
    {
        QSqlDatabase db = QSqlDatabase::addDatabase(u"QSQLITE"_s, connection);
        db.setDatabaseName(dbPath);
        if (!db.open())
            reading = Failure{u"cannot open %1: %2"_s.arg(dbPath, db.lastError().text())};
        QSqlQuery query(db);
        query.setForwardOnly(true);
        if (reading.ok() && !query.exec(u"SELECT key_fp, client_address, model, received_at_ms, cost_saved_usd FROM calls"
                               " WHERE key_fp IS NOT NULL AND key_fp != ''"
                               " AND outcome NOT IN ('breaker_refused', 'spend_refused')"
                               " ORDER BY received_at_ms, id"_s)) {
            reading = Failure{u"%1 is not a Breakwater call log: %2"_s.arg(dbPath, query.lastError().text())};
        }
        while (reading.ok() && query.next()) {
            const QByteArray key = query.value(0).toString().toUtf8();
            const QString client = query.value(1).toString();
            const qint64 atMs = query.value(3).toLongLong();
            const double saved = query.value(4).toDouble();
            if (report.m_requests++ == 0)
                report.m_firstMs = atMs;
            report.m_lastMs = atMs;
            report.m_costSavedUsd += saved;

            KeySeen &entry = seen[key];
            if (entry.summary.count > 0) {
                const auto sameClientAt = entry.lastByClient.constFind(client);
                for (Window &window : report.m_windows) {
                    const qint64 windowMs = window.seconds * 1000;
                    if (window.seconds >= 0 && atMs - entry.lastMs > windowMs)
                        continue;
                    ++window.duplicates;
                    if (sameClientAt != entry.lastByClient.cend()
                        && (window.seconds < 0 || atMs - *sameClientAt <= windowMs))
                        ++window.sameClient;
                }
            }
            if (!entry.lastByClient.contains(client))
                ++entry.summary.clients;
            entry.lastMs = atMs;
            entry.lastByClient.insert(client, atMs);
            entry.summary.key = key;
            ++entry.summary.count;
            entry.summary.costSavedUsd += saved;
            if (entry.summary.model.isEmpty())
                entry.summary.model = query.value(2).toString();
        }
    }
    QSqlDatabase::removeDatabase(connection);
    if (!reading.ok())
        return Failure{reading.error()};

    for (const KeySeen &entry : std::as_const(seen)) {
        if (entry.summary.count > 1)
            report.m_topKeys.append(entry.summary);
    }
    std::sort(report.m_topKeys.begin(), report.m_topKeys.end(), [](const RepeatedKey &a, const RepeatedKey &b) {
        if (a.count != b.count)
            return a.count > b.count;
        if (a.costSavedUsd != b.costSavedUsd)
            return a.costSavedUsd > b.costSavedUsd;
        return a.key < b.key;
    });
    if (report.m_topKeys.size() > kTopKeys)
        report.m_topKeys.resize(kTopKeys);
    return report;
}

QString DuplicateReport::table() const
{
    const double days = (m_lastMs - m_firstMs) / 86'400'000.0;
    const auto date = [](qint64 ms) { return QDateTime::fromMSecsSinceEpoch(ms).toString(u"yyyy-MM-dd HH:mm"_s); };
    QString out = u"Breakwater duplicate report: %1\n"_s.arg(m_path);
    if (m_requests == 0)
        return out + u"No proxied requests with a key yet.\n"_s;
    out += u"%1 proxied requests from %2 to %3 (%4 days); cost saved %5 USD\n\n"_s.arg(m_requests)
               .arg(date(m_firstMs), date(m_lastMs)).arg(days, 0, 'f', 1).arg(m_costSavedUsd, 0, 'f', 4);
    out += u"%1 %2 %3 %4\n"_s.arg(u"window"_s, -10).arg(u"duplicates"_s, 11).arg(u"rate"_s, 9).arg(u"same client"_s, 12);
    for (const Window &w : m_windows) {
        out += u"%1 %2 %3 %4\n"_s.arg(w.name, -10).arg(w.duplicates, 11).arg(percent(w.rate(m_requests)), 9)
                   .arg(percent(w.sameClientShare()), 12);
    }
    if (m_topKeys.isEmpty())
        return out + u"\nNo key was sent twice.\n"_s;
    out += u"\nMost repeated requests\n%1 %2 %3 %4 %5\n"_s.arg(u"key"_s, -12).arg(u"count"_s, 7)
               .arg(u"clients"_s, 7).arg(u"cost saved"_s, 11).arg(u"model"_s);
    for (const RepeatedKey &k : m_topKeys) {
        out += u"%1 %2 %3 %4 %5\n"_s.arg(QString::fromUtf8(k.key), -12).arg(k.count, 7).arg(k.clients, 7)
                   .arg(u"$"_s + QString::number(k.costSavedUsd, 'f', 4), 11).arg(k.model);
    }
    return out;
}

QJsonObject DuplicateReport::json() const
{
    QJsonArray windows;
    for (const Window &w : m_windows) {
        windows.append(QJsonObject{{u"window"_s, w.name},
                                   {u"seconds"_s, w.seconds < 0 ? QJsonValue(QJsonValue::Null) : QJsonValue(w.seconds)},
                                   {u"duplicates"_s, w.duplicates}, {u"rate"_s, w.rate(m_requests)},
                                   {u"sameClient"_s, w.sameClient}, {u"sameClientShare"_s, w.sameClientShare()}});
    }
    QJsonArray keys;
    for (const RepeatedKey &k : m_topKeys) {
        keys.append(QJsonObject{{u"key"_s, QString::fromUtf8(k.key)}, {u"count"_s, k.count},
                                {u"clients"_s, k.clients}, {u"model"_s, k.model},
                                {u"costSavedUsd"_s, k.costSavedUsd}});
    }
    return {{u"path"_s, m_path}, {u"requests"_s, m_requests}, {u"firstMs"_s, m_firstMs}, {u"lastMs"_s, m_lastMs},
            {u"costSavedUsd"_s, m_costSavedUsd}, {u"windows"_s, windows}, {u"topKeys"_s, keys}};
}
