#include "upstream/curltransfer.h"

#include <cerrno>
#include <optional>

#include <QPointer>

#include "http/protocol.h"
#include "upstream/curlsettings.h"
#include "upstream/upstreamengine.h"

namespace {

// Answer headers that describe this hop or its encoding, not the answer: curl has removed the
// chunking and any compression, and the proxy frames the answer anew for its client.
bool isHopHeader(const QByteArray &lowerName)
{
    return isHopByHopHeader(lowerName) || lowerName == "content-length" || lowerName == "content-encoding";
}

bool hasHeader(const HeaderList &headers, const char *lowerName)
{
    for (const auto &header : headers) {
        if (header.first.compare(lowerName, Qt::CaseInsensitive) == 0)
            return true;
    }
    return false;
}

QByteArray protocolName(long version)
{
    switch (version) {
    case CURL_HTTP_VERSION_1_0: return "HTTP/1.0";
    case CURL_HTTP_VERSION_1_1: return "HTTP/1.1";
    case CURL_HTTP_VERSION_2_0: return "HTTP/2";
    case CURL_HTTP_VERSION_3: return "HTTP/3";
    default: return {};
    }
}

} // namespace

CurlTransfer::CurlTransfer(std::shared_ptr<Exchange> exchange, const CurlSettings &settings, quint64 id,
                           CurlLoop::Counts *counts, std::vector<CurlTransfer *> &withNews)
    : m_exchange(std::move(exchange)), m_id(id), m_counts(counts), m_easy(curl_easy_init()), m_withNews(withNews)
{
    const UpstreamRequest &request = m_exchange->request;
    m_gapTimer.setSingleShot(true);
    m_retryTimer.setSingleShot(true);
    touch();
    curl_easy_setopt(m_easy, CURLOPT_PRIVATE, this);
    curl_easy_setopt(m_easy, CURLOPT_URL, request.url.toEncoded().constData());
    curl_easy_setopt(m_easy, CURLOPT_ERRORBUFFER, m_error);
    curl_easy_setopt(m_easy, CURLOPT_NOSIGNAL, 1L);   // no SIGALRM in a threaded program
    // h2 over TLS when the server offers it (ALPN), HTTP/1.1 otherwise and always on cleartext.
    curl_easy_setopt(m_easy, CURLOPT_HTTP_VERSION, long(CURL_HTTP_VERSION_2TLS));
    // A burst to a TLS host waits for the first connection to say whether it multiplexes, instead of
    // opening one connection per call (CURLOPT_PIPEWAIT.3). A cleartext host never multiplexes.
    if (request.url.scheme() == u"https")
        curl_easy_setopt(m_easy, CURLOPT_PIPEWAIT, 1L);
    // Reuse a kept-alive connection only within 4 s of its last use: below the shortest common
    // keep-alive (uvicorn, as in vLLM, and Node: 5 s), so an upstream rarely closes one just as a
    // request goes out on it, while back-to-back calls skip the TCP and TLS handshakes.
    curl_easy_setopt(m_easy, CURLOPT_MAXAGE_CONN, 4L);
    curl_easy_setopt(m_easy, CURLOPT_SUPPRESS_CONNECT_HEADERS, 1L);   // a proxy's CONNECT answer is not the answer
    // Decode whatever Content-Encoding the upstream chose (the client's Accept-Encoding goes up as
    // it was, and the answer is parsed, cached and shared: it must be plain).
    curl_easy_setopt(m_easy, CURLOPT_ACCEPT_ENCODING, "");
    // Our own timer watches the first byte and the gaps; a connection that cannot be made is
    // given the same time.
    curl_easy_setopt(m_easy, CURLOPT_CONNECTTIMEOUT_MS, long(request.timeout.count()) + 1000L);
    curl_easy_setopt(m_easy, CURLOPT_UPLOAD_BUFFERSIZE, 16384L);   // the minimum; 64 KB unless set
    // curl re-sends a request on its own when a reused connection dies before any answer, a POST
    // too (the upstream may have acted on it, and bills it twice). This callback runs before each
    // send, so it ends the transfer at the second.
    curl_easy_setopt(m_easy, CURLOPT_PREREQFUNCTION, &CurlTransfer::onBeforeSend);
    curl_easy_setopt(m_easy, CURLOPT_PREREQDATA, this);
    curl_easy_setopt(m_easy, CURLOPT_HEADERFUNCTION, &CurlTransfer::onHeader);
    curl_easy_setopt(m_easy, CURLOPT_HEADERDATA, this);
    curl_easy_setopt(m_easy, CURLOPT_WRITEFUNCTION, &CurlTransfer::onBody);
    curl_easy_setopt(m_easy, CURLOPT_WRITEDATA, this);
    curl_easy_setopt(m_easy, CURLOPT_NOPROXY, settings.noProxy.constData());
    settings.applyTls(m_easy);
    setMethodAndBody();
    setHeaders();
}

