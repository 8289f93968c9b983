#pragma once

#include <QHash>
#include <QJsonArray>
#include <QJsonObject>
#include <QList>
#include <QString>

#include "mockanswers.h"

// The OpenAI Responses API as the mock speaks it: `POST /v1/responses` as JSON (an
// `object: "response"` with a message of output_text, usage with its details) or as a stream of
// named events, each with a `sequence_number` (response.created, response.in_progress,
// response.output_item.added, response.content_part.added, response.output_text.delta...,
// response.output_text.done, response.content_part.done, response.output_item.done,
// response.completed; no [DONE]), and GET/DELETE `/v1/responses/{id}`, `/input_items`, `/cancel`.
namespace mockanswers {

struct Request;

// The responses the mock has made, so the id routes find one it just created, as the real API
// stores every response unless the request says `store: false`. Bounded: the oldest go first.
// Not thread-safe: MockProvider keeps it and touches it on its own thread only.
class ResponseStore final
{
public:
    struct Entry
    {
        QJsonObject response;
        QJsonArray inputItems;   // oldest first, each with an id
    };

    static constexpr qsizetype kCapacity = 1000;

    void remember(const QJsonObject &response, const QJsonArray &inputItems);
    const Entry *find(const QString &id) const;
    bool forget(const QString &id);
    qsizetype size() const { return m_entries.size(); }

private:
    QHash<QString, Entry> m_entries;
    QList<QString> m_order;   // ids, oldest first
};

// POST /v1/responses: `input` is a string or a list of items; the reply echoes the last user text.
// The answer is remembered in `store` (when given) unless the request has `store: false`.
Answer responsesAnswer(const Request &request, quint64 sequence, Variant variant, ResponseStore *store);

// The id routes: the stored response, its input items (newest first, the API's default order),
// a deletion, or a cancel (400 unless it was made with `background: true`; the mock finishes
// every response at once, so a cancel finds it done). 404 in OpenAI's shape for an unknown id.
Answer storedResponseAnswer(const Call &call, ResponseStore *store);

} // namespace mockanswers
