#include "upstream/curlloop.h"

#include <QLoggingCategory>

#include "upstream/curltransfer.h"
#include "upstream/socketwatch.h"
#include "upstream/upstreamengine.h"

Q_LOGGING_CATEGORY(lcCurl, "breakwater.upstream.curl", QtInfoMsg)

namespace {

void raiseTo(std::atomic<int> &peak, int value)
{
    int seen = peak.load();
    while (value > seen && !peak.compare_exchange_weak(seen, value)) { }
}

} // namespace

CurlLoop::CurlLoop(const CurlSettings &settings, std::shared_ptr<Counts> counts, QObject *parent)
    : QObject(parent), m_settings(settings), m_counts(std::move(counts)),
      m_mailbox(std::make_shared<Mailbox>(this)), m_multi(curl_multi_init())
{
    m_sockets = new SocketWatch([this](int fd, int ready) {
        int mask = 0;
        if (ready & SocketWatch::CanRead)
            mask |= CURL_CSELECT_IN;
        if (ready & SocketWatch::CanWrite)
            mask |= CURL_CSELECT_OUT;
        if (ready & SocketWatch::Failed)
            mask |= CURL_CSELECT_ERR;
        act(fd, mask);
    }, this);
    m_curlTimer.setSingleShot(true);
    m_curlTimer.setTimerType(Qt::PreciseTimer);
    connect(&m_curlTimer, &QTimer::timeout, this, [this] { act(CURL_SOCKET_TIMEOUT, 0); });
    curl_multi_setopt(m_multi, CURLMOPT_SOCKETFUNCTION, &CurlLoop::onSocket);
    curl_multi_setopt(m_multi, CURLMOPT_SOCKETDATA, this);
    curl_multi_setopt(m_multi, CURLMOPT_TIMERFUNCTION, &CurlLoop::onTimer);
    curl_multi_setopt(m_multi, CURLMOPT_TIMERDATA, this);
}

CurlLoop::~CurlLoop()
{
    m_mailbox->close();
    // Whatever still runs ends as Shutdown: its pool is being destroyed or stopped.
    const QList<CurlTransfer *> left = m_byId.values();
    for (CurlTransfer *transfer : left) {
        UpstreamFailure none = UpstreamFailure::None;
        transfer->exchange().stop.compare_exchange_strong(none, UpstreamFailure::Shutdown);
        end(transfer, CURLE_ABORTED_BY_CALLBACK);
    }
    // No timer from here on; the socket callbacks of the cleanup still reach m_sockets.
    curl_multi_setopt(m_multi, CURLMOPT_TIMERFUNCTION, nullptr);
    curl_multi_cleanup(m_multi);
}

void CurlLoop::add(const std::shared_ptr<Exchange> &exchange)
{
    if (const UpstreamFailure stop = exchange->stop.load(); stop != UpstreamFailure::None) {
        exchange->post([stop](UpstreamCall *call) { Q_EMIT call->finished({stop, {}, 0}); });
        return;
    }
    const quint64 id = m_nextId++;
    auto *transfer = new CurlTransfer(exchange, m_settings, id, m_counts.get(), m_withNews);
    transfer->setResume([mailbox = std::weak_ptr<Mailbox>(m_mailbox), id] {
        if (const auto alive = mailbox.lock())
            alive->post([id](CurlLoop *loop) { loop->resume(id); });
    });
    connect(&transfer->gapTimer(), &QTimer::timeout, this, [this, transfer] { gapExpired(transfer); });
    connect(&transfer->retryTimer(), &QTimer::timeout, this, [this, transfer] { start(transfer); });
    m_byExchange.insert(exchange.get(), transfer);
    m_byId.insert(id, transfer);
    m_counts->transfers.fetch_add(1);
    raiseTo(m_counts->mostTransfers, m_counts->transfers.load());
    start(transfer);
}

void CurlLoop::start(CurlTransfer *transfer)
{
    if (transfer->exchange().stop.load() != UpstreamFailure::None)
        return end(transfer, CURLE_ABORTED_BY_CALLBACK);
    transfer->touch();
    transfer->gapTimer().start(transfer->exchange().request.timeout);
    transfer->inMulti = true;
    if (const CURLMcode code = curl_multi_add_handle(m_multi, transfer->easy()); code != CURLM_OK) {
        transfer->inMulti = false;
        qCWarning(lcCurl) << "curl_multi_add_handle:" << curl_multi_strerror(code);
        end(transfer, CURLE_FAILED_INIT);
        return;
    }
    // curl asks for a 0 ms timer (onTimer) to begin the transfer; answering it in this turn
    // sends the request now instead of after another pass of the event loop.
    if (!m_acting)
        act(CURL_SOCKET_TIMEOUT, 0);
}

bool CurlLoop::interrupt(const std::shared_ptr<Exchange> &exchange)
{
    CurlTransfer *transfer = m_byExchange.value(exchange.get());
    if (transfer)
        end(transfer, CURLE_ABORTED_BY_CALLBACK);
    return transfer != nullptr;
}

