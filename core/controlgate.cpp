#include "controlgate.h"

#include <QCryptographicHash>

#include "http/incomingrequest.h"
#include "http/responsewriter.h"

using namespace Qt::StringLiterals;

namespace {

constexpr QByteArrayView kPrefix = "/breakwater";

ApiError unauthorized(const QByteArray &code, const QString &why)
{
    return {401, "authentication_error", code,
            QString(why + u" Breakwater's own routes under /breakwater/ take its control token as "
                  "`Authorization: Bearer TOKEN`; the token is in the control-token file in Breakwater's "
                  "configuration folder (~/.config/breakwater/control-token unless --control-token names "
                  "another), which only the user running Breakwater can read."_s)};
}

// The token of an `Authorization: Bearer TOKEN` header (the scheme in any case); null without one.
QByteArray bearerToken(const IncomingRequest &request)
{
    const QByteArray value = request.header("authorization").trimmed();
    const qsizetype space = value.indexOf(' ');
    if (space < 0 || value.left(space).compare("bearer", Qt::CaseInsensitive) != 0)
        return {};
    return value.mid(space + 1).trimmed();
}

} // namespace

bool isControlPath(const QByteArray &path)
{
    return path.startsWith(kPrefix) && (path.size() == kPrefix.size() || path.at(kPrefix.size()) == '/');
}

bool sameControlToken(QByteArrayView sent, QByteArrayView token)
{
    // Both hashed first, so the comparison below always runs over 32 bytes whatever was sent, and
    // its time says nothing about how long the token is or how much of it a guess got right.
    const QByteArray a = QCryptographicHash::hash(sent, QCryptographicHash::Sha256);
    const QByteArray b = QCryptographicHash::hash(token, QCryptographicHash::Sha256);
    unsigned char difference = 0;
    for (qsizetype i = 0; i < a.size(); ++i)
        difference |= static_cast<unsigned char>(a[i] ^ b[i]);
    return difference == 0 && !token.isEmpty();
}

bool admitControl(QByteArrayView token, const IncomingRequest &request, ResponseWriter &writer)
{
    const bool reads = request.method == "GET" || request.method == "HEAD";
    if (!reads && !request.header("origin").isEmpty()) {
        writer.writeError(ApiStyle::OpenAI, {403, "permission_error", "origin_not_allowed",
                                             u"Breakwater's control routes take no change from a web page (the "
                                             "request has an Origin header); use curl, `breakwater fault` or the "
                                             "dashboard."_s});
        return false;
    }
    const QByteArray sent = bearerToken(request);
    if (sameControlToken(sent, token))
        return true;
    const ApiError refusal = sent.isEmpty()
        ? unauthorized("control_token_required", u"This route needs Breakwater's control token."_s)
        : unauthorized("control_token_invalid", u"The control token sent is not this Breakwater's."_s);
    writer.writeError(ApiStyle::OpenAI, refusal, {{"WWW-Authenticate", R"(Bearer realm="breakwater")"}});
    return false;
}