CurlTransfer::~CurlTransfer()
{
    curl_easy_cleanup(m_easy);
    curl_slist_free_all(m_headerList);
}

void CurlTransfer::setMethodAndBody()
{
    const UpstreamRequest &request = m_exchange->request;
    const QByteArray &method = request.method;
    if (method == "GET" && request.body.isEmpty()) {
        curl_easy_setopt(m_easy, CURLOPT_HTTPGET, 1L);
    } else if (method == "HEAD") {
        curl_easy_setopt(m_easy, CURLOPT_NOBODY, 1L);
    } else if (!request.body.isEmpty() || method == "POST" || method == "PUT" || method == "PATCH") {
        // The body as curl's own buffer (not a read callback): curl then sends a body under 64 KiB
        // in the same write as the headers, and the upstream wakes once, not twice.
        curl_easy_setopt(m_easy, CURLOPT_POST, 1L);
        curl_easy_setopt(m_easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(request.body.size()));
        curl_easy_setopt(m_easy, CURLOPT_POSTFIELDS, request.body.constData());
        if (method != "POST")
            curl_easy_setopt(m_easy, CURLOPT_CUSTOMREQUEST, method.constData());
    } else {
        curl_easy_setopt(m_easy, CURLOPT_CUSTOMREQUEST, method.constData());
    }
}

void CurlTransfer::setHeaders()
{
    const UpstreamRequest &request = m_exchange->request;
    for (const auto &[name, value] : request.headers) {
        if (name.compare("expect", Qt::CaseInsensitive) == 0)
            continue;
        // "Name;" is curl's spelling of a header with an empty value ("Name:" would remove it).
        const QByteArray line = value.isEmpty() ? QByteArray(name + ';') : QByteArray(name + ": " + value);
        m_headerList = curl_slist_append(m_headerList, line.constData());
    }
    // What curl would add of its own, unless the client sent it: "Name:" removes curl's.
    if (!hasHeader(request.headers, "accept"))
        m_headerList = curl_slist_append(m_headerList, "Accept:");
    if (!hasHeader(request.headers, "accept-encoding"))
        m_headerList = curl_slist_append(m_headerList, "Accept-Encoding:");
    if (!hasHeader(request.headers, "content-type"))
        m_headerList = curl_slist_append(m_headerList, "Content-Type:");
    // Bodies over 1 MiB would wait up to a second for "100 Continue" (lib/http.h, curl 7.88).
    m_headerList = curl_slist_append(m_headerList, "Expect:");
    curl_easy_setopt(m_easy, CURLOPT_HTTPHEADER, m_headerList);
}

qint64 CurlTransfer::gapLeftMs() const
{
    return m_exchange->request.timeout.count() - m_lastActivity.elapsed();
}

bool CurlTransfer::wasRefused(CURLcode code) const
{
    if (code != CURLE_COULDNT_CONNECT || m_status != 0 || m_requestSent)
        return false;
    long osError = 0;
    curl_easy_getinfo(m_easy, CURLINFO_OS_ERRNO, &osError);
    return osError == ECONNREFUSED;
}

UpstreamResult CurlTransfer::result(CURLcode code) const
{
    UpstreamResult result;
    result.status = m_headersSent ? m_status : 0;
    const UpstreamFailure stop = m_exchange->stop.load();
    if (stop != UpstreamFailure::None) {
        result.failure = stop;
    } else if (timedOut) {
        result.failure = UpstreamFailure::Timeout;
    } else if (code != CURLE_OK || !m_headersSent) {
        result.failure = m_headersSent ? UpstreamFailure::Cut : UpstreamFailure::Unreachable;
        if (m_resendRefused)
            result.detail = QStringLiteral("the upstream closed the connection after receiving the request (not sent again)");
        else if (code == CURLE_OK)
            result.detail = QStringLiteral("the upstream sent no answer");
        else
            result.detail = QString::fromUtf8(m_error[0] ? m_error : curl_easy_strerror(code));
    }
    return result;
}

QByteArray CurlTransfer::protocol() const
{
    long version = 0;
    if (m_headersSent && curl_easy_getinfo(m_easy, CURLINFO_HTTP_VERSION, &version) == CURLE_OK)
        return protocolName(version);
    return {};
}

