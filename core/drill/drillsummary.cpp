#include "drill/drillsummary.h"

#include <QStringList>

#include <functional>

#include "accounting/callending.h"
#include "accounting/callrecord.h"
#include "accounting/retrygroups.h"

using namespace Qt::StringLiterals;

namespace {

// "503 x3, 200 x5"
template <typename Key, typename Count>
QString counted(const QMap<Key, Count> &counts, const std::function<QString(const Key &)> &name)
{
    QStringList parts;
    for (auto it = counts.begin(); it != counts.end(); ++it)
        parts.append(u"%1 x%2"_s.arg(name(it.key())).arg(it.value()));
    return parts.isEmpty() ? u"none"_s : parts.join(u", "_s);
}

QString word(const QByteArray &name)
{
    return QString::fromLatin1(name);
}

} // namespace

DrillSummary DrillSummary::of(const QList<CallRecord> &records, const FaultInjector::Counts &injected)
{
    DrillSummary summary;
    QList<const CallRecord *> pointers;
    for (const CallRecord &r : records) {
        if (!r.isClientRequest()) {   // a fallback's refused attempt: a call, not a request
            summary.upstreamCalls += FaultWindows::reachedProvider(r);
            continue;
        }
        pointers.append(&r);
        ++summary.calls;
        summary.upstreamCalls += FaultWindows::reachedProvider(r);
        summary.joined += r.outcome == Outcome::Joined;
        summary.hits += r.outcome == Outcome::Hit;
        const Ending ending = endingOf(r);
        if (isRefusal(ending))
            ++summary.refusals[endingName(ending)];
        ++summary.statuses[r.status];
    }
    for (const RetryPlace &place : RetryGroups::group(pointers)) {
        summary.logicalCalls += place.attempt == 1;
        summary.mostAttempts = std::max(summary.mostAttempts, place.attempts);
    }
    for (auto it = injected.begin(); it != injected.end(); ++it)
        summary.faults[it.key().second] += it.value();
    return summary;
}

qint64 DrillSummary::refused() const
{
    qint64 total = 0;
    for (const qint64 count : refusals)
        total += count;
    return total;
}

quint64 DrillSummary::faultsInjected() const
{
    quint64 total = 0;
    for (const quint64 count : faults)
        total += count;
    return total;
}

QString DrillSummary::text(const CommandEnd &ending, const QList<WindowVerdict> &windows) const
{
    const auto line = [](const QString &name, const QString &value) -> QString { return u"  "_s + name.leftJustified(18) + value + u'\n'; };
    QString text = u"breakwater exec: %1 %2\n"_s.arg(ending.command,
        ending.interruptedBy.isEmpty() ? u"ended"_s : u"stopped by %1"_s.arg(ending.interruptedBy));
    text += line(u"calls"_s, u"%1 requests to Breakwater: %2 upstream calls, %3 joined, %4 cache hits"_s
                                 .arg(calls).arg(upstreamCalls).arg(joined).arg(hits));
    if (logicalCalls > 0)
        text += line(u"retries"_s, u"%1 logical calls, %2 requests per logical call (most: %3)"_s
                                       .arg(logicalCalls).arg(double(calls) / double(logicalCalls), 0, 'f', 2)
                                       .arg(mostAttempts));
    text += line(u"refused"_s, u"%1 (%2)"_s.arg(refused()).arg(counted<QByteArray, qint64>(refusals, word)));
    text += line(u"faults injected"_s, u"%1 (%2)"_s.arg(faultsInjected()).arg(counted<QByteArray, quint64>(faults, word)));
    text += line(u"the app saw"_s, counted<int, qint64>(statuses, [](const int &status) {
        return status == 0 ? u"no status"_s : QString::number(status);
    }));
    if (!windows.isEmpty()) {
        int passed = 0, failed = 0, skipped = 0;
        for (const WindowVerdict &verdict : windows) {
            passed += verdict.state == WindowVerdict::State::Passed;
            failed += verdict.state == WindowVerdict::State::Failed;
            skipped += verdict.state == WindowVerdict::State::NotArmed || verdict.state == WindowVerdict::State::NoCalls;
        }
        text += line(u"fault windows"_s, u"%1: %2 recovered, %3 not recovered, %4 without calls or never armed"_s
                                             .arg(windows.size()).arg(passed).arg(failed).arg(skipped));
        for (const WindowVerdict &verdict : windows)
            text += u"    "_s + verdict.title + u": "_s + verdict.outcomeText() + u'\n';
    }
    text += line(u"exit status"_s, QString::number(ending.exitStatus));
    return text;
}
