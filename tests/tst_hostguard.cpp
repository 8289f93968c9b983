// Who may talk to the proxy: the Host and Origin check as a pure function, table by table, and then
// through a real proxy on loopback: a DNS-rebinding page (a foreign Host) and a browser page (an
// Origin) are refused on every route, while the SDKs' own requests pass as before.

#include "http/hostguard.h"
#include "proxyharness.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace Qt::StringLiterals;

namespace {

constexpr quint16 kPort = 8080;

// A loopback guard on kPort. Filled field by field: GCC 12 warns about every field a designated
// initializer leaves out (GCC bug 96868), though they default.
HostGuard loopbackGuard(const QStringList &allowedOrigins)
{
    HostGuard guard;
    guard.port = kPort;
    guard.allowedOrigins = allowedOrigins;
    return guard;
}

IncomingRequest request(const QByteArray &method, const QByteArray &host, const QByteArray &origin,
                        const HeaderList &more = {})
{
    IncomingRequest r;
    r.method = method;
    r.path = "/v1/chat/completions";
    if (!host.isNull())
        r.headers.append({"Host", host});
    if (!origin.isNull())
        r.headers.append({"Origin", origin});
    r.headers += more;
    return r;
}

QByteArray headerOf(const HeaderList &headers, const QByteArray &name)
{
    for (const auto &[key, value] : headers) {
        if (key.compare(name, Qt::CaseInsensitive) == 0)
            return value;
    }
    return {};
}

QJsonObject json(const QByteArray &body)
{
    return QJsonDocument::fromJson(body).object();
}

// The SDKs' request headers as they send them (openai-python and anthropic-sdk-python over httpx).
const HeaderList kOpenAiSdkHeaders{
    {"Accept", "application/json"}, {"Accept-Encoding", "gzip, deflate"}, {"Connection", "keep-alive"},
    {"User-Agent", "OpenAI/Python 1.54.4"}, {"X-Stainless-Lang", "python"}, {"X-Stainless-Retry-Count", "0"},
    {"Authorization", "Bearer sk-test-1"}, {"Content-Type", "application/json"}};
const HeaderList kAnthropicSdkHeaders{
    {"Accept", "application/json"}, {"Accept-Encoding", "gzip, deflate"}, {"Connection", "keep-alive"},
    {"User-Agent", "Anthropic/Python 0.39.0"}, {"X-Stainless-Lang", "python"}, {"anthropic-version", "2023-06-01"},
    {"x-api-key", "sk-ant-test-1"}, {"Content-Type", "application/json"}};

} // namespace

class TestHostGuard : public QObject
{
    Q_OBJECT

private slots:
    void hostAndOrigin_verdict_data();
    void hostAndOrigin_verdict();
    void allowedOrigin_preflightIsAnsweredWithWhatItAsked();
    void normalizeOrigin_givesTheBrowsersForm_data();
    void normalizeOrigin_givesTheBrowsersForm();
    void foreignHost_isRefusedOnEveryRoute_data();
    void foreignHost_isRefusedOnEveryRoute();
    void browserOrigin_isRefusedBeforeTheUpstream();
    void sdkRequests_passAsBefore_data();
    void sdkRequests_passAsBefore();
    void allowedOrigin_getsCorsHeadersAndItsPreflight();
};

