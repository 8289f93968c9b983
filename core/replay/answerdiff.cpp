#include "replay/answerdiff.h"

#include <QJsonDocument>
#include <QList>

using namespace Qt::StringLiterals;

namespace {

constexpr qsizetype kShownLineChars = 60;

Message shown(const QByteArray &line)
{
    const QString text = QString::fromUtf8(line.trimmed());
    if (text.isEmpty())
        return Message(QT_TRANSLATE_NOOP("Message", "(empty line)"));
    return text.size() > kShownLineChars ? text.left(kShownLineChars - 1) + u'…' : text;
}

// The next part of the line, after a "; ".
Message then(const Message &parts, const Message &part)
{
    //: Two parts of the replay's difference line ("same status 200; length 312 → 166 bytes")
    return Message(QT_TRANSLATE_NOOP("Message", "%1; %2")).arg(parts).arg(part);
}

} // namespace

QByteArray AnswerDiff::readable(const QByteArray &body)
{
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(body, &error);
    if (error.error != QJsonParseError::NoError || document.isNull())
        return body;
    return document.toJson(QJsonDocument::Indented);
}

Message AnswerDiff::summary(int originalStatus, const QByteArray &originalBody, int replayStatus,
                            const QByteArray &replayBody)
{
    // Shown in the replay dialog in the dashboard's language (message.h).
    Message parts = originalStatus == replayStatus
        ? Message(QT_TRANSLATE_NOOP("Message", "same status %1")).arg(replayStatus)
        : Message(QT_TRANSLATE_NOOP("Message", "status %1 → %2")).arg(originalStatus).arg(replayStatus);
    if (originalBody.isEmpty())
        return then(parts, Message(QT_TRANSLATE_NOOP("Message", "length ? → %1 bytes (the original body was not logged)"))
                               .arg(replayBody.size()));
    parts = then(parts, originalBody.size() == replayBody.size()
                            ? Message(QT_TRANSLATE_NOOP("Message", "same length (%1 bytes)")).arg(replayBody.size())
                            : Message(QT_TRANSLATE_NOOP("Message", "length %1 → %2 bytes")).arg(originalBody.size()).arg(replayBody.size()));
    const QList<QByteArray> before = readable(originalBody).split('\n');
    const QList<QByteArray> after = readable(replayBody).split('\n');
    const qsizetype common = std::min(before.size(), after.size());
    qsizetype line = 0;
    while (line < common && before[line] == after[line])
        ++line;
    if (line == common && before.size() == after.size())
        return then(parts, Message(QT_TRANSLATE_NOOP("Message", "bodies identical")));
    const Message end(QT_TRANSLATE_NOOP("Message", "(end)"));
    return then(parts, Message(QT_TRANSLATE_NOOP("Message", "first difference at line %1: %2 | %3"))
                           .arg(line + 1)
                           .arg(line < before.size() ? shown(before[line]) : end)
                           .arg(line < after.size() ? shown(after[line]) : end));
}
