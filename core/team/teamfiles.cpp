#include "team/teamfiles.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>

#include <cmath>

#include "privatefiles.h"

using namespace Qt::StringLiterals;

namespace {

constexpr qint64 kMaximumFileBytes = 1024 * 1024;

// The file's JSON object, once its mode shows that only its owner can read it.
Expected<QJsonObject> readPrivateJson(const QString &path, const QString &what)
{
    const QFileInfo info(path);
    if (!info.exists())
        return Failure{u"%1 %2: no such file"_s.arg(what, path)};
    if (const QString mode = looseMode(path); !mode.isEmpty())
        return Failure{u"refusing %1 %2: other users may read or change it (mode %3), so the secrets in it may "
                       "be known already; make it private with chmod 600 (and change the secrets if others "
                       "could read it)"_s.arg(what, path, mode)};
    QFile file(path);
    if (!info.isFile() || !file.open(QIODevice::ReadOnly))
        return Failure{u"cannot read %1 %2: %3"_s.arg(what, path, info.isFile() ? file.errorString() : u"not a file"_s)};
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(file.read(kMaximumFileBytes), &error);
    if (!document.isObject())
        return Failure{u"%1 %2 is not a JSON object: %3"_s.arg(
            what, path, error.error == QJsonParseError::NoError ? u"it holds another JSON value"_s : error.errorString())};
    return document.object();
}

} // namespace

Expected<Team> loadTeam(const QString &path)
{
    const QString what = u"the access-tokens file"_s;
    const Expected<QJsonObject> read = readPrivateJson(path, what);
    if (!read.ok())
        return Failure{read.error()};
    const QJsonObject object = read.value();
    const auto bad = [&](const QString &why) { return Failure{u"%1 %2: %3"_s.arg(what, path, why)}; };
    Team team;
    const QJsonValue share = object.value(u"share"_s);
    if (!share.isUndefined()) {
        if (share != u"team"_s && share != u"member"_s)
            return bad(u"\"share\" is \"team\" (every member shares answers) or \"member\" (the default)"_s);
        team.shareAcrossMembers = share == u"team"_s;
    }
    const QJsonArray members = object.value(u"members"_s).toArray();
    if (members.isEmpty())
        return bad(u"no members: expected {\"members\":[{\"name\":\"alice\",\"token\":\"...\"}]}"_s);
    QSet<QString> names;
    QSet<QByteArray> tokens;
    for (qsizetype i = 0; i < members.size(); ++i) {
        const QJsonObject entry = members.at(i).toObject();
        Member member;
        member.name = entry.value(u"name"_s).toString().trimmed();
        member.token = entry.value(u"token"_s).toString().toUtf8();
        const QString which = member.name.isEmpty() ? u"member %1"_s.arg(i + 1) : u"member '%1'"_s.arg(member.name);
        if (member.name.isEmpty())
            return bad(which + u" has no \"name\""_s);
        if (names.contains(member.name))
            return bad(u"two members are named '%1'"_s.arg(member.name));
        if (member.token.size() < Team::kMinimumTokenLength)
            return bad(u"%1: the token has %2 characters, fewer than %3 (make one with "
                       "`openssl rand -base64 32`)"_s.arg(which).arg(member.token.size()).arg(Team::kMinimumTokenLength));
        // The token is never named in a message; the first member that has it is.
        if (tokens.contains(member.token))
            return bad(u"%1 has the same token as another member: each member needs a token of their own"_s.arg(which));
        const QJsonValue cap = entry.value(u"max_spend"_s);
        if (!cap.isUndefined()) {
            member.maxSpendUsd = cap.toDouble(-1);
            if (!cap.isDouble() || !std::isfinite(member.maxSpendUsd) || member.maxSpendUsd <= 0)
                return bad(which + u": \"max_spend\" is US dollars per day greater than 0, e.g. 5.0"_s);
        }
        names.insert(member.name);
        tokens.insert(member.token);
        team.members.append(member);
    }
    return team;
}

Expected<ProviderKeys> loadProviderKeys(const QString &path)
{
    const QString what = u"the provider-keys file"_s;
    const Expected<QJsonObject> read = readPrivateJson(path, what);
    if (!read.ok())
        return Failure{read.error()};
    const QJsonObject object = read.value();
    ProviderKeys keys;
    for (auto it = object.begin(); it != object.end(); ++it) {
        QByteArray *key = it.key() == u"openai"_s ? &keys.openai
                        : it.key() == u"anthropic"_s ? &keys.anthropic
                        : it.key() == u"gemini"_s ? &keys.gemini : nullptr;
        if (!key)
            return Failure{u"%1 %2: unknown key \"%3\" (expected \"openai\", \"anthropic\" or \"gemini\")"_s.arg(what, path, it.key())};
        if (!it.value().isString() || it.value().toString().trimmed().isEmpty())
            return Failure{u"%1 %2: \"%3\" is the provider's API key, as a string"_s.arg(what, path, it.key())};
        *key = it.value().toString().trimmed().toUtf8();
    }
    if (!keys.any())
        return Failure{u"%1 %2 holds no key: expected {\"openai\":\"sk-...\",\"anthropic\":\"sk-ant-...\"}"_s.arg(what, path)};
    return keys;
}
