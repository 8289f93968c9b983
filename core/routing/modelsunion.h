#pragma once

#include <QByteArray>
#include <QJsonObject>
#include <QList>
#include <QObject>
#include <QString>
#include <QStringList>

#include "http/apierror.h"

class UpstreamCall;
struct UpstreamResult;

// GET /v1/models when several OpenAI-API upstreams are configured: every one of them is asked for
// its list at once, and the answer is the union in OpenAI's list shape ({"object":"list","data":
// [...]}), each model once (the first upstream to list an id keeps it, in the order the proxy
// asked: the default upstream, then the routed ones) and marked with the upstream that has it. An
// upstream that fails (an error status, unreachable, its breaker open) is left out and named in
// `missing`, which the proxy answers as x-breakwater-models-missing: a partial list, never a
// failed call. Lives on the proxy thread; owns the calls it was given.
class ModelsUnion final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ModelsUnion)
public:
    explicit ModelsUnion(QObject *parent = nullptr);

    // One upstream's list is asked with `call` (reparented here); a null call is one that could
    // not be made, missing for `why`.
    void ask(const QByteArray &upstream, UpstreamCall *call, const QString &why = {});
    // After the last ask: `done` comes once every call has ended (at once if none is running).
    void start();

    // After `done`: whether any upstream listed its models, the merged list, and who is missing.
    bool anyListed() const;
    QJsonObject list() const;
    QStringList missing() const;
    // The first upstream's own answer, for when none listed (its status and body, 0 when it sent none).
    int firstStatus() const { return m_answers.isEmpty() ? 0 : m_answers.first().status; }
    QByteArray firstBody() const { return m_answers.isEmpty() ? QByteArray() : m_answers.first().body; }
    HeaderList firstHeaders() const { return m_answers.isEmpty() ? HeaderList() : m_answers.first().headers; }

    // The union of OpenAI model lists, by upstream in order ({name, body}); a body that is no list is skipped.
    static QJsonObject merge(const QList<QPair<QByteArray, QByteArray>> &lists);

Q_SIGNALS:
    void done();

private:
    struct Answer
    {
        QByteArray upstream;
        int status = 0;
        HeaderList headers;
        QByteArray body;
        QString failure;   // empty: it answered (any status)
        bool finished = false;
    };
    void finish(qsizetype index, const UpstreamResult &result);
    bool isListed(const Answer &answer) const;

    QList<Answer> m_answers;
    int m_running = 0;
    bool m_started = false;
    bool m_done = false;
};
