#include "replay/replayer.h"

#include <algorithm>
#include <utility>

#include <QHostAddress>
#include <QLoggingCategory>
#include <QNetworkAccessManager>
#include <QNetworkProxy>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QUrlQuery>

#include "accounting/callinspection.h"
#include "accounting/callrecord.h"
#include "http/incomingrequest.h"
#include "http/protocol.h"
#include "http/tlsidentity.h"
#include "proxyconfig.h"
#include "proxyroutes.h"

using namespace Qt::StringLiterals;

Q_LOGGING_CATEGORY(lcReplay, "breakwater.replay", QtInfoMsg)

namespace {

// Headers the network manager writes itself (Host, Content-Length, the encoding it can decode) or
// that belong to the recorded connection, not to the call.
bool leftOut(const QByteArray &lowerName)
{
    return isHopByHopHeader(lowerName) || lowerName == "host" || lowerName == "content-length"
        || lowerName == "accept-encoding" || lowerName == "cache-control";
}

// The credential header a replay carries: the one the recorded call used (its value was redacted
// when recorded), else the one its API style's SDKs send (http/protocol.h's table).
QByteArray replayCredentialHeader(const HeaderList &recorded, ApiStyle style, const QByteArray &credential,
                                  QByteArray *value)
{
    for (const auto &header : recorded) {
        if (const CredentialHeader *used = credentialHeader(header.first.toLower())) {
            *value = used->scheme + credential;
            return header.first;
        }
    }
    const CredentialHeader &usual = usualCredentialHeader(familyOf(style));
    *value = usual.scheme + credential;
    return usual.name;
}

bool isLoopback(const QUrl &url)
{
    const QString host = url.host();
    return host == u"localhost"_s || QHostAddress(host).isLoopback();
}

} // namespace

Replayer::Replayer(QObject *parent)
    : QObject(parent), m_network(new QNetworkAccessManager(this))
{
}

Replayer::~Replayer()
{
    abort();
}

// The dashboard shows these sentences in its language; the log keeps them English (message.h).
Message Replayer::refusal(const CallRecord &record)
{
    const QByteArray method = record.method.isEmpty() ? QByteArray("POST") : record.method;
    const bool hasBody = method != "GET" && method != "HEAD" && method != "DELETE";
    if (hasBody && record.requestBody.isEmpty())
        return Message(QT_TRANSLATE_NOOP("Message", "This call's request body was not logged: start Breakwater with --log-bodies to replay calls."));
    if (record.target.isEmpty() && record.route.isEmpty())
        return Message(QT_TRANSLATE_NOOP("Message", "This record does not say where the call went (it predates the call log's schema 4)."));
    return {};
}

ApiStyle Replayer::styleOf(const CallRecord &record)
{
    // As the proxy told it when the call came (proxyroutes.h): by its path and its headers' names,
    // whatever its upstream is called (a routed upstream has a name of its own).
    IncomingRequest request;
    request.method = record.method.isEmpty() ? QByteArray("POST") : record.method;
    const QByteArray target = record.target.isEmpty() ? record.route : record.target;
    request.path = target.left(target.indexOf('?'));
    request.headers = CallInspection::parseHeaders(record.requestHeaders);
    const RouteMatch match = findRoute(request);
    return match.found ? match.route.style : match.errorStyle;
}

QString Replayer::credentialVariable(ApiStyle style)
{
    const ApiFamily family = familyOf(style);
    return QString::fromLatin1(usualCredentialHeader(family).variable(family));
}

QByteArray Replayer::environmentCredential(ApiStyle style)
{
    return qEnvironmentVariable(qPrintable(credentialVariable(style))).trimmed().toUtf8();
}

QUrl Replayer::providerUrl(ApiStyle style)
{
    const ProxyConfig defaults;
    switch (style) {
    case ApiStyle::Anthropic: return defaults.anthropicUpstream;
    case ApiStyle::Gemini: return defaults.geminiUpstream;
    case ApiStyle::OpenAI: break;
    }
    return defaults.openaiUpstream;
}

