#include "accounting/retrygroups.h"

#include <algorithm>
#include <numeric>

#include <QHash>

#include "accounting/callrecord.h"

QList<RetryPlace> RetryGroups::group(const QList<const CallRecord *> &records)
{
    QList<RetryPlace> places(records.size());
    QList<qsizetype> order(records.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&records](qsizetype a, qsizetype b) {
        return records[a]->receivedAtMs < records[b]->receivedAtMs;
    });
    struct Open
    {
        int group;
        int lastAttempt;
        qint64 lastEndMs;
    };
    QHash<QByteArray, Open> open;   // key and credential fingerprint -> the logical call still open
    QHash<int, int> sizes;
    for (const qsizetype i : order) {
        const CallRecord &r = *records[i];
        const QByteArray identity = r.keyFingerprint + '/' + r.credentialFingerprint;
        auto found = r.keyFingerprint.isEmpty() ? open.end() : open.find(identity);
        const bool retry = found != open.end() && r.retryAttempt > 0 && r.retryAttempt > found->lastAttempt
                        && r.receivedAtMs - found->lastEndMs <= kWindowMs;
        if (retry) {
            places[i].group = found->group;
            found->lastAttempt = r.retryAttempt;
            found->lastEndMs = std::max(r.endAtMs, r.receivedAtMs);
        } else {
            places[i].group = int(i);
            if (!r.keyFingerprint.isEmpty())
                open.insert(identity, {int(i), std::max(r.retryAttempt, 0), std::max(r.endAtMs, r.receivedAtMs)});
        }
        places[i].attempt = ++sizes[places[i].group];
    }
    for (RetryPlace &place : places)
        place.attempts = sizes.value(place.group);
    return places;
}
