#include "drill/faultwindows.h"

#include <QDateTime>

#include <algorithm>

#include "accounting/callending.h"

using namespace Qt::StringLiterals;

namespace {

bool inWindow(const CallRecord &record, const FaultWindow &window)
{
    return window.armed() && record.receivedAtMs >= window.fromMs && record.receivedAtMs <= window.toMs;
}

// The calls the rule itself answered as their upstream call (a joiner carries the label too, but
// rode on a call the rule had already fired for).
int firedFor(const QString &label, const QList<CallRecord> &records)
{
    return int(std::count_if(records.begin(), records.end(), [&label](const CallRecord &r) {
        const Served served = servedOf(r.outcome);
        return r.injected == label && (served == Served::Miss || served == Served::Bypass);
    }));
}

} // namespace

void FaultWindows::close(QList<FaultWindow> &windows, const QList<CallRecord> &records, qint64 commandEndMs)
{
    for (FaultWindow &window : windows) {
        if (!window.armed())
            continue;
        qint64 end = commandEndMs;
        const FaultRule &rule = window.entry.rule;
        if (rule.lifetime.count() > 0)
            end = std::min(end, window.fromMs + qint64(rule.lifetime.count()));
        if (rule.count >= 0 && firedFor(window.label, records) >= rule.count) {
            qint64 lastAnswered = window.fromMs;
            for (const CallRecord &r : records) {
                if (r.injected == window.label)
                    lastAnswered = std::max(lastAnswered, r.receivedAtMs);
            }
            end = std::min(end, lastAnswered);
        }
        window.toMs = std::max(end, window.fromMs);
    }
}

bool FaultWindows::endedInError(const CallRecord &record)
{
    return endingOf(record) != Ending::Ok;
}

bool FaultWindows::recovered(const CallRecord &failed, const QList<CallRecord> &records)
{
    if (failed.keyFingerprint.isEmpty())
        return false;   // no key (a request refused as bad input): nothing else is "the same call"
    return std::any_of(records.begin(), records.end(), [&failed](const CallRecord &r) {
        return r.requestId != failed.requestId && r.receivedAtMs >= failed.receivedAtMs
               && r.keyFingerprint == failed.keyFingerprint && r.credentialFingerprint == failed.credentialFingerprint
               && !endedInError(r);
    });
}

QString FaultWindows::seen(const CallRecord &record)
{
    const Ending ending = endingOf(record);
    const QString name = QString::fromLatin1(endingName(ending));
    if (record.status == 0)
        return name;
    if (ending == Ending::UpstreamError)
        return QString::number(record.status);
    return u"%1 %2"_s.arg(record.status).arg(name);
}

std::optional<FaultRule> FaultWindows::injectedRule(const CallRecord &record)
{
    const qsizetype space = record.injected.indexOf(u' ');
    if (space < 0)
        return std::nullopt;
    const Expected<FaultRule> rule = FaultRule::parse(record.injected.mid(space + 1));
    if (!rule.ok())
        return std::nullopt;
    return rule.value();
}

bool FaultWindows::reachedProvider(const CallRecord &record)
{
    const Served served = servedOf(record.outcome);
    if (served != Served::Miss && served != Served::Bypass)
        return false;
    if (record.injected.isEmpty())
        return true;
    const std::optional<FaultRule> rule = injectedRule(record);
    return rule && rule->shapesRealCall();
}

WindowVerdict FaultWindows::judge(const FaultWindow &window, const QList<CallRecord> &records)
{
    WindowVerdict verdict;
    if (!window.armed()) {
        verdict.title = u"entry %1 at %2: %3"_s.arg(window.entry.number).arg(window.entry.atText, window.entry.rule.text());
        verdict.state = WindowVerdict::State::NotArmed;
        return verdict;
    }
    verdict.title = u"entry %1 at %2: %3"_s.arg(window.entry.number).arg(window.entry.atText, window.label);
    verdict.seconds = double(window.toMs - window.fromMs) / 1000.0;
    for (const CallRecord &r : records) {
        if (!inWindow(r, window))
            continue;
        ++verdict.calls;
        verdict.injected += r.injected == window.label;
        if (!endedInError(r))
            continue;
        ++verdict.errors;
        if (recovered(r, records)) {
            ++verdict.recovered;
            continue;
        }
        const QString what = seen(r);
        ++verdict.unrecovered[what];
        verdict.unrecoveredCalls.append(u"%1 +%2 s %3 %4: %5 (request %6)"_s
            .arg(QDateTime::fromMSecsSinceEpoch(r.receivedAtMs).toString(u"HH:mm:ss.zzz"_s))
            .arg(double(r.receivedAtMs - window.fromMs) / 1000.0, 0, 'f', 1)
            .arg(QString::fromLatin1(r.method.isEmpty() ? QByteArray("POST") : r.method), QString::fromUtf8(r.route), what,
                 QString::fromLatin1(r.requestId)));
    }
    if (verdict.calls == 0)
        verdict.state = WindowVerdict::State::NoCalls;
    else
        verdict.state = verdict.unrecoveredCount() > 0 ? WindowVerdict::State::Failed : WindowVerdict::State::Passed;
    return verdict;
}

QString WindowVerdict::outcomeText() const
{
    switch (state) {
    case State::NotArmed:
        return u"never armed: COMMAND ended first"_s;
    case State::NoCalls:
        return u"no call of the app arrived while it was armed"_s;
    case State::Passed:
    case State::Failed:
        break;
    }
    const auto counted = [](int n, const char *one) { return u"%1 %2%3"_s.arg(n).arg(QLatin1StringView(one), n == 1 ? u""_s : u"s"_s); };
    QString text = u"%1 (%2 injected), %3, %4 recovered"_s.arg(counted(calls, "call")).arg(injected)
                       .arg(counted(errors, "error")).arg(recovered);
    if (state == State::Failed) {
        QStringList parts;
        for (auto it = unrecovered.begin(); it != unrecovered.end(); ++it)
            parts.append(u"%1 x%2"_s.arg(it.key()).arg(it.value()));
        text += u"; not recovered: "_s + parts.join(u", "_s);
    }
    return text;
}
