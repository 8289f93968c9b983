#include "faults/faultroute.h"

#include <algorithm>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonParseError>

#include "clock.h"
#include "faults/faultinjector.h"
#include "fleet/fleetfaults.h"
#include "http/incomingrequest.h"
#include "http/responsewriter.h"

using namespace Qt::StringLiterals;

namespace {

constexpr QByteArrayView kBase = "/breakwater/faults";

void answerJson(ResponseWriter &writer, int status, const QJsonObject &object)
{
    writer.writeComplete(status, {{"Content-Type", "application/json"}},
                         QJsonDocument(object).toJson(QJsonDocument::Compact));
}

void answerError(ResponseWriter &writer, const ApiError &error, const HeaderList &extra = {})
{
    writer.writeError(ApiStyle::OpenAI, error, extra);
}

ApiError badRule(const Message &why)
{
    return {400, "invalid_request_error", "invalid_fault_rule", why};
}

QJsonArray rulesJson(const QList<FaultRule> &rules, qint64 nowMs)
{
    QJsonArray array;
    for (const FaultRule &rule : rules)
        array.append(rule.toJson(nowMs));
    return array;
}

} // namespace

void answerFaults(FaultInjector &faults, const IncomingRequest &request, ResponseWriter &writer, FleetFaults *fleet)
{
    const QByteArray &method = request.method;
    const bool one = request.path.size() > kBase.size();
    const QByteArray idText = one ? request.path.mid(kBase.size() + 1) : QByteArray();
    const QByteArray allowed = one ? "GET, DELETE" : "GET, POST, DELETE";
    if (method != "GET" && method != "DELETE" && (one || method != "POST")) {
        answerError(writer, {405, "invalid_request_error", "method_not_allowed",
                             u"%1 is not allowed on %2; use %3."_s.arg(QString::fromLatin1(method),
                                 QString::fromUtf8(request.path), QString::fromLatin1(allowed))},
                    {{"Allow", allowed}});
        return;
    }
    const qint64 now = faults.clock().steadyMs();
    if (one) {
        bool ok = false;
        const int id = idText.toInt(&ok);
        const QList<FaultRule> rules = faults.rules();
        const auto found = std::find_if(rules.cbegin(), rules.cend(), [&](const FaultRule &rule) { return ok && rule.id == id; });
        if (found == rules.cend()) {
            answerError(writer, {404, "invalid_request_error", "fault_not_found",
                                 u"No armed fault rule has the id '%1' (GET /breakwater/faults lists them)."_s
                                     .arg(QString::fromUtf8(idText))});
            return;
        }
        if (method == "DELETE") {
            faults.disarm(id);
            answerJson(writer, 200, {{u"deleted"_s, found->toJson(now)}});
        } else {
            answerJson(writer, 200, found->toJson(now));
        }
        return;
    }
    if (method == "GET") {
        const QList<FaultRule> rules = faults.rules();
        answerJson(writer, 200, {{u"armed"_s, int(rules.size())}, {u"faults"_s, rulesJson(rules, now)}});
    } else if (method == "DELETE") {
        answerJson(writer, 200, {{u"cleared"_s, faults.clear()}});
    } else {
        QJsonParseError error;
        const QJsonDocument document = QJsonDocument::fromJson(request.body, &error);
        if (!document.isObject()) {
            answerError(writer, badRule(u"The body must be a JSON object such as {\"rule\": \"503:count=2\"}."_s));
            return;
        }
        QJsonObject fields = document.object();
        const bool forFleet = fields.take(u"fleet"_s).toBool();
        const Expected<FaultRule> rule = FaultRule::fromJson(fields);
        if (!rule.ok()) {
            answerError(writer, badRule(rule.message()));
            return;
        }
        if (forFleet) {
            if (!fleet) {
                answerError(writer, {409, "invalid_request_error", "no_fleet",
                                     Message(QT_TRANSLATE_NOOP("Message", "This Breakwater runs without --shared-state: "
                                                                          "there is no fleet to arm the rule on."))});
                return;
            }
            if (!fleet->isShared()) {
                answerError(writer, {503, "api_error", "shared_state_degraded",
                                     Message(QT_TRANSLATE_NOOP("Message", "The fleet's Redis is unavailable (shared state "
                                                                          "degraded); the rule was not armed."))});
                return;
            }
            const FaultRule armed = fleet->arm(rule.value());
            answerJson(writer, 201, armed.toJson(faults.clock().steadyMs()));
            return;
        }
        // Its expiry is counted from when it was armed, so read the clock after that.
        const FaultRule armed = faults.arm(rule.value());
        answerJson(writer, 201, armed.toJson(faults.clock().steadyMs()));
    }
}

void answerHealth(FaultInjector &faults, bool admissionPaused, ResponseWriter &writer, const QJsonObject &extra)
{
    QJsonArray labels;
    const QList<FaultRule> rules = faults.rules();
    for (const FaultRule &rule : rules)
        labels.append(rule.label());
    QJsonObject health{{u"status"_s, u"ok"_s}, {u"faults_armed"_s, int(rules.size())}, {u"faults"_s, labels}};
    if (admissionPaused)
        health.insert(u"paused"_s, true);
    for (auto it = extra.begin(); it != extra.end(); ++it)
        health.insert(it.key(), it.value());
    answerJson(writer, 200, health);
}
