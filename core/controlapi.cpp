#include "controlapi.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonParseError>

#include "http/incomingrequest.h"
#include "http/responsewriter.h"
#include "livesettings.h"
#include "proxyserver.h"
#include "upstream/circuitbreaker.h"

using namespace Qt::StringLiterals;

namespace {

void answerJson(ResponseWriter &writer, const QJsonObject &object)
{
    writer.writeComplete(200, {{"Content-Type", "application/json"}},
                         QJsonDocument(object).toJson(QJsonDocument::Compact));
}

ApiError notFound(const IncomingRequest &request)
{
    return ApiError::notFound(u"Unknown control route %1 %2."_s.arg(QString::fromLatin1(request.method),
                                                                    QString::fromUtf8(request.path)));
}

void answerSettings(ProxyServer &proxy, const IncomingRequest &request, ResponseWriter &writer)
{
    if (request.method == "GET") {
        answerJson(writer, proxy.liveSettings().toJson());
        return;
    }
    if (request.method != "PUT" && request.method != "PATCH") {
        writer.writeError(ApiStyle::OpenAI, {405, "invalid_request_error", "method_not_allowed",
                                             u"Use GET to read the live settings, PUT or PATCH to change them."_s},
                          {{"Allow", "GET, PUT, PATCH"}});
        return;
    }
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(request.body, &parseError);
    if (!document.isObject()) {
        writer.writeError(ApiStyle::OpenAI, ApiError::badRequest(
            u"The body must be a JSON object of settings, e.g. {\"timeout\": 2}."_s));
        return;
    }
    const Expected<LiveSettings> changed = LiveSettings::withChanges(proxy.liveSettings(), document.object());
    if (!changed.ok()) {
        //: %1 is why the setting was refused
        writer.writeError(ApiStyle::OpenAI, {400, "invalid_request_error", "invalid_setting",
                                             Message(QT_TRANSLATE_NOOP("Message", "%1; nothing was changed."))
                                                 .arg(changed.message())});
        return;
    }
    proxy.applyLiveSettings(changed.value());
    answerJson(writer, proxy.liveSettings().toJson());
}

} // namespace

void answerControl(ProxyServer &proxy, const IncomingRequest &request, ResponseWriter writer)
{
    // "/breakwater/<what>[/<name>/<action>]"; the route table has matched the method and the shape.
    const QList<QByteArray> segments = request.path.split('/');
    const QByteArray what = segments.value(2);
    if (what == "settings") {
        answerSettings(proxy, request, writer);
    } else if (what == "breaker") {
        const QByteArray upstream = segments.value(3);
        const std::optional<BreakerAction> action = breakerActionFromName(segments.value(4));
        const std::optional<bool> acted = action ? proxy.actOnBreaker(upstream, *action) : std::nullopt;
        if (!acted) {
            writer.writeError(ApiStyle::OpenAI, notFound(request));
            return;
        }
        const ProxyServer::Upstream &guarded = *proxy.upstreamNamed(upstream);
        QJsonObject answer{{u"upstream"_s, QString::fromLatin1(upstream)},
                           {u"breaker"_s, QString::fromLatin1(breakerStateName(guarded.breaker->state()))}};
        answer.insert(*action == BreakerAction::Probe ? u"probing"_s : u"changed"_s, *acted);
        answerJson(writer, answer);
    } else if (what == "admission" && (segments.value(3) == "pause" || segments.value(3) == "resume")) {
        proxy.setAdmissionPaused(segments.value(3) == "pause");
        answerJson(writer, {{u"paused"_s, proxy.isAdmissionPaused()}});
    } else {
        writer.writeError(ApiStyle::OpenAI, notFound(request));
    }
}
