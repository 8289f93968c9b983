#pragma once

#include "upstream/upstreamcall.h"

#include <QByteArray>
#include <QElapsedTimer>
#include <QTimer>

#include <atomic>
#include <functional>
#include <memory>
#include <vector>

#include <curl/curl.h>

#include "upstream/curlloop.h"

class Exchange;
struct CurlSettings;

// One exchange as a libcurl easy handle: the request as the client sent it (only hop-by-hop
// headers differ; curl's own Accept, Content-Type and Expect are removed), the body sent once,
// the answer's status and header lines as they come, and its body, posted to the call.
//
//  - One post a turn: what a transfer got in one turn of its loop (the headers, the pieces that
//    followed them in the same read) goes to the call in one post at the end of the turn
//    (`deliver`), so the proxy thread wakes once and writes the head and the first chunk together.
//
//  - Sent once: curl re-sends a request on a reused connection that closed before any answer
//    (lib/multi.c, Curl_retry_request in curl 7.88), a POST too. Its pre-request callback runs in
//    front of every send, the first and any re-send, so the second ends the transfer
//    (CURLE_ABORTED_BY_CALLBACK) instead of a second POST. The body is curl's buffer
//    (CURLOPT_POSTFIELDS), so a small one leaves in the same write as the headers.
//  - Headers: curl's header callback hands over one line per header, so a repeated header stays
//    separate lines by construction.
//  - Timeouts: curl has no first-byte timeout, and its low-speed limit cannot tell a paused
//    transfer from a stalled one, so the gap timer is ours: the request's timeout to the first
//    line and then between pieces.
//  - Backpressure: pieces posted to the call and not yet heard there are counted (`Flow`); past
//    kPauseAbove the write callback pauses the transfer (curl keeps the piece and the socket goes
//    unread, so TCP tells the upstream to wait), and the call's thread asks for a resume below
//    kResumeBelow. A slow client is the response writer's business (it drops one that falls
//    behind), so this only bounds what piles up when the proxy thread itself is busy.
//
// Owned by its CurlLoop, on the loop's thread.
class CurlTransfer final
{
    Q_DISABLE_COPY_MOVE(CurlTransfer)
public:
    static constexpr qint64 kPauseAbove = 256 * 1024;
    static constexpr qint64 kResumeBelow = 64 * 1024;

    // Shared with the pieces in flight to the call's thread, which outlive the transfer.
    struct Flow
    {
        std::atomic<qint64> undelivered{0};
        std::atomic<bool> paused{false};
        std::atomic<bool> resumeAsked{false};
    };

    // `counts` (the loop's) hears of every pause and of the most that piled up.
    // `withNews` (the loop's) is where the transfer puts itself when it has something to deliver.
    CurlTransfer(std::shared_ptr<Exchange> exchange, const CurlSettings &settings, quint64 id,
                 CurlLoop::Counts *counts, std::vector<CurlTransfer *> &withNews);
    ~CurlTransfer();

    CURL *easy() const { return m_easy; }
    quint64 id() const { return m_id; }
    Exchange &exchange() const { return *m_exchange; }
    const std::shared_ptr<Flow> &flow() const { return m_flow; }
    QTimer &gapTimer() { return m_gapTimer; }
    // What the call's thread runs to ask the loop for a resume (it posts; any thread).
    void setResume(std::function<void()> resume) { m_resume = std::move(resume); }
    QTimer &retryTimer() { return m_retryTimer; }

    bool inMulti = false;
    bool retried = false;   // the one more try after a refused connection was used
    bool timedOut = false;
    bool paused = false;    // by us, through CURL_WRITEFUNC_PAUSE

    // Restarts the gap timer's count (every line and piece); cheap: the timer itself is re-armed
    // only when it fires early.
    void touch() { m_lastActivity.start(); }
    // Milliseconds left before the gap counts as a timeout (<= 0: it does).
    qint64 gapLeftMs() const;
    // A refused connection: nothing was sent and nothing came, so it may go again.
    bool wasRefused(CURLcode code) const;
    // What the call hears at the end, for curl's result `code`; `stop` wins (Cancelled, Shutdown).
    UpstreamResult result(CURLcode code) const;
    // What the answer came over ("HTTP/2", "HTTP/1.1"), empty when none came.
    QByteArray protocol() const;
    // Posts to the call what came since the last delivery (the headers, the body), in one post.
    void deliver();

private:
    static size_t onHeader(char *data, size_t size, size_t count, void *self);
    static size_t onBody(char *data, size_t size, size_t count, void *self);
    static int onBeforeSend(void *self, char *remoteIp, char *localIp, int remotePort, int localPort);

    size_t header(const char *data, size_t length);
    size_t body(const char *data, size_t length);
    void noteNews();
    void setMethodAndBody();
    void setHeaders();

    std::shared_ptr<Exchange> m_exchange;
    std::shared_ptr<Flow> m_flow = std::make_shared<Flow>();
    const quint64 m_id;
    CurlLoop::Counts *m_counts;
    CURL *m_easy = nullptr;
    curl_slist *m_headerList = nullptr;
    char m_error[CURL_ERROR_SIZE] = {};
    bool m_requestSent = false;   // curl began sending it: it must never be sent again
    bool m_resendRefused = false; // and curl wanted to: this transfer ended there
    int m_status = 0;             // of the latest status line (a 1xx is followed by the real one)
    bool m_headersSent = false;   // the final status and headers came (and go to the call)
    HeaderList m_headers;
    bool m_headersToDeliver = false;
    QByteArray m_bodyToDeliver;
    bool m_hasNews = false;       // in m_withNews
    std::vector<CurlTransfer *> &m_withNews;
    QTimer m_gapTimer;
    QTimer m_retryTimer;
    QElapsedTimer m_lastActivity;
    std::function<void()> m_resume;
};
