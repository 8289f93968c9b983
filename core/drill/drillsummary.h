#pragma once

#include <QByteArray>
#include <QList>
#include <QMap>
#include <QString>

#include "drill/faultwindows.h"
#include "faults/faultinjector.h"

struct CallRecord;

// What `breakwater exec` prints when COMMAND has ended: the figures of the drill, counted from the
// private Breakwater's call log (the records) and its fault injector, and how COMMAND ended.
struct DrillSummary
{
    qint64 calls = 0;           // requests the app sent to Breakwater
    qint64 upstreamCalls = 0;   // of them, the calls that reached the provider (what it bills)
    qint64 joined = 0;
    qint64 hits = 0;
    qint64 logicalCalls = 0;    // the app's calls, each request folded into its retries (accounting/retrygroups.h)
    int mostAttempts = 0;       // the most requests one logical call became
    QMap<QByteArray, qint64> refusals;   // by how they ended: breaker_refused, spend_refused, queue_full, ...
    QMap<QByteArray, quint64> faults;    // injected upstream calls by kind (503, hang, cut, ...)
    QMap<int, qint64> statuses;          // what the app saw: requests by status (0: none, it hung up first)

    static DrillSummary of(const QList<CallRecord> &records, const FaultInjector::Counts &injected);

    // How COMMAND ended, for the last lines.
    struct CommandEnd
    {
        QString command;         // as typed, for the first line
        int exitStatus = 0;      // COMMAND's, and so exec's: 128 + N when a signal N ended it
        QString interruptedBy;   // "SIGINT" when exec was interrupted; empty otherwise
    };
    // The summary as printed, one figure a line.
    QString text(const CommandEnd &ending, const QList<WindowVerdict> &windows) const;

    qint64 refused() const;
    quint64 faultsInjected() const;
};
