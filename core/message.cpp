#include "message.h"

#include <QCoreApplication>

Message Message::arg(Message value) const
{
    Message with = *this;
    with.m_args.push_back(std::move(value));
    return with;
}

bool Message::operator==(const Message &other) const
{
    // The same literal may sit at two addresses (one per translation unit).
    const bool sameSource = m_source == other.m_source || (m_source && other.m_source && qstrcmp(m_source, other.m_source) == 0);
    return sameSource && m_plain == other.m_plain && m_args == other.m_args;
}

QString Message::text(bool translate) const
{
    if (!m_source)
        return m_plain;
    const QString format = translate ? QCoreApplication::translate("Message", m_source) : QString::fromUtf8(m_source);
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
