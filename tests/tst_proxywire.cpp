// A real provider's wire through a real Breakwater: repeated response headers reach the client as
// separate lines (Set-Cookie above all), repeated request headers reach the upstream whole, and the
// key tells apart what the upstream would answer differently (the query string, every value of a
// repeated header, every credential). Real sockets on loopback, counted upstream calls.

#include "proxyharness.h"
#include "wireevents.h"

#include <QTest>

using namespace Qt::StringLiterals;

namespace {

constexpr int kWait = 10000;
const QByteArray kChat = "/v1/chat/completions";
const QByteArray kMessages = "/v1/messages";

// Two Set-Cookie lines as the mock sent them, and no CR or LF left inside any header.
void verifyCookies(const LoopbackResponse &response)
{
    const QList<QByteArray> cookies = headerValues(response.headers, "set-cookie");
    QCOMPARE(cookies.size(), 2);
    QVERIFY(cookies[0].startsWith("__cf_bm=") && cookies[0].contains("expires=Tue, 14-Nov-23 22:43:20 GMT"));
    QVERIFY(cookies[1].startsWith("_cfuvid="));
    for (const auto &[name, value] : response.headers)
        QVERIFY2(!value.contains('\n') && !value.contains('\r') && !name.contains('\n'), name.constData());
    QCOMPARE(response.header("x-ratelimit-remaining-requests"), "9999"_ba);
}

} // namespace

class tst_ProxyWire final : public QObject
{
    Q_OBJECT
private slots:
    void realProviderHeaders_headerBlockHasEachCookieOnItsOwnLine_data();
    void realProviderHeaders_headerBlockHasEachCookieOnItsOwnLine();
    void realProviderHeaders_missJoinedAndHitAllGetTwoCookies();
    void upstreamHeadersNamedLikeOurs_areKeptAsXUpstream();
    void repeatedRequestHeader_upstreamGetsEveryValueAndKeyUsesThem();
    void clientHeaders_reachUpstreamAsSent();
    void queryString_isPartOfTheKey();
    void everyCredential_isPartOfTheKey();
};

void tst_ProxyWire::realProviderHeaders_headerBlockHasEachCookieOnItsOwnLine_data()
{
    QTest::addColumn<QByteArray>("path");
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<HeaderList>("headers");
    QTest::newRow("chat json") << kChat << chatBody(u"cookies"_s) << kOpenAiAuth;
    QTest::newRow("chat stream") << kChat << chatBody(u"cookies"_s, true) << kOpenAiAuth;
    QTest::newRow("messages json") << kMessages << messagesBody(u"cookies"_s) << kAnthropicAuth;
    QTest::newRow("messages stream") << kMessages << messagesBody(u"cookies"_s, true) << kAnthropicAuth;
}

void tst_ProxyWire::realProviderHeaders_headerBlockHasEachCookieOnItsOwnLine()
{
    QFETCH(QByteArray, path);
    QFETCH(QByteArray, body);
    QFETCH(HeaderList, headers);
    ProxyHarness harness;
    harness.mock()->setExtraHeaders(MockProvider::realProviderHeaders());
    // The bytes as the proxy wrote them: curl ends the header block at a bare LF, Node rejects it.
    const QByteArray head = rawHead(harness.port(), LoopbackClient::requestBytes(harness.port(), "POST", path, headers, body));
    QVERIFY2(head.endsWith("\r\n\r\n"), head.constData());
    QVERIFY2(head.startsWith("HTTP/1.1 200"), head.constData());
    QCOMPARE(head.count('\n'), head.count("\r\n"));
    QCOMPARE(head.count('\r'), head.count("\r\n"));
    int cookieLines = 0;
    for (const QByteArray &line : head.split('\n'))
        cookieLines += line.toLower().startsWith("set-cookie: ");
    QCOMPARE(cookieLines, 2);
}