bool Replayer::environmentCredentialFits(ApiStyle style, const QUrl &destination)
{
    const QUrl provider = providerUrl(style);
    return destination.isValid() && destination.scheme() == provider.scheme()
        && destination.host().compare(provider.host(), Qt::CaseInsensitive) == 0
        && destination.port(443) == provider.port(443);
}

QUrl Replayer::urlFor(const QUrl &baseUrl, const QByteArray &target)
{
    QUrl url = baseUrl;
    const qsizetype queryAt = target.indexOf('?');
    QByteArray path = queryAt < 0 ? target : target.left(queryAt);
    QString basePath = url.path(QUrl::FullyEncoded);
    if (basePath.endsWith(u'/'))
        basePath.chop(1);
    if (basePath.endsWith(u"/v1"_s) && path.startsWith("/v1/"))
        path = path.mid(3);
    // The target's path as recorded, percent-encoding included (an id such as openai%2Fgpt-4o).
    url.setPath(basePath + QString::fromUtf8(path), QUrl::TolerantMode);
    if (queryAt >= 0)
        url.setQuery(QString::fromUtf8(target.mid(queryAt + 1)), QUrl::TolerantMode);
    return url;
}

bool Replayer::replay(const CallRecord &record, const Options &options, Message *why)
{
    const auto refuse = [why](const Message &reason) {
        if (why)
            *why = reason;
        return false;
    };
    if (m_reply)
        return refuse(Message(QT_TRANSLATE_NOOP("Message", "A replay is already running.")));
    if (const Message refused = refusal(record); !refused.isEmpty())
        return refuse(refused);
    if (!options.baseUrl.isValid() || (options.baseUrl.scheme() != u"http"_s && options.baseUrl.scheme() != u"https"_s))
        return refuse(Message(QT_TRANSLATE_NOOP("Message", "The base URL must be an http:// or https:// URL.")));

    const QByteArray method = record.method.isEmpty() ? QByteArray("POST") : record.method;
    const QByteArray target = record.target.isEmpty() ? record.route : record.target;
    const QByteArray body = options.body.isEmpty() ? record.requestBody : options.body;
    m_answer = Answer{};
    m_answer.url = urlFor(options.baseUrl, target);
    if (!options.credential.isEmpty()) {
        // The key goes in its header below: a recorded ?key=REDACTED would be sent as a second key.
        QUrlQuery query(m_answer.url);
        for (const auto &[name, value] : query.queryItems(QUrl::FullyEncoded)) {
            if (isCredentialParameter(name.toUtf8()))
                query.removeAllQueryItems(name);
        }
        m_answer.url.setQuery(query);
    }
    m_answer.sentBody = body;
    m_maxAnswerBytes = options.maxAnswerBytes;
    m_cutAtBound = false;

    QNetworkRequest request(m_answer.url);
    if (!options.caFile.isEmpty()) {   // a self-signed local server, a corporate TLS proxy
        QSslConfiguration ssl = request.sslConfiguration();
        if (const Result trusted = trustCaFile(ssl, options.caFile); !trusted.ok())
            return refuse(trusted.message());
        request.setSslConfiguration(ssl);
    }
    // Qt keeps a connection (and its verdict on the server) per host: one made under other
    // authorities must not be reused for this replay.
    if (options.caFile != m_caFile) {
        m_network->clearConnectionCache();
        m_caFile = options.caFile;
    }
    // What is sent is what the provider said, so a redirect is shown rather than followed.
    request.setAttribute(QNetworkRequest::RedirectPolicyAttribute, QNetworkRequest::ManualRedirectPolicy);
    request.setTransferTimeout(int(options.timeout.count()));
    const HeaderList recorded = CallInspection::parseHeaders(record.requestHeaders);
    bool hasContentType = false;
    const auto send = [&](const QByteArray &name, const QByteArray &value, const QByteArray &shown) {
        request.setRawHeader(name, value);
        m_answer.sentHeaders += name + ": " + shown + '\n';
    };
    for (const auto &[name, value] : recorded) {
        const QByteArray lower = name.toLower();
        if (leftOut(lower) || CallInspection::isSecretHeader(lower))
            continue;
        hasContentType = hasContentType || lower == "content-type";
        send(name, value, value);
    }
    if (!hasContentType && !body.isEmpty())
        send("Content-Type", "application/json", "application/json");
    if (options.throughBreakwater)   // a fresh upstream call: no join, no cached answer
        send("Cache-Control", "no-cache", "no-cache");
    if (!options.credential.isEmpty()) {
        QByteArray value;
        const QByteArray name = replayCredentialHeader(recorded, styleOf(record), options.credential, &value);
        send(name, value, CallInspection::kRedacted);
    }

    // A proxy from the environment must not see a call to a loopback address (Breakwater itself,
    // a local model); anything else goes the way the system says.
    m_network->setProxy(isLoopback(m_answer.url) ? QNetworkProxy(QNetworkProxy::NoProxy)
                                                 : QNetworkProxy(QNetworkProxy::DefaultProxy));
    m_elapsed.start();
    m_reply = m_network->sendCustomRequest(request, method, body);
    qCInfo(lcReplay) << "replaying" << record.requestId << method << m_answer.url.toDisplayString();
    // Each reply speaks only for itself: an aborted one may still report after the next began.
    QNetworkReply *reply = m_reply;
    connect(reply, &QIODevice::readyRead, this, [this, reply] {
        if (reply == m_reply)
            onReadyRead();
    });
    connect(reply, &QNetworkReply::finished, this, [this, reply] {
        if (reply == m_reply)
            onFinished();
    });
    return true;
}

