#include "accounting/curlcommand.h"

#include <QStringList>

#include "accounting/callinspection.h"
#include "accounting/calllog.h"
#include "accounting/callrecord.h"
#include "http/protocol.h"

using namespace Qt::StringLiterals;

namespace {

// What a secret header's value becomes: a credential header's, the variable the SDKs of the
// record's upstream read its key from (http/protocol.h's table: Authorization: Bearer
// $OPENAI_API_KEY, or $ANTHROPIC_AUTH_TOKEN to the Anthropic upstream; x-api-key: $ANTHROPIC_API_KEY);
// empty for a header to leave out (cookies).
QString credentialValue(const QByteArray &lowerName, const QByteArray &upstream)
{
    if (const CredentialHeader *credential = credentialHeader(lowerName)) {
        const ApiFamily family = upstream == "anthropic" ? ApiFamily::Anthropic : ApiFamily::OpenAI;
        return QString::fromLatin1(credential->scheme + '$' + credential->variable(family));
    }
    if (lowerName == "cookie" || lowerName == "set-cookie" || lowerName == "proxy-authorization")
        return {};
    // Any other header named like a secret: a variable named after it (x-custom-token -> $X_CUSTOM_TOKEN).
    return u'$' + QString::fromLatin1(lowerName).toUpper().replace(u'-', u'_');
}

bool leftOut(const QByteArray &lowerName)
{
    return isHopByHopHeader(lowerName) || lowerName == "host" || lowerName == "content-length"
        || lowerName == "accept-encoding";   // curl would print the compressed bytes
}

} // namespace

QString CurlCommand::shellQuote(const QString &text)
{
    QString quoted = text;
    quoted.replace(u"'"_s, u"'\\''"_s);
    return u'\'' + quoted + u'\'';
}

QString CurlCommand::forRecord(const CallRecord &record, const QString &origin)
{
    const QByteArray method = record.method.isEmpty() ? QByteArray("POST") : record.method;
    const QByteArray target = record.target.isEmpty() ? record.route : record.target;
    QStringList words{u"curl"_s};
    if (record.stream)
        words.append(u"--no-buffer"_s);
    if (method != "GET")
        words += {u"-X"_s, QString::fromLatin1(method)};
    words.append(shellQuote(origin + QString::fromUtf8(target)));
    for (const auto &[name, value] : CallInspection::parseHeaders(record.requestHeaders)) {
        const QByteArray lower = name.toLower();
        if (leftOut(lower))
            continue;
        if (CallInspection::isSecretHeader(lower)) {
            const QString variable = credentialValue(lower, record.upstream);
            if (!variable.isEmpty())   // only the variable is expanded: a fixed text, safe in double quotes
                words += {u"-H"_s, u"\"%1: %2\""_s.arg(QString::fromLatin1(name), variable)};
            continue;
        }
        words += {u"-H"_s, shellQuote(QString::fromUtf8(name + ": " + value))};
    }
    QString note;
    if (target.contains(QByteArray(QByteArray("=") + kRedactedInUrl)))
        note = u"# A key in the query was not recorded: put it where REDACTED stands.\n"_s;
    if (!record.requestBody.isEmpty()) {
        // Redacted as the call log stores it: the in-memory record may hold the body as it came.
        words += {u"--data-binary"_s, shellQuote(QString::fromUtf8(CallLog::redactCredentials(record.requestBody)))};
    } else if (method != "GET" && method != "HEAD" && method != "DELETE") {
        note += u"# The request body was not logged (start Breakwater with --log-bodies to keep bodies);\n"
               "# put it in body.json.\n"_s;
        words += {u"--data-binary"_s, u"@body.json"_s};
    }
    // One option and its value per line, so a long command stays readable.
    QString command = note + words.takeFirst();
    for (qsizetype i = 0; i < words.size(); ++i) {
        const bool option = words[i].startsWith(u'-') && i + 1 < words.size() && words[i] != u"--no-buffer"_s;
        command += u" \\\n  "_s + words[i];
        if (option)
            command += u' ' + words[++i];
    }
    return command + u'\n';
}