void tst_ProxyWire::realProviderHeaders_missJoinedAndHitAllGetTwoCookies()
{
    ProxyHarness harness;
    harness.mock()->setExtraHeaders(MockProvider::realProviderHeaders());
    harness.mock()->setHoldAnswers(true);
    const QByteArray body = chatBody(u"share the cookies"_s);
    LoopbackClient *miss = harness.start(kChat, body, kOpenAiAuth);
    LoopbackClient *joined = harness.start(kChat, body, kOpenAiAuth);
    QTRY_COMPARE_WITH_TIMEOUT(harness.ridersWaiting(), 2, kWait);
    harness.mock()->setHoldAnswers(false);
    QTRY_VERIFY_WITH_TIMEOUT(miss->isFinished() && joined->isFinished(), kWait);
    const LoopbackResponse hit = harness.post(kChat, body, kOpenAiAuth);
    QCOMPARE(hit.header("x-breakwater-dedup"), "hit"_ba);
    for (const LoopbackResponse *response : {&miss->response(), &joined->response(), &hit}) {
        QCOMPARE(response->status, 200);
        verifyCookies(*response);
    }
    QCOMPARE(harness.mock()->callCount(), 1);
}

// An upstream that is itself a Breakwater (a laptop's in front of the team's) or any provider's
// x-request-id: each of our headers stays one line about this hop, the upstream's kept beside it.
void tst_ProxyWire::upstreamHeadersNamedLikeOurs_areKeptAsXUpstream()
{
    ProxyHarness harness;
    harness.mock()->setExtraHeaders({{"x-request-id", "req_upstream"}, {"X-Breakwater-Dedup", "hit"},
                                     {"x-breakwater-breaker", "half-open"}});
    const QByteArray body = chatBody(u"a chain of two"_s);
    const LoopbackResponse miss = harness.post(kChat, body, kOpenAiAuth);
    const LoopbackResponse hit = harness.post(kChat, body, kOpenAiAuth);
    for (const LoopbackResponse *response : {&miss, &hit}) {
        QCOMPARE(response->status, 200);
        QCOMPARE(headerValues(response->headers, "x-breakwater-dedup").size(), 1);
        QCOMPARE(headerValues(response->headers, "x-breakwater-breaker"), QList<QByteArray>{"closed"});
        QCOMPARE(headerValues(response->headers, "x-request-id").size(), 1);
        QVERIFY(response->header("x-request-id").startsWith("bw-"));
        QCOMPARE(response->header("x-upstream-request-id"), "req_upstream"_ba);
        QCOMPARE(response->header("x-upstream-breakwater-dedup"), "hit"_ba);
        QCOMPARE(response->header("x-upstream-breakwater-breaker"), "half-open"_ba);
    }
    QCOMPARE(miss.header("x-breakwater-dedup"), "miss"_ba);
    QCOMPARE(hit.header("x-breakwater-dedup"), "hit"_ba);
    QCOMPARE(harness.mock()->callCount(), 1);
}

void tst_ProxyWire::repeatedRequestHeader_upstreamGetsEveryValueAndKeyUsesThem()
{
    ProxyHarness harness;
    const QByteArray body = messagesBody(u"betas"_s);
    const HeaderList betas = kAnthropicAuth + HeaderList{{"anthropic-beta", "tools-2024-04-04"},
                                                         {"anthropic-beta", "prompt-caching-2024-07-31"}};
    QCOMPARE(harness.post(kMessages, body, betas).header("x-breakwater-dedup"), "miss"_ba);
    // Each line as the client sent it, in its order.
    QCOMPARE(headerValues(harness.mock()->lastRequestHeaders(), "anthropic-beta"),
             (QList<QByteArray>{"tools-2024-04-04", "prompt-caching-2024-07-31"}));
    // Same first value, another second one: the upstream gets another header, so another answer.
    const HeaderList otherBetas = kAnthropicAuth + HeaderList{{"anthropic-beta", "tools-2024-04-04"},
                                                              {"anthropic-beta", "output-128k-2025-02-19"}};
    QCOMPARE(harness.post(kMessages, body, otherBetas).header("x-breakwater-dedup"), "miss"_ba);
    QCOMPARE(harness.mock()->callCount(), 2);
    QCOMPARE(harness.post(kMessages, body, betas).header("x-breakwater-dedup"), "hit"_ba);
    QCOMPARE(harness.mock()->callCount(), 2);
}