void Replayer::abort()
{
    if (!m_reply)
        return;
    QNetworkReply *reply = std::exchange(m_reply, nullptr);
    reply->disconnect(this);
    reply->abort();
    reply->deleteLater();
}

bool Replayer::keep(const QByteArray &chunk)
{
    const qint64 room = std::max<qint64>(m_maxAnswerBytes - m_answer.body.size(), 0);
    m_answer.body += chunk.left(room);
    if (chunk.size() <= room)
        return true;
    m_answer.truncated = true;
    return false;
}

void Replayer::onReadyRead()
{
    if (m_cutAtBound || keep(m_reply->readAll()))
        return;
    // Enough to look at: the rest is not read, and the answer stands as far as it came.
    m_cutAtBound = true;
    m_reply->abort();   // finished() comes now, or has come already
}

void Replayer::onFinished()
{
    QNetworkReply *reply = std::exchange(m_reply, nullptr);
    reply->deleteLater();
    if (!m_cutAtBound && reply->isOpen())   // a reply that timed out is closed already
        keep(reply->readAll());
    m_answer.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    for (const auto &[name, value] : reply->rawHeaderPairs())
        m_answer.headers += name + ": " + value + '\n';
    if (m_answer.status == 0 && !m_cutAtBound) {
        const bool timedOut = reply->error() == QNetworkReply::OperationCanceledError
                           || reply->error() == QNetworkReply::TimeoutError;
        // Qt's own text comes translated by Qt's translator already: it is shown, never logged.
        m_answer.error = timedOut ? Message(QT_TRANSLATE_NOOP("Message", "no answer within the timeout")) : Message(reply->errorString());
    } else if (m_answer.status > 0 && !m_cutAtBound && reply->error() != QNetworkReply::NoError
               && reply->error() < QNetworkReply::ContentAccessDenied) {
        // A connection-level failure after the headers came (a stream cut midway): say so, keep the rest.
        m_answer.error = reply->errorString();
    }
    m_answer.elapsedMs = m_elapsed.elapsed();
    qCInfo(lcReplay) << "replay answered" << m_answer.status << m_answer.body.size() << "bytes" << reply->error();
    Q_EMIT finished(m_answer);
}
