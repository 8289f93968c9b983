#include "message.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonObject>
#include <QJsonValue>

using namespace Qt::StringLiterals;

namespace {
// What fromJson reads of a remote's message: a sentence nests a few others, never many.
constexpr int kMaxDepth = 4;
constexpr qsizetype kMaxArgs = 99;   // %1 ... %99
} // namespace

Message Message::arg(Message value) const
{
    Message with = *this;
    with.m_args.push_back(std::move(value));
    return with;
}

bool Message::operator==(const Message &other) const
{
    // By content: the same literal may sit at two addresses (one per translation unit).
    return m_source.isNull() == other.m_source.isNull() && m_source == other.m_source && m_plain == other.m_plain
        && m_args == other.m_args;
}

QString Message::text(bool translate) const
{
    if (m_source.isNull())
        return m_plain;
    // Both kinds of source end in a NUL: a literal, or a QByteArray of its own.
    const QString format = translate ? QCoreApplication::translate("Message", m_source.constData()) : QString::fromUtf8(m_source);
    // One pass, so an argument's own "%2" is never taken for a placeholder.
    QString text;
    text.reserve(format.size());
    for (qsizetype i = 0; i < format.size(); ++i) {
        const QChar c = format[i];
        qsizetype digits = 0;
        int number = 0;
        while (c == u'%' && digits < 2 && i + 1 + digits < format.size() && format[i + 1 + digits].isDigit())
            number = number * 10 + format[i + 1 + digits++].digitValue();
        if (digits == 0 || number < 1 || number > qsizetype(m_args.size())) {
            text += c;
            continue;
        }
        text += m_args[number - 1].text(translate);
        i += digits;
    }
    return text;
}

QJsonValue Message::toJson() const
{
    if (m_source.isNull())
        return m_plain;
    QJsonArray args;
    for (const Message &arg : m_args)
        args.append(arg.toJson());
    return QJsonObject{{u"source"_s, QString::fromUtf8(m_source)}, {u"args"_s, args}};
}

Message Message::fromJson(const QJsonValue &json)
{
    return fromJson(json, 0);
}

Message Message::fromJson(const QJsonValue &json, int depth)
{
    if (json.isString())
        return Message(json.toString());
    const QJsonObject object = json.toObject();
    if (depth > kMaxDepth || !object.value(u"source"_s).isString())
        return {};
    Message message;
    message.m_source = object.value(u"source"_s).toString().toUtf8();
    const QJsonArray args = object.value(u"args"_s).toArray();
    for (qsizetype i = 0; i < args.size() && i < kMaxArgs; ++i)
        message.m_args.push_back(fromJson(args[i], depth + 1));
    return message;
}

namespace {
QString sentenceKey(const QString &name, const QString &sentenceName)
{
    return sentenceName.isEmpty() ? name + u"Message"_s : sentenceName;
}
} // namespace

void insertMessage(QJsonObject &json, const QString &name, const Message &message, const QString &sentenceName)
{
    json.insert(name, message.english());
    if (const QJsonValue said = message.toJson(); said.isObject())
        json.insert(sentenceKey(name, sentenceName), said);
}

Message messageIn(const QJsonObject &json, const QString &name, const QString &sentenceName)
{
    const QJsonValue said = json.value(sentenceKey(name, sentenceName));
    return said.isObject() ? Message::fromJson(said) : Message(json.value(name).toString());
}