int CurlLoop::onSocket(CURL *, curl_socket_t fd, int what, void *self, void *)
{
    auto *loop = static_cast<CurlLoop *>(self);
    Counts &counts = *loop->m_counts;
    switch (what) {
    case CURL_POLL_IN:
        ++counts.interestIn;
        loop->m_sockets->watch(fd, SocketWatch::Read);
        break;
    case CURL_POLL_OUT:
        ++counts.interestOut;
        loop->m_sockets->watch(fd, SocketWatch::Write);
        break;
    case CURL_POLL_INOUT:
        ++counts.interestInOut;
        loop->m_sockets->watch(fd, SocketWatch::ReadWrite);
        break;
    case CURL_POLL_REMOVE:
        ++counts.interestRemove;
        loop->m_sockets->forget(fd);
        break;
    default:
        break;
    }
    return 0;
}

int CurlLoop::onTimer(CURLM *, long timeoutMs, void *self)
{
    auto *loop = static_cast<CurlLoop *>(self);
    if (timeoutMs < 0)
        loop->m_curlTimer.stop();
    else
        loop->m_curlTimer.start(int(timeoutMs));
    return 0;
}

void CurlLoop::act(curl_socket_t fd, int mask)
{
    Q_ASSERT(!m_acting);
    m_acting = true;
    int running = 0;
    const CURLMcode code = curl_multi_socket_action(m_multi, fd, mask, &running);
    m_acting = false;
    if (code != CURLM_OK)
        qCWarning(lcCurl) << "curl_multi_socket_action:" << curl_multi_strerror(code);
    deliverNews();
    collectDone();
}

void CurlLoop::deliverNews()
{
    for (CurlTransfer *transfer : std::exchange(m_withNews, {}))
        transfer->deliver();
}

void CurlLoop::collectDone()
{
    int left = 0;
    while (CURLMsg *message = curl_multi_info_read(m_multi, &left)) {
        if (message->msg != CURLMSG_DONE)
            continue;
        // Copied out: the message does not survive curl_multi_remove_handle.
        CURL *easy = message->easy_handle;
        const CURLcode code = message->data.result;
        CurlTransfer *transfer = nullptr;
        curl_easy_getinfo(easy, CURLINFO_PRIVATE, &transfer);
        if (transfer)
            end(transfer, code);
    }
}

void CurlLoop::end(CurlTransfer *transfer, CURLcode code)
{
    if (transfer->inMulti) {
        curl_multi_remove_handle(m_multi, transfer->easy());
        transfer->inMulti = false;
    }
    transfer->gapTimer().stop();
    transfer->deliver();   // what came before the end is heard before it
    Exchange &exchange = transfer->exchange();
    // A refused connection has sent nothing, so it is tried once more, shortly: a provider's
    // listener that blinked (a restart, a load balancer swapping) costs the caller no error. Any
    // other failure, a reset after the request went out above all, is not tried again.
    if (!transfer->retried && !transfer->timedOut && exchange.stop.load() == UpstreamFailure::None
        && transfer->wasRefused(code)) {
        transfer->retried = true;
        exchange.refusedRetries->fetch_add(1);
        qCInfo(lcCurl) << exchange.request.url.host() << "refused the connection; trying once more in"
                       << exchange.refusedRetryDelay.count() << "ms";
        transfer->retryTimer().start(exchange.refusedRetryDelay);
        return;
    }
    const UpstreamResult result = transfer->result(code);
    exchange.protocol = transfer->protocol();
    qCDebug(lcCurl) << exchange.request.method << exchange.request.url.path() << "->" << result.status
                    << int(result.failure) << result.detail;
    exchange.post([result](UpstreamCall *call) { Q_EMIT call->finished(result); });
    m_byExchange.remove(&exchange);
    m_byId.remove(transfer->id());
    m_counts->transfers.fetch_sub(1);
    delete transfer;
}

void CurlLoop::resume(quint64 id)
{
    CurlTransfer *transfer = m_byId.value(id);
    if (!transfer)
        return;
    transfer->flow()->resumeAsked = false;
    if (!transfer->paused || !transfer->inMulti)
        return;
    transfer->paused = false;
    transfer->flow()->paused = false;
    ++m_counts->resumes;
    transfer->touch();
    // May hand the kept piece to the write callback before it returns (and pause again).
    curl_easy_pause(transfer->easy(), CURLPAUSE_CONT);
    deliverNews();
    collectDone();
}

void CurlLoop::gapExpired(CurlTransfer *transfer)
{
    // A transfer we paused is waiting on us, not on the upstream.
    if (transfer->paused)
        transfer->touch();
    if (const qint64 left = transfer->gapLeftMs(); left > 0) {
        transfer->gapTimer().start(int(left));
        return;
    }
    transfer->timedOut = true;
    end(transfer, CURLE_OPERATION_TIMEDOUT);
}