void TestHostGuard::hostAndOrigin_verdict_data()
{
    QTest::addColumn<QByteArray>("method");
    QTest::addColumn<QByteArray>("host");      // null: no Host header
    QTest::addColumn<QByteArray>("origin");    // null: no Origin header
    QTest::addColumn<QStringList>("allowed");
    QTest::addColumn<int>("status");           // 0: admitted
    QTest::addColumn<QByteArray>("code");

    const QByteArray port = QByteArray::number(kPort);
    const QByteArray none;
    const QStringList noOrigins;
    const QStringList app{u"http://localhost:3000"_s};
    // What the SDKs, curl and Breakwater's own clients send.
    QTest::newRow("ip and port") << "POST"_ba << "127.0.0.1:" + port << none << noOrigins << 0 << ""_ba;
    QTest::newRow("localhost and port") << "POST"_ba << "localhost:" + port << none << noOrigins << 0 << ""_ba;
    QTest::newRow("v6 and port") << "POST"_ba << "[::1]:" + port << none << noOrigins << 0 << ""_ba;
    QTest::newRow("bare ip") << "GET"_ba << "127.0.0.1"_ba << none << noOrigins << 0 << ""_ba;
    QTest::newRow("bare localhost") << "GET"_ba << "localhost"_ba << none << noOrigins << 0 << ""_ba;
    QTest::newRow("bare v6") << "GET"_ba << "[::1]"_ba << none << noOrigins << 0 << ""_ba;
    QTest::newRow("upper case") << "GET"_ba << "LocalHost:" + port << none << noOrigins << 0 << ""_ba;
    QTest::newRow("another loopback ip") << "GET"_ba << "127.0.0.2:" + port << none << noOrigins << 0 << ""_ba;
    QTest::newRow("no host (HTTP/1.0)") << "GET"_ba << none << none << noOrigins << 0 << ""_ba;
    // DNS rebinding: the page's own name, now resolving to 127.0.0.1.
    QTest::newRow("rebound name") << "GET"_ba << "evil.example:" + port << none << noOrigins << 421 << "misdirected_request"_ba;
    QTest::newRow("rebound name, no port") << "GET"_ba << "evil.example"_ba << none << noOrigins << 421 << "misdirected_request"_ba;
    QTest::newRow("localhost as a prefix") << "GET"_ba << "localhost.evil.example:" + port << none << noOrigins << 421 << "misdirected_request"_ba;
    QTest::newRow("localhost as a suffix") << "GET"_ba << "evil-localhost:" + port << none << noOrigins << 421 << "misdirected_request"_ba;
    QTest::newRow("0.0.0.0") << "GET"_ba << "0.0.0.0:" + port << none << noOrigins << 421 << "misdirected_request"_ba;
    QTest::newRow("lan address") << "GET"_ba << "192.168.1.10:" + port << none << noOrigins << 421 << "misdirected_request"_ba;
    QTest::newRow("another port") << "GET"_ba << "127.0.0.1:" + QByteArray::number(kPort + 1) << none << noOrigins << 421 << "misdirected_request"_ba;
    QTest::newRow("empty port") << "GET"_ba << "127.0.0.1:"_ba << none << noOrigins << 421 << "misdirected_request"_ba;
    QTest::newRow("v6 without brackets") << "GET"_ba << "::1"_ba << none << noOrigins << 421 << "misdirected_request"_ba;
    QTest::newRow("unclosed bracket") << "GET"_ba << "[::1:" + port << none << noOrigins << 421 << "misdirected_request"_ba;
    // Browser pages.
    QTest::newRow("cross-origin page") << "POST"_ba << "127.0.0.1:" + port << "https://evil.example"_ba << noOrigins << 403 << "origin_not_allowed"_ba;
    QTest::newRow("a local page") << "POST"_ba << "127.0.0.1:" + port << "http://localhost:3000"_ba << noOrigins << 403 << "origin_not_allowed"_ba;
    QTest::newRow("own origin") << "POST"_ba << "127.0.0.1:" + port << "http://127.0.0.1:" + port << noOrigins << 403 << "origin_not_allowed"_ba;
    QTest::newRow("opaque origin") << "POST"_ba << "127.0.0.1:" + port << "null"_ba << noOrigins << 403 << "origin_not_allowed"_ba;
    QTest::newRow("not an origin") << "POST"_ba << "127.0.0.1:" + port << "http://localhost:3000/x"_ba << app << 403 << "origin_not_allowed"_ba;
    QTest::newRow("another origin") << "POST"_ba << "127.0.0.1:" + port << "http://localhost:3001"_ba << app << 403 << "origin_not_allowed"_ba;
    QTest::newRow("allowed origin") << "POST"_ba << "127.0.0.1:" + port << "http://localhost:3000"_ba << app << 0 << ""_ba;
    QTest::newRow("allowed, but rebound") << "POST"_ba << "evil.example:" + port << "http://localhost:3000"_ba << app << 421 << "misdirected_request"_ba;
}

void TestHostGuard::hostAndOrigin_verdict()
{
    QFETCH(QByteArray, method);
    QFETCH(QByteArray, host);
    QFETCH(QByteArray, origin);
    QFETCH(QStringList, allowed);
    QFETCH(int, status);
    QFETCH(QByteArray, code);

    const HostVerdict verdict = checkHostAndOrigin(loopbackGuard(allowed), request(method, host, origin));
    QCOMPARE(verdict.refusal.has_value(), status != 0);
    QVERIFY(!verdict.preflight);
    if (verdict.refusal) {
        QCOMPARE(verdict.refusal->status, status);
        QCOMPARE(verdict.refusal->code, code);
        QVERIFY(!verdict.refusal->message.isEmpty());
        QVERIFY(verdict.headers.isEmpty());
        if (status == 403)   // it says how to allow the page
            QVERIFY2(verdict.refusal->message.english().contains(u"--allow-origin"_s), qPrintable(verdict.refusal->message.english()));
    } else if (!origin.isNull()) {
        QCOMPARE(headerOf(verdict.headers, "Access-Control-Allow-Origin"), origin);
        QVERIFY(headerOf(verdict.headers, "Access-Control-Expose-Headers").contains("x-should-retry"));
    } else {
        QVERIFY(verdict.headers.isEmpty());   // no CORS headers for the SDKs
    }
}

