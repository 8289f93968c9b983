#pragma once

#include <QByteArray>
#include <QJsonObject>
#include <QList>
#include <QString>

#include "result.h"

// `breakwater report`: how much of the user's own traffic repeats exactly, the analysis of section 2
// of the field results run on the call log. A request is a duplicate within a window when a request
// with the same key (same route, upstream, credential, headers that matter and body) arrived no
// longer than the window before it, from any client; "same client" when that client itself sent the
// key within the window. Counted over proxied requests with a key (requests refused by the breaker
// or the spend limit were never proxied and are left out). Reads the database; writes nothing.
class DuplicateReport final
{
public:
    struct Window
    {
        QString name;               // "5 min", "1 h", "24 h", "all time"
        qint64 seconds = -1;        // -1 = all time
        qint64 duplicates = 0;
        qint64 sameClient = 0;      // duplicates whose client sent the key within the window
        double rate(qint64 requests) const { return requests ? double(duplicates) / requests : 0; }
        double sameClientShare() const { return duplicates ? double(sameClient) / duplicates : 0; }
    };
    struct RepeatedKey
    {
        QByteArray key;             // the key fingerprint
        qint64 count = 0;           // requests with this key
        qint64 clients = 0;         // distinct client addresses that sent it
        QString model;
        double costSavedUsd = 0;
    };

    // Fails on a missing file or one that is not a Breakwater call log.
    static Expected<DuplicateReport> compute(const QString &dbPath);

    qint64 requests() const { return m_requests; }
    const QList<Window> &windows() const { return m_windows; }
    const QList<RepeatedKey> &topKeys() const { return m_topKeys; }   // most repeated first
    double costSavedUsd() const { return m_costSavedUsd; }

    QString table() const;
    QJsonObject json() const;

    static constexpr int kTopKeys = 10;

private:
    QString m_path;
    qint64 m_requests = 0;
    qint64 m_firstMs = 0;
    qint64 m_lastMs = 0;
    double m_costSavedUsd = 0;
    QList<Window> m_windows;
    QList<RepeatedKey> m_topKeys;
};
