#include "mockextras.h"

#include <QCryptographicHash>
#include <QDateTime>
#include <QJsonArray>
#include <QJsonObject>

#include "mockrequest.h"

using namespace Qt::StringLiterals;

namespace mockanswers {
namespace {

// A 1x1 transparent PNG: the image every image route answers with.
constexpr auto kTinyPng = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";

QString sha256Of(const QByteArray &bytes)
{
    return QString::fromLatin1(QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex());
}

qint64 now()
{
    return QDateTime::currentSecsSinceEpoch();
}

QString isoTime(qint64 secondsSinceEpoch)
{
    return QDateTime::fromSecsSinceEpoch(secondsSinceEpoch, Qt::UTC).toString(Qt::ISODate);
}

// ---- uploads

struct Part
{
    QByteArray name;
    QByteArray filename;
    QByteArray contentType;
    QByteArray content;
    bool isFile = false;   // the part names a filename
};

// A `key=value` or `key="value"` parameter of a header value such as Content-Disposition.
QByteArray parameter(const QByteArray &header, const QByteArray &key)
{
    const QList<QByteArray> params = header.split(';');
    for (qsizetype i = 1; i < params.size(); ++i) {   // the first is the value itself
        const QByteArray param = params[i].trimmed();
        const qsizetype equals = param.indexOf('=');
        if (equals < 0 || param.left(equals).trimmed().toLower() != key)
            continue;
        QByteArray value = param.mid(equals + 1).trimmed();
        if (value.size() >= 2 && value.startsWith('"') && value.endsWith('"'))
            value = value.mid(1, value.size() - 2);
        return value;
    }
    return {};
}

// The parts of a multipart/form-data body (RFC 7578); what cannot be parsed is left out.
QList<Part> multipartParts(const QByteArray &body, const QByteArray &boundary)
{
    QList<Part> parts;
    if (boundary.isEmpty())
        return parts;
    const QByteArray delimiter = "--" + boundary;
    const QByteArray delimiterLine = "\r\n" + delimiter;   // the CRLF before it ends the part before
    qsizetype at = body.startsWith(delimiter) ? 0 : body.indexOf(delimiterLine);
    if (at < 0)
        return parts;
    if (at > 0)
        at += 2;
    for (;;) {
        at += delimiter.size();
        if (body.mid(at, 2) == "--")
            break;   // the closing delimiter
        const qsizetype lineEnd = body.indexOf("\r\n", at);
        const qsizetype headEnd = lineEnd < 0 ? -1 : body.indexOf("\r\n\r\n", lineEnd);
        const qsizetype next = headEnd < 0 ? -1 : body.indexOf(delimiterLine, headEnd + 4);
        if (next < 0)
            break;
        Part part;
        const QByteArray head = body.mid(lineEnd + 2, qMax<qsizetype>(0, headEnd - lineEnd - 2));
        for (const QByteArray &line : head.split('\n')) {
            const qsizetype colon = line.indexOf(':');
            const QByteArray name = line.left(colon).trimmed().toLower();
            const QByteArray value = line.mid(colon + 1).trimmed();
            if (colon > 0 && name == "content-disposition") {
                part.name = parameter(value, "name");
                part.filename = parameter(value, "filename");
                part.isFile = value.toLower().contains("filename");
            } else if (colon > 0 && name == "content-type") {
                part.contentType = value;
            }
        }
        part.content = body.mid(headEnd + 4, next - headEnd - 4);
        parts += part;
        at = next + 2;
    }
    return parts;
}

struct Received
{
    QJsonObject description;   // what the answer's `received` says
    QList<Part> parts;
};

Received receivedOf(const Call &call)
{
    const QByteArray contentType = headerValue(call.headers, "content-type");
    Received received;
    received.description = {{u"path"_s, call.path}, {u"bytes"_s, qint64(call.body.size())},
                            {u"content_type"_s, QString::fromLatin1(contentType)},
                            {u"sha256"_s, sha256Of(call.body)}};
    if (!contentType.trimmed().toLower().startsWith("multipart/form-data"))
        return received;
    received.parts = multipartParts(call.body, parameter(contentType, "boundary"));
    QJsonObject fields;
    QJsonArray files;
    for (const Part &part : std::as_const(received.parts)) {
        if (!part.isFile) {
            fields[QString::fromUtf8(part.name)] = QString::fromUtf8(part.content);
            continue;
        }
        files.append(QJsonObject{{u"name"_s, QString::fromUtf8(part.name)},
                                 {u"filename"_s, QString::fromUtf8(part.filename)},
                                 {u"content_type"_s, QString::fromLatin1(part.contentType)},
                                 {u"bytes"_s, qint64(part.content.size())},
                                 {u"sha256"_s, sha256Of(part.content)}});
    }
    received.description[u"fields"_s] = fields;
    received.description[u"files"_s] = files;
    return received;
}

Answer uploadAnswer(const Call &call)
{
    const Received received = receivedOf(call);
    const QJsonObject fields = received.description[u"fields"_s].toObject();
    const QJsonObject file = received.description[u"files"_s][0].toObject();
    const QString filename = file[u"filename"_s].toString(u"upload"_s);
    const qint64 fileBytes = file.isEmpty() ? qint64(call.body.size()) : file[u"bytes"_s].toInteger();
    QJsonObject answer;
    switch (call.route) {
    case Route::Files:
        answer = {{u"id"_s, mockId(u"file-"_s, call.sequence)}, {u"object"_s, u"file"_s},
                  {u"bytes"_s, fileBytes},
                  {u"created_at"_s, now()}, {u"expires_at"_s, QJsonValue::Null},
                  {u"filename"_s, filename},
                  {u"purpose"_s, fields[u"purpose"_s].toString(u"user_data"_s)},
                  {u"status"_s, u"processed"_s}, {u"status_details"_s, QJsonValue::Null}};
        break;
    case Route::ImageEdits: {
        const QJsonObject image{{u"b64_json"_s, QString::fromLatin1(kTinyPng)},
                                {u"revised_prompt"_s, QString(u"echo: "_s + fields[u"prompt"_s].toString())}};
        answer = {{u"created"_s, now()}, {u"data"_s, QJsonArray{image}}};
        break;
    }
    case Route::AnthropicFiles:   // Anthropic's FileMetadata
        answer = {{u"id"_s, mockId(u"file_"_s, call.sequence)}, {u"type"_s, u"file"_s},
                  {u"filename"_s, filename},
                  {u"mime_type"_s, file[u"content_type"_s].toString(u"application/octet-stream"_s)},
                  {u"size_bytes"_s, fileBytes}, {u"created_at"_s, isoTime(now())}, {u"downloadable"_s, false}};
        break;
    default:   // AudioTranscriptions
        answer = {{u"text"_s, u"echo: %1 (%2 bytes of audio)"_s.arg(filename, QString::number(fileBytes))}};
        break;
    }
    answer[u"received"_s] = received.description;
    return jsonAnswer(answer);
}

// ---- Anthropic

Answer countTokensAnswer(const Request &request)
{
    return jsonAnswer({{u"input_tokens"_s, request.promptTokens}});
}

QJsonObject messageBatch(const QString &id, qint64 createdAt, int requests)
{
    return {{u"id"_s, id}, {u"type"_s, u"message_batch"_s}, {u"processing_status"_s, u"in_progress"_s},
            {u"request_counts"_s, QJsonObject{{u"processing"_s, requests}, {u"succeeded"_s, 0},
                                              {u"errored"_s, 0}, {u"canceled"_s, 0}, {u"expired"_s, 0}}},
            {u"ended_at"_s, QJsonValue::Null}, {u"created_at"_s, isoTime(createdAt)},
            {u"expires_at"_s, isoTime(createdAt + 24 * 3600)}, {u"archived_at"_s, QJsonValue::Null},
            {u"cancel_initiated_at"_s, QJsonValue::Null}, {u"results_url"_s, QJsonValue::Null}};
}

// ---- OpenAI

QJsonObject batch(const QString &id, const QJsonObject &json)
{
    return {{u"id"_s, id}, {u"object"_s, u"batch"_s},
            {u"endpoint"_s, json[u"endpoint"_s].toString(u"/v1/chat/completions"_s)},
            {u"errors"_s, QJsonValue::Null}, {u"input_file_id"_s, orNull(json[u"input_file_id"_s])},
            {u"completion_window"_s, json[u"completion_window"_s].toString(u"24h"_s)},
            {u"status"_s, u"validating"_s}, {u"output_file_id"_s, QJsonValue::Null},
            {u"error_file_id"_s, QJsonValue::Null}, {u"created_at"_s, now()},
            {u"request_counts"_s, QJsonObject{{u"total"_s, 0}, {u"completed"_s, 0}, {u"failed"_s, 0}}},
            {u"metadata"_s, orNull(json[u"metadata"_s])}};
}

Answer moderationsAnswer(const Call &call, const Request &request)
{
    const QJsonValue input = request.json[u"input"_s];
    const qsizetype inputs = input.isArray() ? qMax<qsizetype>(1, input.toArray().size()) : 1;
    QJsonObject categories;
    QJsonObject scores;
    for (const QString &category : {u"harassment"_s, u"harassment/threatening"_s, u"hate"_s,
                                    u"hate/threatening"_s, u"illicit"_s, u"illicit/violent"_s,
                                    u"self-harm"_s, u"self-harm/instructions"_s, u"self-harm/intent"_s,
                                    u"sexual"_s, u"sexual/minors"_s, u"violence"_s, u"violence/graphic"_s}) {
        categories[category] = false;
        scores[category] = 0.0;
    }
    QJsonArray results;
    for (qsizetype i = 0; i < inputs; ++i) {
        results.append(QJsonObject{{u"flagged"_s, false}, {u"categories"_s, categories},
                                   {u"category_scores"_s, scores}});
    }
    return jsonAnswer({{u"id"_s, mockId(u"modr-"_s, call.sequence)},
                       {u"model"_s, request.json[u"model"_s].toString(u"omni-moderation-latest"_s)},
                       {u"results"_s, results}});
}

Answer imageGenerationsAnswer(const Request &request)
{
    const QString revised = u"echo: "_s + request.json[u"prompt"_s].toString();
    QJsonArray data;
    for (int i = 0; i < qBound(1, request.json[u"n"_s].toInt(1), 10); ++i) {
        data.append(QJsonObject{{u"b64_json"_s, QString::fromLatin1(kTinyPng)},
                                {u"revised_prompt"_s, revised}});
    }
    return jsonAnswer({{u"created"_s, now()}, {u"data"_s, data}});
}

QJsonObject emptyOpenAiList()
{
    return {{u"object"_s, u"list"_s}, {u"data"_s, QJsonArray{}}, {u"first_id"_s, QJsonValue::Null},
            {u"last_id"_s, QJsonValue::Null}, {u"has_more"_s, false}};
}

} // namespace

Answer extraAnswer(const Call &call, const Request &request)
{
    // The id of /v1/batches/{id} and /v1/messages/batches/{id}: the last segment.
    const QString id = call.path.section(u'/', -1);
    switch (call.route) {
    case Route::Files:
    case Route::AnthropicFiles:
    case Route::ImageEdits:
    case Route::AudioTranscriptions:
        return uploadAnswer(call);
    case Route::FileList:
        return jsonAnswer(emptyOpenAiList());
    case Route::AnthropicFileList:   // Anthropic's page: no `object`, the first and last ids
        return jsonAnswer({{u"data"_s, QJsonArray()}, {u"has_more"_s, false},
                           {u"first_id"_s, QJsonValue::Null}, {u"last_id"_s, QJsonValue::Null}});
    case Route::CountTokens:
        return countTokensAnswer(request);
    case Route::MessageBatchCreate:
        return jsonAnswer(messageBatch(mockId(u"msgbatch_"_s, call.sequence), now(),
                                       int(request.json[u"requests"_s].toArray().size())));
    case Route::MessageBatchList: {
        QJsonObject list = emptyOpenAiList();   // Anthropic's list has no `object`
        list.remove(u"object"_s);
        return jsonAnswer(list);
    }
    case Route::MessageBatchGet:
        return jsonAnswer(messageBatch(id, now(), 0));
    case Route::Moderations:
        return moderationsAnswer(call, request);
    case Route::ImageGenerations:
        return imageGenerationsAnswer(request);
    case Route::BatchCreate:
        return jsonAnswer(batch(mockId(u"batch_"_s, call.sequence), request.json));
    case Route::BatchList:
        return jsonAnswer(emptyOpenAiList());
    case Route::BatchGet:
        return jsonAnswer(batch(id, {}));
    default:
        return errorOf(call.route, ApiError::notFound(u"The mock provider has no route for this URL."_s));
    }
}

} // namespace mockanswers
