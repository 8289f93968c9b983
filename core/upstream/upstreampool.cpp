#include "upstream/upstreampool.h"

#include <algorithm>

#include <QPointer>

#include "upstream/curlengine.h"
#include "upstream/upstreamengine.h"

namespace {

void postFinished(Exchange &exchange, UpstreamFailure why)
{
    exchange.post([why](UpstreamCall *call) { Q_EMIT call->finished({why, {}, 0}); });
}

} // namespace

UpstreamPool::UpstreamPool(const QString &name, int concurrency, int maxQueued, QObject *parent)
    : UpstreamPool(name, concurrency, maxQueued, std::make_shared<CurlEngine>(CurlEngine::Options{}), parent)
{
}

UpstreamPool::UpstreamPool(const QString &name, int concurrency, int maxQueued,
                           std::shared_ptr<UpstreamEngine> engine, QObject *parent)
    : QObject(parent), m_name(name), m_concurrency(qMax(1, concurrency)), m_maxQueued(maxQueued),
      m_engine(std::move(engine))
{
}

UpstreamPool::~UpstreamPool()
{
    // The calls may outlive the pool (they belong to flights): their exchanges end as Shutdown, and
    // the engine posts nothing to a call once it is gone (Exchange::forgetCall).
    stop();
}

std::shared_ptr<Exchange> UpstreamPool::newExchange(const UpstreamRequest &request, UpstreamCall *call)
{
    auto exchange = std::make_shared<Exchange>(request, call, m_refusedRetryDelay, m_refusedRetries);
    // Whoever deletes the call, and whenever: from then on nothing is posted to it. No context
    // object, so this holds after the pool itself is gone.
    QObject::connect(call, &QObject::destroyed, [weak = std::weak_ptr<Exchange>(exchange)] {
        if (const auto alive = weak.lock())
            alive->forgetCall();
    });
    // A call deleted before it finished gives its place back (its exchange is told to end).
    connect(call, &QObject::destroyed, this, [this, raw = exchange.get()] {
        interrupt(raw, UpstreamFailure::Cancelled);
        release(raw);
    });
    connect(call, &UpstreamCall::finished, this, [this, raw = exchange.get()] {
        if (!raw->protocol.isEmpty())
            m_protocol = raw->protocol;
        release(raw);
    });
    call->setInterrupt([pool = QPointer<UpstreamPool>(this), raw = exchange.get()] {
        if (pool)
            pool->interrupt(raw, UpstreamFailure::Cancelled);
    });
    return exchange;
}

UpstreamCall *UpstreamPool::submit(const UpstreamRequest &request, QObject *owner)
{
    const bool runNow = m_stopping || m_running < m_concurrency;
    if (!runNow && int(m_queue.size()) >= m_maxQueued)
        return nullptr;
    auto *call = new UpstreamCall(owner);
    std::shared_ptr<Exchange> exchange = newExchange(request, call);
    if (m_stopping) {
        postFinished(*exchange, UpstreamFailure::Shutdown);
    } else if (runNow) {
        run(exchange, 0, true);
    } else {
        Waiting waiting{exchange, {}};
        waiting.since.start();
        m_queue.push_back(std::move(waiting));
    }
    return call;
}

UpstreamCall *UpstreamPool::submitUncounted(const UpstreamRequest &request, QObject *owner)
{
    auto *call = new UpstreamCall(owner);
    std::shared_ptr<Exchange> exchange = newExchange(request, call);
    if (m_stopping)
        postFinished(*exchange, UpstreamFailure::Shutdown);
    else
        run(exchange, 0, false);
    return call;
}

void UpstreamPool::run(const std::shared_ptr<Exchange> &exchange, qint64 waitedMs, bool counted)
{
    if (counted)
        ++m_running;
    m_started.insert(exchange.get(), {exchange, counted});
    // Posted before the engine can post anything, so `started` is heard first.
    exchange->post([waitedMs](UpstreamCall *call) { Q_EMIT call->started(waitedMs); });
    m_engine->start(exchange);
}

void UpstreamPool::startWaiting()
{
    while (!m_queue.empty() && m_running < m_concurrency && !m_stopping) {
        Waiting next = std::move(m_queue.front());
        m_queue.pop_front();
        run(next.exchange, next.since.elapsed(), true);
    }
}

void UpstreamPool::interrupt(Exchange *exchange, UpstreamFailure why)
{
    const auto waiting = std::find_if(m_queue.begin(), m_queue.end(),
                                      [exchange](const Waiting &w) { return w.exchange.get() == exchange; });
    if (waiting != m_queue.end()) {
        // Never started: it ends at once (queued, as every signal of a call is).
        postFinished(*exchange, why);
        m_queue.erase(waiting);
        return;
    }
    const auto started = m_started.constFind(exchange);
    if (started == m_started.constEnd())
        return;
    UpstreamFailure none = UpstreamFailure::None;
    exchange->stop.compare_exchange_strong(none, why);
    m_engine->interrupt(started->exchange);
}

void UpstreamPool::release(Exchange *exchange)
{
    const auto started = m_started.find(exchange);
    if (started == m_started.end())
        return;
    if (started->counted)
        --m_running;
    m_started.erase(started);
    startWaiting();
}

void UpstreamPool::stop()
{
    m_stopping = true;
    for (const Waiting &waiting : m_queue)
        postFinished(*waiting.exchange, UpstreamFailure::Shutdown);
    m_queue.clear();
    const QList<Started> running = m_started.values();
    for (const Started &started : running) {
        UpstreamFailure none = UpstreamFailure::None;
        started.exchange->stop.compare_exchange_strong(none, UpstreamFailure::Shutdown);
        m_engine->interrupt(started.exchange);
    }
}

void UpstreamPool::setConcurrency(int concurrency)
{
    m_concurrency = qMax(1, concurrency);
    startWaiting();
}