void TestHostGuard::allowedOrigin_preflightIsAnsweredWithWhatItAsked()
{
    const HostGuard guard = loopbackGuard({u"https://chat.example"_s});
    const HeaderList asks{{"Access-Control-Request-Method", "POST"},
                          {"Access-Control-Request-Headers", "authorization, content-type, x-stainless-os"},
                          {"Access-Control-Request-Private-Network", "true"}};
    const HostVerdict verdict = checkHostAndOrigin(guard, request("OPTIONS", "127.0.0.1:8080", "https://chat.example", asks));
    QVERIFY(!verdict.refusal);
    QVERIFY(verdict.preflight);
    QCOMPARE(headerOf(verdict.headers, "Access-Control-Allow-Origin"), "https://chat.example"_ba);
    QCOMPARE(headerOf(verdict.headers, "Access-Control-Allow-Methods"), "GET, POST"_ba);
    QCOMPARE(headerOf(verdict.headers, "Access-Control-Allow-Headers"), "authorization, content-type, x-stainless-os"_ba);
    QCOMPARE(headerOf(verdict.headers, "Access-Control-Allow-Private-Network"), "true"_ba);

    // An OPTIONS that is not a preflight is routed as any request; one from another origin is refused.
    QVERIFY(!checkHostAndOrigin(guard, request("OPTIONS", "127.0.0.1:8080", "https://chat.example")).preflight);
    const HostVerdict stranger = checkHostAndOrigin(guard, request("OPTIONS", "127.0.0.1:8080", "https://evil.example", asks));
    QVERIFY(stranger.refusal && !stranger.preflight);
    QCOMPARE(stranger.refusal->status, 403);
}

void TestHostGuard::normalizeOrigin_givesTheBrowsersForm_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("origin");   // empty: not an origin
    QTest::newRow("as sent") << u"http://localhost:3000"_s << u"http://localhost:3000"_s;
    QTest::newRow("case and slash") << u"HTTP://LocalHost:3000/"_s << u"http://localhost:3000"_s;
    QTest::newRow("https default port") << u"https://app.example:443"_s << u"https://app.example"_s;
    QTest::newRow("http default port") << u"http://app.example:80"_s << u"http://app.example"_s;
    QTest::newRow("v6") << u"http://[::1]:5173"_s << u"http://[::1]:5173"_s;
    QTest::newRow("extension") << u"chrome-extension://abcdefghijklmnop"_s << u"chrome-extension://abcdefghijklmnop"_s;
    QTest::newRow("opaque") << u"null"_s << u"null"_s;
    QTest::newRow("wildcard") << u"*"_s << QString();
    QTest::newRow("a path") << u"http://localhost:3000/app"_s << QString();
    QTest::newRow("a query") << u"http://localhost:3000?x=1"_s << QString();
    QTest::newRow("a user") << u"http://me@localhost:3000"_s << QString();
    QTest::newRow("no scheme") << u"localhost:3000"_s << QString();
    QTest::newRow("empty") << QString() << QString();
}

void TestHostGuard::normalizeOrigin_givesTheBrowsersForm()
{
    QFETCH(QString, text);
    QFETCH(QString, origin);
    QCOMPARE(normalizeOrigin(text).value_or(QString()), origin);
}

void TestHostGuard::foreignHost_isRefusedOnEveryRoute_data()
{
    QTest::addColumn<QByteArray>("method");
    QTest::addColumn<QByteArray>("path");
    QTest::addColumn<bool>("anthropic");
    QTest::newRow("stats") << "GET"_ba << "/breakwater/stats"_ba << false;
    QTest::newRow("metrics") << "GET"_ba << "/metrics"_ba << false;
    QTest::newRow("healthz") << "GET"_ba << "/healthz"_ba << false;
    QTest::newRow("models") << "GET"_ba << "/v1/models"_ba << false;
    QTest::newRow("chat") << "POST"_ba << "/v1/chat/completions"_ba << false;
    QTest::newRow("messages") << "POST"_ba << "/v1/messages"_ba << true;
}

void TestHostGuard::foreignHost_isRefusedOnEveryRoute()
{
    QFETCH(QByteArray, method);
    QFETCH(QByteArray, path);
    QFETCH(bool, anthropic);
    ProxyHarness harness;
    const QByteArray body = method == "GET" ? QByteArray() : anthropic ? messagesBody(u"hi"_s) : chatBody(u"hi"_s);
    HeaderList headers = anthropic ? kAnthropicAuth : path.startsWith("/breakwater/") ? harness.controlAuth() : kOpenAiAuth;
    headers.prepend({"Host", "evil.example:" + QByteArray::number(harness.port())});
    const LoopbackResponse response = fetch(harness.port(), method, path, headers, body);
    QCOMPARE(response.status, 421);
    QCOMPARE(response.header("x-should-retry"), "false"_ba);
    const QJsonObject root = json(response.body);
    if (anthropic) {
        QCOMPARE(root.value(u"type"_s).toString(), u"error"_s);
        QCOMPARE(root.value(u"error"_s).toObject().value(u"type"_s).toString(), u"invalid_request_error"_s);
    } else {
        QCOMPARE(root.value(u"error"_s).toObject().value(u"code"_s).toString(), u"misdirected_request"_s);
    }
    QVERIFY(!response.body.contains("breakwater_requests_total"));   // nothing of the proxy's state
    QCOMPARE(harness.mock()->callCount(), 0);
    // The same request addressed to the proxy itself is answered.
    headers.removeFirst();
    QVERIFY(fetch(harness.port(), method, path, headers, body).status < 300);
}