size_t CurlTransfer::onHeader(char *data, size_t size, size_t count, void *self)
{
    return static_cast<CurlTransfer *>(self)->header(data, size * count);
}

size_t CurlTransfer::onBody(char *data, size_t size, size_t count, void *self)
{
    return static_cast<CurlTransfer *>(self)->body(data, size * count);
}

int CurlTransfer::onBeforeSend(void *self, char *, char *, int, int)
{
    auto *transfer = static_cast<CurlTransfer *>(self);
    if (transfer->m_requestSent) {
        transfer->m_resendRefused = true;
        return CURL_PREREQFUNC_ABORT;
    }
    transfer->m_requestSent = true;
    return CURL_PREREQFUNC_OK;
}

size_t CurlTransfer::header(const char *data, size_t length)
{
    if (m_exchange->stop.load() != UpstreamFailure::None)
        return 0;   // ends the transfer; the loop reports why
    touch();
    if (m_headersSent)
        return length;   // trailers
    QByteArray line(data, qsizetype(length));
    while (line.endsWith('\n') || line.endsWith('\r'))
        line.chop(1);
    if (line.startsWith("HTTP/")) {
        // A status line starts a header block: the final one, or a 1xx before it.
        const QList<QByteArray> parts = line.split(' ');
        m_status = parts.size() > 1 ? parts[1].toInt() : 0;
        m_headers.clear();
    } else if (line.isEmpty()) {
        if (m_status >= 200) {
            m_headersSent = true;
            m_headersToDeliver = true;
            noteNews();
        }
    } else if ((line.startsWith(' ') || line.startsWith('\t')) && !m_headers.isEmpty()) {
        m_headers.last().second += ' ' + line.trimmed();   // an obsolete folded line (RFC 9112 5.2)
    } else if (const qsizetype colon = line.indexOf(':'); colon > 0) {
        const QByteArray name = line.left(colon).trimmed();
        if (!isHopHeader(name.toLower()))
            m_headers.append({name, line.mid(colon + 1).trimmed()});
    }
    return length;
}

size_t CurlTransfer::body(const char *data, size_t length)
{
    if (m_exchange->stop.load() != UpstreamFailure::None)
        return CURL_WRITEFUNC_ERROR;
    // `paused` is raised before `undelivered` is read, and the call's thread lowers `undelivered`
    // before it reads `paused`: one of the two sees the other, so a pause is never left unresumed.
    m_flow->paused = true;
    if (m_flow->undelivered.load() > kPauseAbove) {
        // curl keeps this piece and hands it over again after the resume (curl_easy_pause.3).
        paused = true;
        m_counts->pauses.fetch_add(1);
        return CURL_WRITEFUNC_PAUSE;
    }
    m_flow->paused = false;
    touch();
    if (length == 0)
        return 0;
    // Counted as undelivered from here, so the pause above also bounds what waits for `deliver`.
    const qint64 undelivered = m_flow->undelivered.fetch_add(qint64(length)) + qint64(length);
    for (qint64 most = m_counts->mostUndelivered.load();
         undelivered > most && !m_counts->mostUndelivered.compare_exchange_weak(most, undelivered);) { }
    m_bodyToDeliver.append(data, qsizetype(length));
    noteNews();
    return length;
}

void CurlTransfer::noteNews()
{
    if (!std::exchange(m_hasNews, true))
        m_withNews.push_back(this);
}

void CurlTransfer::deliver()
{
    if (!std::exchange(m_hasNews, false))
        return;
    std::erase(m_withNews, this);   // when delivered outside the loop's own round (the end)
    m_counts->deliveries.fetch_add(1);
    std::optional<HeaderList> headers;
    if (std::exchange(m_headersToDeliver, false))
        headers = std::exchange(m_headers, {});
    m_exchange->post([status = m_status, headers = std::move(headers), piece = std::exchange(m_bodyToDeliver, {}),
                      flow = m_flow, resume = m_resume](UpstreamCall *call) {
        const QPointer<UpstreamCall> alive(call);
        if (headers)
            Q_EMIT call->headersReceived(status, *headers);
        if (piece.isEmpty() || !alive)
            return;   // a call deleted on its headers hears nothing more (as a post to it would not)
        Q_EMIT call->bodyReceived(piece);
        const qint64 left = flow->undelivered.fetch_sub(piece.size()) - piece.size();
        if (left < kResumeBelow && flow->paused.load() && !flow->resumeAsked.exchange(true))
            resume();
    });
}
