#include "replay/answerdiff.h"

#include <QJsonDocument>
#include <QList>

using namespace Qt::StringLiterals;

namespace {

constexpr qsizetype kShownLineChars = 60;

QString shown(const QByteArray &line)
{
    const QString text = QString::fromUtf8(line.trimmed());
    if (text.isEmpty())
        return u"(empty line)"_s;
    return text.size() > kShownLineChars ? text.left(kShownLineChars - 1) + u'…' : text;
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

QString AnswerDiff::summary(int originalStatus, const QByteArray &originalBody, int replayStatus,
                            const QByteArray &replayBody)
{
    QStringList parts;
    parts.append(originalStatus == replayStatus ? u"same status %1"_s.arg(replayStatus)
                                                : u"status %1 → %2"_s.arg(originalStatus).arg(replayStatus));
    if (originalBody.isEmpty()) {
        parts.append(u"length ? → %1 bytes (the original body was not logged)"_s.arg(replayBody.size()));
        return parts.join(u"; "_s);
    }
    parts.append(originalBody.size() == replayBody.size()
                     ? u"same length (%1 bytes)"_s.arg(replayBody.size())
                     : u"length %1 → %2 bytes"_s.arg(originalBody.size()).arg(replayBody.size()));
    const QList<QByteArray> before = readable(originalBody).split('\n');
    const QList<QByteArray> after = readable(replayBody).split('\n');
    const qsizetype common = std::min(before.size(), after.size());
    qsizetype line = 0;
    while (line < common && before[line] == after[line])
        ++line;
    if (line == common && before.size() == after.size()) {
        parts.append(u"bodies identical"_s);
    } else {
        const QString was = line < before.size() ? shown(before[line]) : u"(end)"_s;
        const QString now = line < after.size() ? shown(after[line]) : u"(end)"_s;
        parts.append(u"first difference at line %1: %2 | %3"_s.arg(line + 1).arg(was, now));
    }
    return parts.join(u"; "_s);
}
