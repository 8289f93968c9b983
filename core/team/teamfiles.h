#pragma once

#include <QByteArray>
#include <QList>
#include <QString>

#include "result.h"

// The two files a team's Breakwater is given (README, "Team gateway"): who may call it
// (--access-tokens) and the provider keys it calls upstreams with (--provider-keys). Both hold
// secrets, so both are refused, never tightened, when group or others may read them (the reason
// is the control token's: whoever could read one may hold it already; privatefiles.h).

struct Member
{
    QString name;
    QByteArray token;        // at least kMinimumTokenLength characters, unique in the file
    double maxSpendUsd = 0;  // per local calendar day; 0 = no cap of their own
};

// --access-tokens FILE: {"members":[{"name":"alice","token":"...","max_spend":5.0}], "share":"team"}.
struct Team
{
    static constexpr qsizetype kMinimumTokenLength = 32;

    QList<Member> members;
    // "share": "team": every member's calls share answers with every other member's. Otherwise (the
    // default) answers are shared only among one member's own calls.
    bool shareAcrossMembers = false;

    bool enabled() const { return !members.isEmpty(); }
};

// --provider-keys FILE: {"openai":"sk-...","anthropic":"sk-ant-...","gemini":"..."}; any may be left out.
struct ProviderKeys
{
    QByteArray openai;
    QByteArray anthropic;
    QByteArray gemini;

    bool any() const { return !openai.isEmpty() || !anthropic.isEmpty() || !gemini.isEmpty(); }
};

// Each refusal says what is wrong with the file and how to put it right.
Expected<Team> loadTeam(const QString &path);
Expected<ProviderKeys> loadProviderKeys(const QString &path);
