#include "wireevents.h"

#include <QHostAddress>
#include <QJsonDocument>
#include <QTcpSocket>

using namespace Qt::StringLiterals;

QList<SseEvent> sseEvents(const LoopbackResponse &response)
{
    QList<SseEvent> events;
    for (const QByteArray &chunk : response.chunks) {
        SseEvent event;
        for (const QByteArray &line : chunk.split('\n')) {
            if (line.startsWith("event: "))
                event.name = line.mid(7);
            else if (line.startsWith("data: "))
                event.data = line.mid(6);
        }
        event.json = QJsonDocument::fromJson(event.data).object();
        events += event;
    }
    return events;
}

QList<QByteArray> eventNames(const QList<SseEvent> &events, bool withPings)
{
    QList<QByteArray> names;
    for (const SseEvent &event : events) {
        if ((withPings || event.name != "ping") && (names.isEmpty() || names.constLast() != event.name))
            names += event.name;
    }
    return names;
}

QString streamedText(const QList<SseEvent> &events)
{
    QString text;
    for (const SseEvent &event : events) {
        if (event.name == "response.output_text.delta")
            text += event.json[u"delta"_s].toString();
        else if (event.name == "content_block_delta")
            text += event.json[u"delta"_s][u"text"_s].toString();
        else if (event.name.isEmpty())
            text += event.json[u"choices"_s][0][u"delta"_s][u"content"_s].toString();
    }
    return text;
}

QByteArray rawRequest(const QByteArray &method, const QByteArray &path, const QByteArray &body)
{
    return method + ' ' + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
           "Content-Length: " + QByteArray::number(body.size()) + "\r\n\r\n" + body;
}

QByteArray rawHead(quint16 port, const QByteArray &request)
{
    QTcpSocket socket;
    socket.connectToHost(QHostAddress::LocalHost, port);
    if (!socket.waitForConnected(5000))
        return {};
    socket.write(request);
    QByteArray received;
    while (!received.contains("\r\n\r\n") && socket.waitForReadyRead(5000))
        received += socket.readAll();
    return received.left(received.indexOf("\r\n\r\n") + 4);
}

QList<QByteArray> headerValues(const HeaderList &headers, const QByteArray &name)
{
    QList<QByteArray> values;
    for (const auto &[key, value] : headers) {
        if (key.compare(name, Qt::CaseInsensitive) == 0)
            values.append(value);
    }
    return values;
}

QString errorTypeOf(const QByteArray &body, ApiStyle style)
{
    const QJsonObject object = QJsonDocument::fromJson(body).object();
    const QJsonObject error = object[u"error"_s].toObject();
    if (style == ApiStyle::Anthropic)
        return object[u"type"_s].toString() == u"error" ? error[u"type"_s].toString() : QString();
    const bool complete = error.contains(u"message"_s) && error.contains(u"type"_s)
                          && error.contains(u"param"_s) && error.contains(u"code"_s);
    return complete ? error[u"type"_s].toString() : QString();
}

QByteArray responsesBody(const QJsonValue &input, bool stream, QJsonObject body)
{
    body[u"model"_s] = u"gpt-test"_s;
    body[u"input"_s] = input;
    if (stream)
        body[u"stream"_s] = true;
    return QJsonDocument(body).toJson(QJsonDocument::Compact);
}
