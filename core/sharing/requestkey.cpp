#include "sharing/requestkey.h"

#include <QCryptographicHash>
#include <QJsonDocument>
#include <QUrl>

#include "http/incomingrequest.h"

RequestKeyInput RequestKeyInput::from(const QByteArray &route, const QUrl &upstreamBase,
                                      const IncomingRequest &request, const QJsonObject &body)
{
    return {route, upstreamBase.toEncoded(), credentialOf(request), request.header("anthropic-version"),
            request.header("anthropic-beta"), request.header("openai-organization"),
            request.header("openai-project"), body};
}

QByteArray canonicalJson(const QJsonObject &body)
{
    return QJsonDocument(body).toJson(QJsonDocument::Compact);
}

QByteArray requestKey(const RequestKeyInput &input)
{
    QCryptographicHash hash(QCryptographicHash::Sha256);
    // Each field is length-prefixed so that no two different inputs can produce the same stream.
    auto field = [&hash](const QByteArray &value) {
        const QByteArray length = QByteArray::number(value.size()) + ':';
        hash.addData(length);
        hash.addData(value);
    };
    field(input.route);
    field(input.upstream);
    field(QCryptographicHash::hash(input.credential, QCryptographicHash::Sha256));
    field(input.anthropicVersion);
    field(input.anthropicBeta);
    field(input.openaiOrganization);
    field(input.openaiProject);
    field(canonicalJson(input.body));
    return hash.result();
}

QByteArray fingerprint(const QByteArray &bytes)
{
    return QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex().left(12);
}
