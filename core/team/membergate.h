#pragma once

#include <QDate>
#include <QHash>
#include <QString>

#include <optional>

#include "http/apierror.h"
#include "team/teamfiles.h"

class Clock;
struct CallRecord;
struct IncomingRequest;

// Who a call on an API route is for, when Breakwater serves a team (--access-tokens): every such
// call must carry a member's token, and is then that member's (the call log's `member`, the metrics'
// `member` label, the member's own daily cap). Where the token may be:
//   - always in `x-breakwater-token` (members who send their own provider key as usual);
//   - with --provider-keys, also where the SDK puts its key (`Authorization: Bearer`, `x-api-key`),
//     so OPENAI_API_KEY=<token> works unchanged: Breakwater then sends its own provider key upstream.
// The member's token never leaves Breakwater: whichever header carried it is removed from the request
// before it is recorded, keyed or forwarded. A member's token is no control token: the control API
// (controlgate.h) compares only against the owner's.
// Lives on the proxy thread, like every other per-request state.
class MemberGate final
{
public:
    MemberGate(Team team, ProviderKeys keys, const Clock &clock);

    struct Admission
    {
        QString member;                   // the member the call is for, when admitted
        std::optional<ApiError> refusal;  // 401 (no or wrong token), 429 (the member's own cap)
    };
    // Identifies the member in `request` and, once admitted, rewrites its headers as they go on
    // (the token removed; with a provider key for the route's API, that key in its usual header).
    Admission admit(IncomingRequest &request, ApiStyle style);

    // What a finished call cost goes to its member's day (their cap counts it).
    void charge(const CallRecord &record);
    double spentToday(const QString &member);

    bool sharesAcrossMembers() const { return m_team.shareAcrossMembers; }
    bool holdsProviderKeys() const { return m_keys.any(); }

private:
    const Member *memberWithToken(const QByteArray &sent) const;
    void rollOver();

    Team m_team;
    ProviderKeys m_keys;
    const Clock &m_clock;
    QDate m_day;
    QHash<QString, double> m_spentUsd;   // today's, by member
};