void tst_ProxyWire::clientHeaders_reachUpstreamAsSent()
{
    // The upstream sees the client's own headers, Accept-Encoding included, and nothing a library
    // adds of its own (Qt's network manager sent accept-language: en,* and its own
    // accept-encoding); only Host, Content-Length and the hop-by-hop ones are the proxy's.
    ProxyHarness harness;
    const HeaderList sent = kOpenAiAuth + HeaderList{{"Accept", "application/json"}, {"Accept-Encoding", "gzip, deflate"},
                                                     {"User-Agent", "OpenAI/JS 4.0"}, {"Connection", "keep-alive"}};
    QCOMPARE(harness.post(kChat, chatBody(u"as sent"_s), sent).status, 200);
    QList<QByteArray> names;
    for (const auto &[name, value] : harness.mock()->lastRequestHeaders())
        names.append(name.toLower());
    std::sort(names.begin(), names.end());
    QCOMPARE(names, (QList<QByteArray>{"accept", "accept-encoding", "authorization", "content-length", "content-type",
                                       "host", "user-agent"}));
    QCOMPARE(headerValues(harness.mock()->lastRequestHeaders(), "accept-encoding"), QList<QByteArray>{"gzip, deflate"});
}

void tst_ProxyWire::queryString_isPartOfTheKey()
{
    ProxyHarness harness;
    const QByteArray body = chatBody(u"whose key?"_s);
    const LoopbackResponse alice = harness.post(kChat + "?key=alice", body, kOpenAiAuth);
    QCOMPARE(alice.status, 200);
    QCOMPARE(alice.header("x-breakwater-dedup"), "miss"_ba);
    const LoopbackResponse mallory = harness.post(kChat + "?key=mallory", body, kOpenAiAuth);
    QCOMPARE(mallory.status, 200);
    QCOMPARE(mallory.header("x-breakwater-dedup"), "miss"_ba);
    QCOMPARE(harness.mock()->callCount(), 2);
    // The same query again is the same request.
    QCOMPARE(harness.post(kChat + "?key=alice", body, kOpenAiAuth).header("x-breakwater-dedup"), "hit"_ba);
    QCOMPARE(harness.mock()->callCount(), 2);
}

void tst_ProxyWire::everyCredential_isPartOfTheKey()
{
    // Anthropic's SDK 1.x sends its key as Authorization: Bearer; a request may carry both. Only the
    // x-api-key differs here: the key used to read Authorization alone and share the answer.
    ProxyHarness harness;
    const QByteArray body = messagesBody(u"two keys"_s);
    const HeaderList first{{"Authorization", "Bearer sk-ant-shared"}, {"x-api-key", "sk-ant-alice"},
                           {"anthropic-version", "2023-06-01"}, {"Content-Type", "application/json"}};
    const HeaderList second{{"Authorization", "Bearer sk-ant-shared"}, {"x-api-key", "sk-ant-mallory"},
                            {"anthropic-version", "2023-06-01"}, {"Content-Type", "application/json"}};
    QCOMPARE(harness.post(kMessages, body, first).header("x-breakwater-dedup"), "miss"_ba);
    QCOMPARE(harness.post(kMessages, body, second).header("x-breakwater-dedup"), "miss"_ba);
    QCOMPARE(harness.mock()->callCount(), 2);
    // Per-attempt headers are not the request: a retry with another X-Stainless-Retry-Count shares.
    const HeaderList retry = first + HeaderList{{"X-Stainless-Retry-Count", "1"}, {"X-Stainless-Timeout", "598"}};
    QCOMPARE(harness.post(kMessages, body, retry).header("x-breakwater-dedup"), "hit"_ba);
    QCOMPARE(harness.mock()->callCount(), 2);
}

QTEST_GUILESS_MAIN(tst_ProxyWire)
#include "tst_proxywire.moc"