void TestHostGuard::browserOrigin_isRefusedBeforeTheUpstream()
{
    ProxyHarness harness;
    HeaderList headers = kOpenAiAuth;
    headers.append({"Origin"_ba, "https://evil.example"_ba});
    const LoopbackResponse response = harness.post("/v1/chat/completions", chatBody(u"from a page"_s), headers);
    QCOMPARE(response.status, 403);
    QCOMPARE(response.header("x-should-retry"), "false"_ba);
    QVERIFY(response.header("Access-Control-Allow-Origin").isEmpty());   // the page may not read it either
    QCOMPARE(json(response.body).value(u"error"_s).toObject().value(u"code"_s).toString(), u"origin_not_allowed"_s);
    QCOMPARE(harness.mock()->callCount(), 0);
    QVERIFY(harness.records.isEmpty());
}

void TestHostGuard::sdkRequests_passAsBefore_data()
{
    QTest::addColumn<QByteArray>("host");   // with the proxy's port appended
    QTest::newRow("127.0.0.1") << "127.0.0.1:"_ba;
    QTest::newRow("localhost") << "localhost:"_ba;
}

void TestHostGuard::sdkRequests_passAsBefore()
{
    QFETCH(QByteArray, host);
    ProxyHarness harness;
    const HeaderList hostHeader{{"Host", host + QByteArray::number(harness.port())}};
    const LoopbackResponse chat = fetch(harness.port(), "POST", "/v1/chat/completions", hostHeader + kOpenAiSdkHeaders,
                                    chatBody(u"sdk"_s));
    QCOMPARE(chat.status, 200);
    QVERIFY(chat.header("Access-Control-Allow-Origin").isEmpty());
    const LoopbackResponse messages = fetch(harness.port(), "POST", "/v1/messages", hostHeader + kAnthropicSdkHeaders,
                                        messagesBody(u"sdk"_s));
    QCOMPARE(messages.status, 200);
    QCOMPARE(harness.mock()->callCount(), 2);
    QCOMPARE(fetch(harness.port(), "GET", "/metrics", hostHeader).status, 200);
    QCOMPARE(fetch(harness.port(), "GET", "/breakwater/stats", hostHeader + harness.controlAuth()).status, 200);
}

void TestHostGuard::allowedOrigin_getsCorsHeadersAndItsPreflight()
{
    ProxyHarness harness([](ProxyConfig &c) { c.allowedOrigins = {u"http://localhost:3000"_s}; });
    const HeaderList origin{{"Origin", "http://localhost:3000"}};
    const LoopbackResponse preflight = fetch(harness.port(), "OPTIONS", "/v1/chat/completions",
        origin + HeaderList{{"Access-Control-Request-Method", "POST"},
                            {"Access-Control-Request-Headers", "authorization, content-type"}});
    QCOMPARE(preflight.status, 200);
    QCOMPARE(preflight.header("Access-Control-Allow-Origin"), "http://localhost:3000"_ba);
    QCOMPARE(preflight.header("Access-Control-Allow-Headers"), "authorization, content-type"_ba);
    QCOMPARE(harness.mock()->callCount(), 0);

    const LoopbackResponse chat = harness.post("/v1/chat/completions", chatBody(u"from the app"_s), kOpenAiAuth + origin);
    QCOMPARE(chat.status, 200);
    QCOMPARE(chat.header("Access-Control-Allow-Origin"), "http://localhost:3000"_ba);
    QCOMPARE(chat.header("x-breakwater-dedup"), "miss"_ba);
    QCOMPARE(harness.mock()->callCount(), 1);
    // A stream carries them too (its head is written later, by the flight).
    const LoopbackResponse stream = harness.post("/v1/chat/completions", chatBody(u"streamed"_s, true), kOpenAiAuth + origin);
    QCOMPARE(stream.status, 200);
    QVERIFY(stream.chunked);
    QCOMPARE(stream.header("Access-Control-Allow-Origin"), "http://localhost:3000"_ba);
}

QTEST_GUILESS_MAIN(TestHostGuard)
#include "tst_hostguard.moc"
