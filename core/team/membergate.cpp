#include "team/membergate.h"

#include <QDateTime>

#include "accounting/callrecord.h"
#include "clock.h"
#include "controlgate.h"
#include "http/incomingrequest.h"
#include "http/protocol.h"

using namespace Qt::StringLiterals;

namespace {

constexpr QByteArrayView kTokenHeader = "x-breakwater-token";

// The value of a credential header without its scheme ("Bearer "), as an SDK sends its key.
QByteArray keyIn(const CredentialHeader &header, const QByteArray &value)
{
    const QByteArray trimmed = value.trimmed();
    if (!header.scheme.isEmpty() && trimmed.size() > header.scheme.size()
        && trimmed.left(header.scheme.size()).compare(header.scheme, Qt::CaseInsensitive) == 0)
        return trimmed.mid(header.scheme.size()).trimmed();
    return trimmed;
}

QByteArray providerKey(const ProviderKeys &keys, ApiFamily family)
{
    switch (family) {
    case ApiFamily::OpenAI: return keys.openai;
    case ApiFamily::Anthropic: return keys.anthropic;
    case ApiFamily::Gemini: return keys.gemini;
    }
    return {};
}

ApiError unauthorized(const QByteArray &code, const QString &why, bool providerKeys)
{
    return {401, "authentication_error", code,
            QString(why + (providerKeys
                       ? u" This Breakwater serves a team: send your member token as your API key "
                         "(OPENAI_API_KEY / ANTHROPIC_API_KEY) or in x-breakwater-token."_s
                       : u" This Breakwater serves a team: send your member token in the x-breakwater-token "
                         "header, beside your own provider key."_s))};
}

} // namespace

MemberGate::MemberGate(Team team, ProviderKeys keys, const Clock &clock)
    : m_team(std::move(team)), m_keys(std::move(keys)), m_clock(clock),
      m_day(QDateTime::fromMSecsSinceEpoch(clock.wallMs()).date())
{
}

const Member *MemberGate::memberWithToken(const QByteArray &sent) const
{
    // Every member is compared, each in constant time (sameControlToken hashes both sides first),
    // so the time taken says nothing about which member, or how much of a token, a guess matched.
    const Member *found = nullptr;
    for (const Member &member : m_team.members) {
        if (sameControlToken(sent, member.token) && !found)
            found = &member;
    }
    return found;
}

MemberGate::Admission MemberGate::admit(IncomingRequest &request, ApiStyle style)
{
    // Where a token may stand: x-breakwater-token, and with provider keys each credential header.
    struct Candidate
    {
        QByteArray lowerName;
        QByteArray token;
    };
    QList<Candidate> candidates;
    for (const auto &[name, value] : std::as_const(request.headers)) {
        const QByteArray lower = name.toLower();
        if (lower == kTokenHeader)
            candidates.append({lower, value.trimmed()});
        else if (const CredentialHeader *credential = credentialHeader(lower); credential && m_keys.any())
            candidates.append({lower, keyIn(*credential, value)});
    }
    const Member *member = nullptr;
    QList<QByteArray> carriers;   // the headers that held the member's token
    for (const Candidate &candidate : std::as_const(candidates)) {
        if (const Member *found = memberWithToken(candidate.token)) {
            if (member && member != found) {
                request.headers.removeIf([](const auto &header) { return header.first.toLower() == kTokenHeader; });
                return {{}, unauthorized("member_token_invalid", u"The request carries the tokens of two members."_s, m_keys.any())};
            }
            member = found;
            carriers.append(candidate.lowerName);
        }
    }
    if (!member) {
        // Refused calls are recorded too: what was sent in x-breakwater-token (a mistyped token is
        // nearly a real one) is not kept. Credential headers are redacted in the record anyway.
        request.headers.removeIf([](const auto &header) { return header.first.toLower() == kTokenHeader; });
        const bool sentOne = std::any_of(candidates.cbegin(), candidates.cend(),
                                         [](const Candidate &c) { return c.lowerName == kTokenHeader; });
        return {{}, sentOne || (m_keys.any() && !candidates.isEmpty())
                        ? unauthorized("member_token_invalid", u"The token sent is not a member's of this Breakwater."_s, m_keys.any())
                        : unauthorized("member_token_required", u"This API call needs a member token."_s, m_keys.any())};
    }
    // The token never goes on: not upstream, not into the record, the key or the log.
    const QByteArray key = providerKey(m_keys, familyOf(style));
    HeaderList kept;
    for (const auto &[name, value] : std::as_const(request.headers)) {
        const QByteArray lower = name.toLower();
        if (carriers.contains(lower) || lower == kTokenHeader || (!key.isEmpty() && isCredentialHeader(lower)))
            continue;
        kept.append({name, value});
    }
    if (!key.isEmpty()) {
        const CredentialHeader &usual = usualCredentialHeader(familyOf(style));
        kept.append({usual.name, QByteArray(usual.scheme + key)});
    }
    request.headers = kept;
    request.member = member->name;

    rollOver();
    if (member->maxSpendUsd > 0 && m_spentUsd.value(member->name) >= member->maxSpendUsd) {
        return {member->name, ApiError{429, "rate_limit_error", "member_spend_limit_exceeded",
                u"Member '%1' has reached their own spend limit: %2 of %3 USD spent today (local time; "
                "max_spend in the access-tokens file)."_s.arg(member->name)
                    .arg(m_spentUsd.value(member->name), 0, 'f', 4).arg(member->maxSpendUsd, 0, 'f', 2)}};
    }
    return {member->name, std::nullopt};
}

void MemberGate::rollOver()
{
    const QDate today = QDateTime::fromMSecsSinceEpoch(m_clock.wallMs()).date();
    if (today != m_day) {
        m_day = today;
        m_spentUsd.clear();
    }
}

void MemberGate::charge(const CallRecord &record)
{
    if (record.member.isEmpty() || record.costUsd <= 0)
        return;
    rollOver();
    m_spentUsd[record.member] += record.costUsd;
}

double MemberGate::spentToday(const QString &member)
{
    rollOver();
    return m_spentUsd.value(member);
}
