#include "routing/modelsunion.h"

#include <algorithm>
#include <utility>

#include <QJsonArray>
#include <QJsonDocument>
#include <QSet>

#include "http/protocol.h"
#include "upstream/upstreamcall.h"

using namespace Qt::StringLiterals;

ModelsUnion::ModelsUnion(QObject *parent)
    : QObject(parent)
{
}

void ModelsUnion::ask(const QByteArray &upstream, UpstreamCall *call, const QString &why)
{
    const qsizetype index = m_answers.size();
    m_answers.append({upstream, 0, {}, {}, call ? QString() : why, call == nullptr});
    if (!call)
        return;
    ++m_running;
    call->setParent(this);
    connect(call, &UpstreamCall::headersReceived, this, [this, index](int status, const HeaderList &headers) {
        m_answers[index].status = status;
        m_answers[index].headers = headers;
    });
    connect(call, &UpstreamCall::bodyReceived, this,
            [this, index](const QByteArray &piece) { m_answers[index].body += piece; });
    connect(call, &UpstreamCall::finished, this,
            [this, index](const UpstreamResult &result) { finish(index, result); });
}

void ModelsUnion::start()
{
    m_started = true;
    if (m_running == 0 && !std::exchange(m_done, true))
        Q_EMIT done();
}

void ModelsUnion::finish(qsizetype index, const UpstreamResult &result)
{
    Answer &answer = m_answers[index];
    answer.finished = true;
    if (result.failure != UpstreamFailure::None)
        answer.failure = result.detail.isEmpty() ? u"no answer"_s : result.detail;
    else if (!isSuccess(answer.status))
        answer.failure = u"HTTP %1"_s.arg(answer.status);
    if (--m_running == 0 && m_started && !std::exchange(m_done, true))
        Q_EMIT done();
}

bool ModelsUnion::isListed(const Answer &answer) const
{
    return answer.finished && answer.failure.isEmpty()
        && QJsonDocument::fromJson(answer.body).object().value(u"data"_s).isArray();
}

bool ModelsUnion::anyListed() const
{
    return std::any_of(m_answers.begin(), m_answers.end(), [this](const Answer &answer) { return isListed(answer); });
}

QJsonObject ModelsUnion::list() const
{
    QList<QPair<QByteArray, QByteArray>> lists;
    for (const Answer &answer : m_answers) {
        if (isListed(answer))
            lists.append({answer.upstream, answer.body});
    }
    return merge(lists);
}

QStringList ModelsUnion::missing() const
{
    QStringList names;
    for (const Answer &answer : m_answers) {
        if (!isListed(answer))
            names.append(QString::fromUtf8(answer.upstream));
    }
    return names;
}

QJsonObject ModelsUnion::merge(const QList<QPair<QByteArray, QByteArray>> &lists)
{
    QJsonArray data;
    QSet<QString> seen;
    for (const auto &[upstream, body] : lists) {
        const QJsonValue listed = QJsonDocument::fromJson(body).object().value(u"data"_s);
        for (const QJsonValue &value : listed.toArray()) {
            QJsonObject model = value.toObject();
            const QString id = model.value(u"id"_s).toString();
            if (id.isEmpty() || seen.contains(id))
                continue;
            seen.insert(id);
            // Which upstream answers it: a field the SDKs leave alone (they keep unknown keys).
            model.insert(u"upstream"_s, QString::fromUtf8(upstream));
            data.append(model);
        }
    }
    return {{u"object"_s, u"list"_s}, {u"data"_s, data}};
}
