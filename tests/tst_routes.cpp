// Every route family a real app calls, through a real proxy: the Responses API shared like chat
// completions (but never a background job or a conversation turn), count_tokens shared, cached and
// free, Anthropic's batches and models on the Anthropic upstream, everything else under /v1/
// passed through byte for byte and relayed as it arrives, a call routed by whose headers it carries
// (Anthropic's Files, Skills, Admin and legacy complete to the Anthropic upstream, and a credential
// never to the other API's upstream), 404/405 where no route fits (in the caller's API's shape, a
// trailing or doubled slash included), WebSocket upgrades refused with one 426, and what
// pass-through calls may tell the breaker.

#include "accounting/spendguard.h"
#include "fakeclock.h"
#include "proxyroutes.h"
#include "proxyharness.h"
#include "servicethread.h"
#include "sharing/flight.h"
#include "wireevents.h"

#include <QCryptographicHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace std::chrono_literals;

namespace {
constexpr int kWait = 30000;   // ms: generous, for a loaded 2-core machine; never reached when it passes
const QByteArray kResponses = "/v1/responses";

QJsonObject json(const QByteArray &body)
{
    return QJsonDocument::fromJson(body).object();
}

QString sha256(const QByteArray &bytes)
{
    return QString::fromLatin1(QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex());
}

// Every byte value, CR LF and NUL included, so nothing on the way may treat the body as text.
QByteArray binaryBytes(int size)
{
    QByteArray bytes(size, Qt::Uninitialized);
    for (int i = 0; i < size; ++i)
        bytes[i] = char((i * 7 + i / 256) & 0xff);
    return bytes;
}

// A stream's SSE events however the relayed chunks cut them (sseEvents reads one event per chunk).
QList<SseEvent> eventsOf(const LoopbackResponse &response)
{
    LoopbackResponse perEvent;
    for (qsizetype at = 0; at < response.body.size();) {
        const qsizetype end = response.body.indexOf("\n\n", at);
        const qsizetype next = end < 0 ? response.body.size() : end + 2;
        perEvent.chunks.append(response.body.mid(at, next - at));
        at = next;
    }
    return sseEvents(perEvent);
}

HeaderList withContentType(const HeaderList &auth, const QByteArray &type)
{
    HeaderList headers;
    for (const auto &header : auth) {
        if (header.first.compare("content-type", Qt::CaseInsensitive) != 0)
            headers.append(header);
    }
    headers.append({"Content-Type", type});
    return headers;
}

// Two upstreams of their own: the harness's mock as the OpenAI upstream and a second mock as the
// Anthropic one, so each counts only the calls (and sees only the headers) that went to it.
struct TwoUpstreams
{
    ServiceThread<MockProvider> anthropic{u"anthropic-mock"_s, [] { return new MockProvider; }};
    ProxyHarness harness{[this](ProxyConfig &c) { c.anthropicUpstream = anthropic.service()->anthropicBaseUrl(); }};
    MockProvider *openaiMock() const { return harness.mock(); }
    MockProvider *anthropicMock() const { return anthropic.service(); }
};

// A multipart/form-data body with one file part, as the SDKs' Files upload sends it.
QByteArray multipartFile(const QByteArray &boundary, const QByteArray &file, const QByteArray &purpose = {})
{
    QByteArray body;
    if (!purpose.isEmpty())
        body += "--" + boundary + "\r\nContent-Disposition: form-data; name=\"purpose\"\r\n\r\n" + purpose + "\r\n";
    body += "--" + boundary + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"notes.txt\"\r\n"
            "Content-Type: text/plain\r\n\r\n" + file + "\r\n--" + boundary + "--\r\n";
    return body;
}

BreakerState breakerState(const ProxyHarness &harness)
{
    return harness.onProxyThread<BreakerState>([](ProxyServer *p) { return p->openai().breaker->state(); });
}

int breakerFailures(const ProxyHarness &harness)
{
    return harness.onProxyThread<int>([](ProxyServer *p) { return p->openai().breaker->consecutiveFailures(); });
}

// Opens the OpenAI breaker with two 503s, then lets the mock answer normally again; the probe
// never runs, so only the fake clock can end the cool-down.
void breakerForTrials(ProxyConfig &config)
{
    config.breakerFailures = 2;
    config.breakerCooldown = 60s;
    config.breakerProbeInterval = 1h;
}

bool openBreaker(ProxyHarness &harness)
{
    harness.mock()->setMode(MockProvider::Mode::Error503);
    for (int i = 0; i < 2; ++i) {
        if (harness.post("/v1/chat/completions", chatBody(u"fail %1"_s.arg(i))).status != 503)
            return false;
    }
    harness.mock()->setMode(MockProvider::Mode::Ok);
    return breakerState(harness) == BreakerState::Open;
}
} // namespace

class TestRoutes final : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void responsesJson_isProxiedAndCached();
    void responsesStream_passesThroughToResponseCompleted();
    void twentyIdenticalResponses_oneUpstreamCall();
    void responsesSharing_data();
    void responsesSharing();
    void responses_reservesSpendFromMaxOutputTokens();
    void storedResponses_arePassedThroughUnshared();
    void countTokens_sharedCachedAndFreeUnderSpendCap();
    void messageBatches_reachAnthropicUpstream();
    void models_goWhereTheirHeadersSay_data();
    void models_goWhereTheirHeadersSay();
    void uploads_arriveByteIdentical_data();
    void uploads_arriveByteIdentical();
    void largeDownload_isRelayedAsItArrives_flightKeepsAPrefix();
    void getChatCompletions_isPassedThrough();
    void anthropicSdkFilesUpload_reachesOnlyTheAnthropicUpstream();
    void calls_goToTheUpstreamOfTheirHeaders_data();
    void calls_goToTheUpstreamOfTheirHeaders();
    void credentialOfAnotherApi_isRefusedBeforeAnyUpstream_data();
    void credentialOfAnotherApi_isRefusedBeforeAnyUpstream();
    void upstreamUrl_joinsBaseAndPath_data();
    void upstreamUrl_joinsBaseAndPath();
    void noRoute_data();
    void noRoute();
    void webSocketUpgrade_oneResponse426();
    void openBreaker_refusesPassThrough();
    void halfOpen_passThroughSuccess_doesNotClose_data();
    void halfOpen_passThroughSuccess_doesNotClose();
    void passThroughSuccess_neverResetsFailures();
    void trialAnswered4xx_leavesBreakerHalfOpen();
};

void TestRoutes::initTestCase()
{
    qRegisterMetaType<CallRecord>();
    qRegisterMetaType<BreakerTransition>();
}

void TestRoutes::responsesJson_isProxiedAndCached()
{
    ProxyHarness harness;
    const QByteArray body = responsesBody(u"hello responses"_s);
    const LoopbackResponse first = harness.post(kResponses, body);
    QCOMPARE(first.status, 200);
    QCOMPARE(json(first.body).value(u"object"_s).toString(), u"response"_s);
    QCOMPARE(first.header("x-breakwater-dedup"), "miss"_ba);
    QCOMPARE(harness.mock()->lastRequestBody(), body);
    const LoopbackResponse second = harness.post(kResponses, body);
    QCOMPARE(second.status, 200);
    QCOMPARE(second.header("x-breakwater-dedup"), "hit"_ba);
    QCOMPARE(json(second.body).value(u"id"_s), json(first.body).value(u"id"_s));
    QCOMPARE(harness.mock()->callCount(u"/v1/responses"_s), 1);
    QTRY_COMPARE_WITH_TIMEOUT(harness.records.size(), 2, kWait);
    QCOMPARE(harness.records.first().route, kResponses);
    QCOMPARE(harness.records.first().model, u"gpt-test"_s);
}

void TestRoutes::responsesStream_passesThroughToResponseCompleted()
{
    ProxyHarness harness;
    const QByteArray body = responsesBody(u"stream these words"_s, true);
    const LoopbackResponse first = harness.post(kResponses, body);
    QCOMPARE(first.status, 200);
    QVERIFY(first.chunked);
    QVERIFY(first.complete);
    const QList<SseEvent> events = eventsOf(first);
    const QList<QByteArray> names = eventNames(events);
    QVERIFY2(!names.isEmpty() && names.first() == "response.created", names.join(' ').constData());
    QCOMPARE(names.last(), "response.completed"_ba);
    QVERIFY(!names.contains("error"));   // judged complete: no error event of ours
    QCOMPARE(streamedText(events), u"echo: stream these words"_s);
    // A complete stream is cached and replayed as a stream.
    const LoopbackResponse second = harness.post(kResponses, body);
    QCOMPARE(second.header("x-breakwater-dedup"), "hit"_ba);
    QCOMPARE(second.body, first.body);
    QCOMPARE(harness.mock()->callCount(u"/v1/responses"_s), 1);
    QCOMPARE(breakerFailures(harness), 0);
}

void TestRoutes::twentyIdenticalResponses_oneUpstreamCall()
{
    ProxyHarness harness;
    harness.mock()->setHoldAnswers(true);
    constexpr int kCalls = 20;
    const QByteArray body = responsesBody(QJsonArray{QJsonObject{{u"role"_s, u"user"_s},
                                                                 {u"content"_s, u"twenty of us"_s}}},
                                          false, {{u"store"_s, true}, {u"max_output_tokens"_s, 64}});
    QList<LoopbackClient *> calls;
    for (int i = 0; i < kCalls; ++i)
        calls.append(harness.start(kResponses, body));
    QTRY_COMPARE_WITH_TIMEOUT(harness.ridersWaiting(), kCalls, kWait);
    QTRY_COMPARE_WITH_TIMEOUT(harness.mock()->heldCount(), 1, kWait);
    harness.mock()->releaseHeld();
    QTRY_VERIFY_WITH_TIMEOUT(allFinished(calls), kWait);
    const QJsonValue id = json(calls.first()->response().body).value(u"id"_s);
    QVERIFY(id.toString().startsWith(u"resp_"_s));
    for (const LoopbackClient *call : calls) {
        QCOMPARE(call->response().status, 200);
        QCOMPARE(json(call->response().body).value(u"id"_s), id);   // one stored response, not 20
    }
    QCOMPARE(harness.mock()->callCount(u"/v1/responses"_s), 1);
    QTRY_COMPARE_WITH_TIMEOUT(harness.records.size(), kCalls, kWait);
    QCOMPARE(harness.countOutcome(Outcome::Miss), 1);
    QCOMPARE(harness.countOutcome(Outcome::Joined), kCalls - 1);
}

void TestRoutes::responsesSharing_data()
{
    QTest::addColumn<QJsonObject>("first");
    QTest::addColumn<QJsonObject>("second");
    QTest::addColumn<int>("upstreamCalls");
    QTest::addColumn<QByteArray>("secondDedup");
    const QJsonObject store{{u"store"_s, true}};
    QTest::newRow("store: one stored response") << store << store << 1 << "hit"_ba;
    QTest::newRow("previous_response_id is keyed")
        << QJsonObject{{u"previous_response_id"_s, u"resp_a"_s}}
        << QJsonObject{{u"previous_response_id"_s, u"resp_b"_s}} << 2 << "miss"_ba;
    const QJsonObject background{{u"background"_s, true}};
    QTest::newRow("background is never shared") << background << background << 2 << "bypass"_ba;
    const QJsonObject conversation{{u"conversation"_s, u"conv_1"_s}};
    QTest::newRow("a conversation turn is never shared") << conversation << conversation << 2 << "bypass"_ba;
}

void TestRoutes::responsesSharing()
{
    QFETCH(QJsonObject, first);
    QFETCH(QJsonObject, second);
    QFETCH(int, upstreamCalls);
    QFETCH(QByteArray, secondDedup);
    ProxyHarness harness;
    const LoopbackResponse one = harness.post(kResponses, responsesBody(u"same words"_s, false, first));
    QCOMPARE(one.status, 200);
    const LoopbackResponse two = harness.post(kResponses, responsesBody(u"same words"_s, false, second));
    QCOMPARE(two.status, 200);
    QCOMPARE(two.header("x-breakwater-dedup"), secondDedup);
    QCOMPARE(harness.mock()->callCount(u"/v1/responses"_s), upstreamCalls);
    QCOMPARE(json(one.body).value(u"id"_s) == json(two.body).value(u"id"_s), upstreamCalls == 1);
    QCOMPARE(harness.onProxyThread<int>([](ProxyServer *p) { return p->cache().count(); }),
             secondDedup == "bypass" ? 0 : upstreamCalls);
}

void TestRoutes::responses_reservesSpendFromMaxOutputTokens()
{
    ProxyHarness harness([](ProxyConfig &c) { c.maxSpendUsd = 0.01; });
    const auto priced = [](int maxOutputTokens) {
        QByteArray body = responsesBody(u"words"_s, false, {{u"max_output_tokens"_s, maxOutputTokens}});
        return body.replace("\"gpt-test\"", "\"gpt-4o-mini\"");
    };
    // gpt-4o-mini: a million output tokens cost far more than the cap; sixteen do not.
    const LoopbackResponse refused = harness.post(kResponses, priced(1000000));
    QCOMPARE(refused.status, 429);
    QCOMPARE(json(refused.body)[u"error"_s][u"code"_s].toString(), u"spend_limit_exceeded"_s);
    QCOMPARE(harness.mock()->callCount(), 0);
    QCOMPARE(harness.post(kResponses, priced(16)).status, 200);
    QCOMPARE(harness.mock()->callCount(), 1);
}

void TestRoutes::storedResponses_arePassedThroughUnshared()
{
    ProxyHarness harness;
    const LoopbackResponse created = harness.post(kResponses, responsesBody(u"keep me"_s));
    QCOMPARE(created.status, 200);
    const QByteArray id = json(created.body).value(u"id"_s).toString().toLatin1();
    const QByteArray path = kResponses + '/' + id;

    const LoopbackResponse got = fetch(harness.port(), "GET", path, kOpenAiAuth);
    QCOMPARE(got.status, 200);
    QCOMPARE(got.header("x-breakwater-dedup"), "bypass"_ba);
    QCOMPARE(json(got.body).value(u"id"_s).toString().toLatin1(), id);
    const LoopbackResponse items = fetch(harness.port(), "GET", path + "/input_items", kOpenAiAuth);
    QCOMPARE(items.status, 200);
    QCOMPARE(json(items.body).value(u"object"_s).toString(), u"list"_s);
    const LoopbackResponse cancel = fetch(harness.port(), "POST", path + "/cancel", kOpenAiAuth, "{}");
    QCOMPARE(cancel.status, 400);   // the provider's own answer: only background responses cancel
    QCOMPARE(cancel.header("x-breakwater-dedup"), "bypass"_ba);
    const LoopbackResponse deleted = fetch(harness.port(), "DELETE", path, kOpenAiAuth);
    QCOMPARE(deleted.status, 200);
    QCOMPARE(json(deleted.body).value(u"deleted"_s).toBool(), true);
    QCOMPARE(deleted.header("x-breakwater-dedup"), "bypass"_ba);
    const LoopbackResponse gone = fetch(harness.port(), "GET", path, kOpenAiAuth);
    QCOMPARE(gone.status, 404);   // nothing was cached: the provider is asked again
    QCOMPARE(harness.mock()->callCount(QString::fromLatin1(path)), 3);
    QCOMPARE(harness.mock()->callCount(), 6);
    QTRY_COMPARE_WITH_TIMEOUT(harness.records.size(), 6, kWait);
    QCOMPARE(harness.countOutcome(Outcome::Bypass), 5);
    QCOMPARE(harness.records.at(4).route, "/v1/responses/**"_ba);   // a route, never a client's id
}

void TestRoutes::countTokens_sharedCachedAndFreeUnderSpendCap()
{
    ProxyHarness harness([](ProxyConfig &c) { c.maxSpendUsd = 1; });
    QJsonObject request = json(messagesBody(u"count these words"_s));
    request[u"model"_s] = u"claude-nobody-priced-this"_s;
    request.remove(u"max_tokens"_s);
    const QByteArray body = QJsonDocument(request).toJson(QJsonDocument::Compact);
    // The cap applies to a model call with that model...
    QJsonObject message = request;
    message[u"max_tokens"_s] = 16;
    const LoopbackResponse refused = harness.post("/v1/messages", QJsonDocument(message).toJson(QJsonDocument::Compact),
                                                  kAnthropicAuth);
    QCOMPARE(refused.status, 403);
    QCOMPARE(json(refused.body)[u"error"_s][u"type"_s].toString(), u"permission_error"_s);
    // ...but counting tokens is free: admitted, shared and cached.
    const LoopbackResponse first = harness.post("/v1/messages/count_tokens", body, kAnthropicAuth);
    QCOMPARE(first.status, 200);
    QVERIFY(json(first.body).value(u"input_tokens"_s).toInt() > 0);
    QCOMPARE(first.header("x-breakwater-dedup"), "miss"_ba);
    const LoopbackResponse second = harness.post("/v1/messages/count_tokens", body, kAnthropicAuth);
    QCOMPARE(second.status, 200);
    QCOMPARE(second.header("x-breakwater-dedup"), "hit"_ba);
    QCOMPARE(second.body, first.body);
    QCOMPARE(harness.mock()->callCount(u"/v1/messages/count_tokens"_s), 1);
    QCOMPARE(harness.mock()->callCount(), 1);
    QCOMPARE(harness.onProxyThread<double>([](ProxyServer *p) { return p->spendGuard()->reservedNow(); }), 0.0);
}

void TestRoutes::messageBatches_reachAnthropicUpstream()
{
    // The OpenAI upstream answers 404 to everything: only the Anthropic upstream can answer 200.
    ProxyHarness harness([](ProxyConfig &c) { c.openaiUpstream.setPath(u"/no-such-prefix/v1"_s); });
    const QByteArray body = R"({"requests":[{"custom_id":"a","params":{"model":"claude-3-5-haiku-latest",)"
                            R"("max_tokens":16,"messages":[{"role":"user","content":"hi"}]}}]})";
    const LoopbackResponse created = harness.post("/v1/messages/batches", body, kAnthropicAuth);
    QCOMPARE(created.status, 200);
    QCOMPARE(json(created.body).value(u"type"_s).toString(), u"message_batch"_s);
    QCOMPARE(created.header("x-breakwater-dedup"), "bypass"_ba);
    const QByteArray id = json(created.body).value(u"id"_s).toString().toLatin1();
    const LoopbackResponse got = fetch(harness.port(), "GET", "/v1/messages/batches/" + id, kAnthropicAuth);
    QCOMPARE(got.status, 200);
    QCOMPARE(json(got.body).value(u"id"_s).toString().toLatin1(), id);
    const LoopbackResponse list = fetch(harness.port(), "GET", "/v1/messages/batches", kAnthropicAuth);
    QCOMPARE(list.status, 200);
    QVERIFY(json(list.body).contains(u"has_more"_s));
    QCOMPARE(harness.mock()->callCount(), 3);
    QTRY_COMPARE_WITH_TIMEOUT(harness.records.size(), 3, kWait);
    for (const CallRecord &record : std::as_const(harness.records))
        QCOMPARE(record.upstream, "anthropic"_ba);
}

void TestRoutes::models_goWhereTheirHeadersSay_data()
{
    QTest::addColumn<HeaderList>("headers");
    QTest::addColumn<QByteArray>("path");
    QTest::addColumn<QByteArray>("upstream");
    const HeaderList versionOnly{{"anthropic-version", "2023-06-01"}, {"Authorization", "Bearer sk-ant-1"}};
    const HeaderList keyOnly{{"x-api-key", "sk-ant-test-1"}};
    QTest::newRow("anthropic sdk, list") << kAnthropicAuth << "/v1/models"_ba << "anthropic"_ba;
    QTest::newRow("anthropic sdk, one") << kAnthropicAuth << "/v1/models/claude-sonnet-4-5"_ba << "anthropic"_ba;
    QTest::newRow("anthropic-version with a bearer key") << versionOnly << "/v1/models"_ba << "anthropic"_ba;
    QTest::newRow("x-api-key alone") << keyOnly << "/v1/models"_ba << "anthropic"_ba;
    QTest::newRow("openai sdk, list") << kOpenAiAuth << "/v1/models"_ba << "openai"_ba;
    QTest::newRow("openai sdk, one") << kOpenAiAuth << "/v1/models/gpt-4o"_ba << "openai"_ba;
}

void TestRoutes::models_goWhereTheirHeadersSay()
{
    QFETCH(HeaderList, headers);
    QFETCH(QByteArray, path);
    QFETCH(QByteArray, upstream);
    // Each upstream on its own path prefix of the mock, which answers 404 under the wrong one.
    const bool anthropic = upstream == "anthropic";
    ProxyHarness harness([anthropic](ProxyConfig &c) {
        (anthropic ? c.openaiUpstream : c.anthropicUpstream).setPath(u"/no-such-prefix"_s);
    });
    const LoopbackResponse response = fetch(harness.port(), "GET", path, headers);
    QCOMPARE(response.status, 200);
    QCOMPARE(response.header("x-breakwater-dedup"), "bypass"_ba);
    const QJsonObject answer = json(response.body);
    if (path == "/v1/models" && !headers.contains({"anthropic-version", "2023-06-01"}))
        QCOMPARE(answer.value(u"object"_s).toString(), u"list"_s);   // the mock's OpenAI shape
    else if (path == "/v1/models")
        QCOMPARE(answer.value(u"data"_s)[0][u"type"_s].toString(), u"model"_s);   // Anthropic's shape
    QTRY_COMPARE_WITH_TIMEOUT(harness.records.size(), 1, kWait);
    QCOMPARE(harness.records.first().upstream, upstream);
    QCOMPARE(harness.mock()->callCount(), 1);
}

void TestRoutes::uploads_arriveByteIdentical_data()
{
    QTest::addColumn<QByteArray>("path");
    QTest::addColumn<QByteArray>("contentType");
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<QByteArray>("file");   // the file part the mock must see, byte for byte
    const QByteArray file = binaryBytes(300 * 1024);
    const QByteArray boundary = "----breakwater-routes-7MA4YWxkTrZu0gW";
    const QByteArray multipart = "--" + boundary + "\r\nContent-Disposition: form-data; name=\"purpose\"\r\n\r\n"
                                 "assistants\r\n--" + boundary + "\r\nContent-Disposition: form-data; name=\"file\"; "
                                 "filename=\"data.bin\"\r\nContent-Type: application/octet-stream\r\n\r\n"
                                 + file + "\r\n--" + boundary + "--\r\n";
    QTest::newRow("multipart file upload") << "/v1/files"_ba << "multipart/form-data; boundary=" + boundary
                                           << multipart << file;
    QTest::newRow("binary audio") << "/v1/audio/transcriptions"_ba << "audio/wav"_ba << file << QByteArray();
}

void TestRoutes::uploads_arriveByteIdentical()
{
    QFETCH(QByteArray, path);
    QFETCH(QByteArray, contentType);
    QFETCH(QByteArray, body);
    QFETCH(QByteArray, file);
    ProxyHarness harness;
    const LoopbackResponse response = harness.post(path, body, withContentType(kOpenAiAuth, contentType));
    QCOMPARE(response.status, 200);
    QCOMPARE(response.header("x-breakwater-dedup"), "bypass"_ba);
    const QJsonObject received = json(response.body).value(u"received"_s).toObject();
    QCOMPARE(received.value(u"bytes"_s).toInteger(), qint64(body.size()));
    QCOMPARE(received.value(u"sha256"_s).toString(), sha256(body));
    QCOMPARE(received.value(u"content_type"_s).toString().toLatin1(), contentType);
    if (!file.isEmpty()) {
        const QJsonObject part = received.value(u"files"_s)[0].toObject();
        QCOMPARE(part.value(u"sha256"_s).toString(), sha256(file));
        QCOMPARE(received.value(u"fields"_s)[u"purpose"_s].toString(), u"assistants"_s);
    }
    QCOMPARE(harness.mock()->callCount(QString::fromLatin1(path)), 1);
}

void TestRoutes::largeDownload_isRelayedAsItArrives_flightKeepsAPrefix()
{
    // An upstream of the test's own that sends a large file in two halves, the second only once
    // the client holds the first.
    QTcpServer upstream;
    QVERIFY(upstream.listen(QHostAddress::LocalHost, 0));
    QTcpSocket *connection = nullptr;
    QByteArray requestHead;
    connect(&upstream, &QTcpServer::newConnection, this, [&] {
        connection = upstream.nextPendingConnection();
        connect(connection, &QTcpSocket::readyRead, this, [&] { requestHead += connection->readAll(); });
    });
    ProxyHarness harness([&upstream](ProxyConfig &c) {
        c.openaiUpstream = QUrl(u"http://127.0.0.1:%1/v1"_s.arg(upstream.serverPort()));
        c.recordBodies = true;
    });
    constexpr qsizetype kSize = 8 * 1024 * 1024;
    const QByteArray content = binaryBytes(kSize);
    LoopbackClient client(harness.port(), "GET", "/v1/files/file-big/content", kOpenAiAuth);
    qint64 received = 0;
    connect(&client, &LoopbackClient::chunkReceived, this, [&](const QByteArray &piece) { received += piece.size(); });
    client.start();
    QTRY_VERIFY_WITH_TIMEOUT(requestHead.contains("\r\n\r\n"), kWait);
    QVERIFY2(requestHead.startsWith("GET /v1/files/file-big/content HTTP/1.1"), requestHead.constData());
    connection->write("HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: "
                      + QByteArray::number(kSize) + "\r\n\r\n");
    connection->write(content.left(kSize / 2));
    QTRY_VERIFY_WITH_TIMEOUT(received >= kSize / 2, kWait);   // relayed before the rest was even sent
    QVERIFY(!client.isFinished());
    connection->write(content.mid(kSize / 2));
    QTRY_VERIFY_WITH_TIMEOUT(client.isFinished(), kWait);
    const LoopbackResponse &response = client.response();
    QCOMPARE(response.status, 200);
    QVERIFY(response.complete);
    QVERIFY(response.chunked);
    QCOMPARE(response.header("content-type"), "application/octet-stream"_ba);
    QCOMPARE(response.body.size(), kSize);
    QVERIFY(response.body == content);
    QTRY_COMPARE_WITH_TIMEOUT(harness.records.size(), 1, kWait);
    const CallRecord &record = harness.records.first();
    QCOMPARE(record.status, 200);
    QCOMPARE(record.outcome, Outcome::Bypass);
    QCOMPARE(record.responseBody.size(), Flight::kKeptBytes);   // the flight kept a prefix only
    QVERIFY(record.responseBody == content.left(Flight::kKeptBytes));
}

void TestRoutes::getChatCompletions_isPassedThrough()
{
    // OpenAI lists stored chat completions on GET /v1/chat/completions: the provider answers it.
    ProxyHarness harness;
    const LoopbackResponse response = fetch(harness.port(), "GET", "/v1/chat/completions?limit=2", kOpenAiAuth);
    QCOMPARE(response.status, 404);   // the mock has no such list: its own answer, passed through
    QCOMPARE(response.header("x-breakwater-dedup"), "bypass"_ba);
    QVERIFY(response.header("x-should-retry").isEmpty());
    QCOMPARE(harness.mock()->callCount(u"/v1/chat/completions"_s), 1);
}

void TestRoutes::anthropicSdkFilesUpload_reachesOnlyTheAnthropicUpstream()
{
    // What client.beta.files.upload() sends: multipart, the key in x-api-key, the Files beta header.
    TwoUpstreams upstreams;
    const QByteArray boundary = "----anthropic-sdk-boundary-5f1e";
    const QByteArray file = "meeting notes: ship on Friday\n";
    const HeaderList headers{{"x-api-key", "sk-ant-files-secret-1"}, {"anthropic-version", "2023-06-01"},
                             {"anthropic-beta", "files-api-2025-04-14"},
                             {"Content-Type", "multipart/form-data; boundary=" + boundary}};
    const LoopbackResponse response = fetch(upstreams.harness.port(), "POST", "/v1/files", headers,
                                            multipartFile(boundary, file));
    QCOMPARE(response.status, 200);
    QCOMPARE(response.header("x-breakwater-dedup"), "bypass"_ba);
    const QJsonObject answer = json(response.body);
    QCOMPARE(answer.value(u"type"_s).toString(), u"file"_s);   // Anthropic's FileMetadata
    QCOMPARE(answer.value(u"received"_s)[u"files"_s][0][u"sha256"_s].toString(), sha256(file));
    QCOMPARE(upstreams.anthropicMock()->callCount(u"/v1/files"_s), 1);
    QCOMPARE(upstreams.openaiMock()->callCount(), 0);   // the OpenAI upstream saw nothing at all
    const HeaderList seen = upstreams.anthropicMock()->lastRequestHeaders();
    const auto value = [&seen](const QByteArray &name) {
        for (const auto &[key, v] : seen) {
            if (key.compare(name, Qt::CaseInsensitive) == 0)
                return v;
        }
        return QByteArray();
    };
    QCOMPARE(value("x-api-key"), "sk-ant-files-secret-1"_ba);
    QCOMPARE(value("anthropic-beta"), "files-api-2025-04-14"_ba);
    QTRY_COMPARE_WITH_TIMEOUT(upstreams.harness.records.size(), 1, kWait);
    QCOMPARE(upstreams.harness.records.first().upstream, "anthropic"_ba);
    QVERIFY(!upstreams.harness.records.first().requestHeaders.contains("sk-ant-files-secret-1"));
}

void TestRoutes::calls_goToTheUpstreamOfTheirHeaders_data()
{
    QTest::addColumn<QByteArray>("method");
    QTest::addColumn<QByteArray>("target");
    QTest::addColumn<HeaderList>("headers");
    QTest::addColumn<QByteArray>("upstream");
    // The Anthropic SDK 1.x sends its key as a Bearer token, always beside anthropic-version.
    const HeaderList sdkBearer{{"Authorization", "Bearer sk-ant-bearer-1"}, {"anthropic-version", "2023-06-01"}};
    const HeaderList both{{"x-api-key", "sk-ant-test-1"}, {"Authorization", "Bearer sk-ant-token-1"}};
    const HeaderList versionOnly{{"anthropic-version", "2023-06-01"}};
    QTest::newRow("files list") << "GET"_ba << "/v1/files"_ba << kAnthropicAuth << "anthropic"_ba;
    QTest::newRow("files list, sdk bearer") << "GET"_ba << "/v1/files?limit=20"_ba << sdkBearer << "anthropic"_ba;
    QTest::newRow("file metadata") << "GET"_ba << "/v1/files/file_011"_ba << kAnthropicAuth << "anthropic"_ba;
    QTest::newRow("file download") << "GET"_ba << "/v1/files/file_011/content"_ba << kAnthropicAuth << "anthropic"_ba;
    QTest::newRow("file delete") << "DELETE"_ba << "/v1/files/file_011"_ba << kAnthropicAuth << "anthropic"_ba;
    QTest::newRow("skills, beta=true") << "POST"_ba << "/v1/skills?beta=true"_ba << kAnthropicAuth << "anthropic"_ba;
    QTest::newRow("skill versions") << "GET"_ba << "/v1/skills/skill_1/versions?beta=true"_ba << sdkBearer
                                    << "anthropic"_ba;
    QTest::newRow("admin api") << "GET"_ba << "/v1/organizations/users?limit=2"_ba << kAnthropicAuth << "anthropic"_ba;
    QTest::newRow("legacy complete") << "POST"_ba << "/v1/complete"_ba << kAnthropicAuth << "anthropic"_ba;
    QTest::newRow("legacy complete, no credential") << "POST"_ba << "/v1/complete"_ba << HeaderList() << "anthropic"_ba;
    QTest::newRow("models, both credentials") << "GET"_ba << "/v1/models"_ba << both << "anthropic"_ba;
    QTest::newRow("agents, version only") << "GET"_ba << "/v1/agents"_ba << versionOnly << "anthropic"_ba;
    QTest::newRow("openai files upload") << "POST"_ba << "/v1/files"_ba << kOpenAiAuth << "openai"_ba;
    QTest::newRow("openai key on /v1/skills stays openai's") << "GET"_ba << "/v1/skills"_ba << kOpenAiAuth << "openai"_ba;
    QTest::newRow("azure key") << "GET"_ba << "/v1/files"_ba << HeaderList{{"api-key", "azure-1"}} << "openai"_ba;
}

void TestRoutes::calls_goToTheUpstreamOfTheirHeaders()
{
    QFETCH(QByteArray, method);
    QFETCH(QByteArray, target);
    QFETCH(HeaderList, headers);
    QFETCH(QByteArray, upstream);
    TwoUpstreams upstreams;
    const bool anthropic = upstream == "anthropic";
    const QByteArray body = method == "POST" ? "{}"_ba : QByteArray();
    const LoopbackResponse response = fetch(upstreams.harness.port(), method, target, headers, body);
    QVERIFY2(response.status > 0, response.body.constData());
    QVERIFY2(response.header("x-should-retry").isEmpty(), response.body.constData());   // the upstream's answer
    QCOMPARE(response.header("x-breakwater-dedup"), "bypass"_ba);
    MockProvider *expected = anthropic ? upstreams.anthropicMock() : upstreams.openaiMock();
    MockProvider *other = anthropic ? upstreams.openaiMock() : upstreams.anthropicMock();
    QCOMPARE(expected->callCount(), 1);
    QCOMPARE(other->callCount(), 0);
    // The credential went with the call, to that upstream only.
    for (const auto &[name, value] : headers) {
        const HeaderList seen = expected->lastRequestHeaders();
        QVERIFY2(seen.contains({name, value}), name.constData());
    }
    QTRY_COMPARE_WITH_TIMEOUT(upstreams.harness.records.size(), 1, kWait);
    QCOMPARE(upstreams.harness.records.first().upstream, upstream);
}

void TestRoutes::credentialOfAnotherApi_isRefusedBeforeAnyUpstream_data()
{
    QTest::addColumn<QByteArray>("method");
    QTest::addColumn<QByteArray>("path");
    QTest::addColumn<HeaderList>("headers");
    QTest::addColumn<int>("status");
    QTest::addColumn<bool>("anthropicShape");
    QTest::addColumn<QString>("says");
    const HeaderList sdkBearer{{"Authorization", "Bearer sk-ant-bearer-1"}, {"anthropic-version", "2023-06-01"}};
    QTest::newRow("x-api-key on chat completions") << "POST"_ba << "/v1/chat/completions"_ba << kAnthropicAuth << 404
                                                   << true << u"Anthropic's API has no route"_s;
    QTest::newRow("anthropic sdk on embeddings") << "POST"_ba << "/v1/embeddings"_ba << sdkBearer << 404 << true
                                                 << u"Anthropic's API has no route"_s;
    QTest::newRow("x-api-key on a stored response") << "GET"_ba << "/v1/responses/resp_1"_ba << kAnthropicAuth << 404
                                                    << true << u"Anthropic's API has no route"_s;
    QTest::newRow("x-api-key deleting a fine-tuned model") << "DELETE"_ba << "/v1/models/ft:x"_ba << kAnthropicAuth
                                                           << 404 << true << u"Anthropic's API has no route"_s;
    QTest::newRow("openai key on messages") << "POST"_ba << "/v1/messages"_ba << kOpenAiAuth << 400 << true
                                            << u"requires the anthropic-version header"_s;
    QTest::newRow("openai key on legacy complete") << "POST"_ba << "/v1/complete"_ba << kOpenAiAuth << 400 << true
                                                   << u"requires the anthropic-version header"_s;
    QTest::newRow("azure key on message batches") << "GET"_ba << "/v1/messages/batches"_ba
                                                  << HeaderList{{"api-key", "azure-1"}} << 400 << true
                                                  << u"requires the anthropic-version header"_s;
    QTest::newRow("two apis' keys") << "GET"_ba << "/v1/models"_ba
                                    << HeaderList{{"x-api-key", "sk-ant-1"}, {"api-key", "azure-1"}} << 400 << false
                                    << u"more than one API (x-api-key, api-key)"_s;
    QTest::newRow("gemini key") << "POST"_ba << "/v1/chat/completions"_ba
                                << HeaderList{{"x-goog-api-key", "AIza-test"}} << 400 << false
                                << u"Gemini API key"_s;
}

void TestRoutes::credentialOfAnotherApi_isRefusedBeforeAnyUpstream()
{
    QFETCH(QByteArray, method);
    QFETCH(QByteArray, path);
    QFETCH(HeaderList, headers);
    QFETCH(int, status);
    QFETCH(bool, anthropicShape);
    QFETCH(QString, says);
    TwoUpstreams upstreams;
    const LoopbackResponse response = fetch(upstreams.harness.port(), method, path, withContentType(headers, "application/json"),
                                            method == "POST" ? chatBody(u"x"_s) : QByteArray());
    QCOMPARE(response.status, status);
    QCOMPARE(response.header("x-should-retry"), "false"_ba);
    const ApiStyle shape = anthropicShape ? ApiStyle::Anthropic : ApiStyle::OpenAI;
    QVERIFY2(!errorTypeOf(response.body, shape).isEmpty(), response.body.constData());
    const QJsonObject error = json(response.body).value(u"error"_s).toObject();
    QVERIFY2(error.value(u"message"_s).toString().contains(says), response.body.constData());
    QCOMPARE(upstreams.openaiMock()->callCount(), 0);
    QCOMPARE(upstreams.anthropicMock()->callCount(), 0);
}

void TestRoutes::noRoute_data()
{
    QTest::addColumn<QByteArray>("method");
    QTest::addColumn<QByteArray>("path");
    QTest::addColumn<int>("status");
    QTest::addColumn<QByteArray>("allow");
    QTest::addColumn<bool>("anthropic");
    QTest::newRow("outside /v1/") << "GET"_ba << "/v2/x"_ba << 404 << ""_ba << false;
    QTest::newRow("post outside /v1/") << "POST"_ba << "/foo"_ba << 404 << ""_ba << false;
    QTest::newRow("/v1 itself") << "GET"_ba << "/v1"_ba << 404 << ""_ba << false;
    QTest::newRow("climbing out of /v1/") << "GET"_ba << "/v1/../healthz"_ba << 404 << ""_ba << false;
    QTest::newRow("climbing out, encoded") << "GET"_ba << "/v1/%2e%2E/metrics"_ba << 404 << ""_ba << false;
    QTest::newRow("get embeddings") << "GET"_ba << "/v1/embeddings"_ba << 405 << "POST"_ba << false;
    QTest::newRow("get responses") << "GET"_ba << "/v1/responses"_ba << 405 << "POST"_ba << false;
    QTest::newRow("get messages") << "GET"_ba << "/v1/messages"_ba << 405 << "POST"_ba << true;
    QTest::newRow("get count_tokens") << "GET"_ba << "/v1/messages/count_tokens"_ba << 405 << "POST"_ba << true;
    QTest::newRow("post healthz") << "POST"_ba << "/healthz"_ba << 405 << "GET"_ba << false;
    // Breakwater's own answers in the shape of the API whose headers the call carries.
    QTest::newRow("outside /v1/, anthropic's headers") << "GET"_ba << "/v2/x"_ba << 404 << ""_ba << true;
    QTest::newRow("/v1 itself, anthropic's headers") << "GET"_ba << "/v1"_ba << 404 << ""_ba << true;
    QTest::newRow("post healthz, anthropic's headers") << "POST"_ba << "/healthz"_ba << 405 << "GET"_ba << true;
    // A trailing or doubled slash is no route: not a pass-through that an upstream may run unpriced.
    QTest::newRow("trailing slash") << "POST"_ba << "/v1/chat/completions/"_ba << 404 << ""_ba << false;
    QTest::newRow("doubled slash") << "POST"_ba << "/v1//chat/completions"_ba << 404 << ""_ba << false;
    QTest::newRow("trailing slash on /v1/") << "GET"_ba << "/v1/"_ba << 404 << ""_ba << false;
    QTest::newRow("trailing slash, messages") << "POST"_ba << "/v1/messages/"_ba << 404 << ""_ba << true;
    QTest::newRow("doubled slash, count_tokens") << "POST"_ba << "/v1/messages//count_tokens"_ba << 404 << ""_ba << true;
}

void TestRoutes::noRoute()
{
    QFETCH(QByteArray, method);
    QFETCH(QByteArray, path);
    QFETCH(int, status);
    QFETCH(QByteArray, allow);
    QFETCH(bool, anthropic);
    ProxyHarness harness;
    const LoopbackResponse response = fetch(harness.port(), method, path, anthropic ? kAnthropicAuth : kOpenAiAuth,
                                            method == "POST" ? "{}"_ba : QByteArray());
    QCOMPARE(response.status, status);
    QCOMPARE(response.header("allow"), allow);
    QCOMPARE(response.header("x-should-retry"), "false"_ba);
    QVERIFY2(!errorTypeOf(response.body, anthropic ? ApiStyle::Anthropic : ApiStyle::OpenAI).isEmpty(),
             response.body.constData());
    QCOMPARE(harness.mock()->callCount(), 0);
}

void TestRoutes::webSocketUpgrade_oneResponse426()
{
    ProxyHarness harness;
    const QByteArray upgrade = "GET /v1/responses HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\n"
                               "Upgrade: websocket\r\nSec-WebSocket-Version: 13\r\n"
                               "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                               "openai-beta: responses_websockets=2026-02-04\r\n"
                               "Authorization: Bearer sk-test-1\r\n\r\n";
    // Everything on the wire until the proxy closes the connection: exactly one response.
    QTcpSocket socket;
    socket.connectToHost(QHostAddress::LocalHost, harness.port());
    QVERIFY(socket.waitForConnected(5000));
    socket.write(upgrade);
    QByteArray wire;
    QTRY_VERIFY_WITH_TIMEOUT((wire += socket.readAll(), socket.state() == QAbstractSocket::UnconnectedState), kWait);
    wire += socket.readAll();
    QVERIFY2(wire.startsWith("HTTP/1.1 426 Upgrade Required\r\n"), wire.constData());
    QCOMPARE(wire.count("HTTP/1.1 "), 1);

    LoopbackClient call(harness.port(), "GET", kResponses);
    call.startRaw(upgrade);
    QTRY_VERIFY_WITH_TIMEOUT(call.isFinished(), kWait);
    const LoopbackResponse &response = call.response();
    QCOMPARE(response.status, 426);
    QCOMPARE(response.header("x-should-retry"), "false"_ba);
    QCOMPARE(response.header("connection").toLower(), "close"_ba);
    QCOMPARE(errorTypeOf(response.body, ApiStyle::OpenAI), u"invalid_request_error"_s);
    QCOMPARE(harness.mock()->callCount(), 0);
}

void TestRoutes::openBreaker_refusesPassThrough()
{
    FakeClock clock;
    ProxyHarness harness(breakerForTrials, &clock);
    QVERIFY(openBreaker(harness));
    const int before = harness.mock()->callCount();
    const LoopbackResponse models = harness.get("/v1/models");
    QCOMPARE(models.status, 503);
    QCOMPARE(json(models.body)[u"error"_s][u"code"_s].toString(), u"breaker_open"_s);
    QCOMPARE(models.header("x-should-retry"), "false"_ba);
    QVERIFY(models.header("retry-after").toInt() >= 1);
    const LoopbackResponse upload = harness.post("/v1/moderations", R"({"input":"x"})");
    QCOMPARE(upload.status, 503);
    QCOMPARE(harness.mock()->callCount(), before);
    QCOMPARE(breakerState(harness), BreakerState::Open);
}

void TestRoutes::halfOpen_passThroughSuccess_doesNotClose_data()
{
    QTest::addColumn<QByteArray>("method");
    QTest::addColumn<QByteArray>("path");
    QTest::addColumn<QByteArray>("body");
    QTest::newRow("GET /v1/models") << "GET"_ba << "/v1/models"_ba << QByteArray();
    QTest::newRow("POST /v1/moderations") << "POST"_ba << "/v1/moderations"_ba << R"({"input":"x"})"_ba;
}

void TestRoutes::halfOpen_passThroughSuccess_doesNotClose()
{
    QFETCH(QByteArray, method);
    QFETCH(QByteArray, path);
    QFETCH(QByteArray, body);
    FakeClock clock;
    ProxyHarness harness(breakerForTrials, &clock);
    QVERIFY(openBreaker(harness));
    clock.advance(61'000);
    // Not the trial: let through in half-open, and its success leaves the breaker half-open.
    for (int i = 0; i < 2; ++i) {
        const LoopbackResponse passed = fetch(harness.port(), method, path, kOpenAiAuth, body);
        QCOMPARE(passed.status, 200);
        QCOMPARE(passed.header("x-breakwater-breaker"), "half-open"_ba);
        QCOMPARE(breakerState(harness), BreakerState::HalfOpen);
    }
    // The trial is still a model call's to take, and its success closes the breaker.
    const LoopbackResponse trial = harness.post("/v1/chat/completions", chatBody(u"the trial"_s));
    QCOMPARE(trial.status, 200);
    QCOMPARE(trial.header("x-breakwater-breaker"), "half-open"_ba);
    QCOMPARE(breakerState(harness), BreakerState::Closed);
}

void TestRoutes::passThroughSuccess_neverResetsFailures()
{
    ProxyHarness harness([](ProxyConfig &c) { c.breakerFailures = 3; c.breakerProbeInterval = 1h; });
    harness.mock()->setMode(MockProvider::Mode::Error503);
    QCOMPARE(harness.post("/v1/chat/completions", chatBody(u"a"_s)).status, 503);
    QCOMPARE(harness.get("/v1/models").status, 503);   // a pass-through failure counts
    QCOMPARE(breakerFailures(harness), 2);
    harness.mock()->setMode(MockProvider::Mode::Ok);
    QCOMPARE(harness.get("/v1/models").status, 200);   // its success says nothing
    QCOMPARE(breakerFailures(harness), 2);
    QCOMPARE(harness.post("/v1/chat/completions", chatBody(u"b"_s)).status, 200);   // a model call's does
    QCOMPARE(breakerFailures(harness), 0);
}

void TestRoutes::trialAnswered4xx_leavesBreakerHalfOpen()
{
    FakeClock clock;
    // The mock answers 404 under this prefix, and its 503 mode still answers 503 there.
    ProxyHarness harness([](ProxyConfig &c) {
        breakerForTrials(c);
        c.openaiUpstream.setPath(u"/no-such-prefix/v1"_s);
    }, &clock);
    QVERIFY(openBreaker(harness));
    clock.advance(61'000);
    for (int i = 0; i < 2; ++i) {
        // Each is the trial in turn: a 4xx leaves the breaker half-open for the next one.
        const LoopbackResponse trial = harness.post("/v1/chat/completions", chatBody(u"trial %1"_s.arg(i)));
        QCOMPARE(trial.status, 404);
        QCOMPARE(trial.header("x-breakwater-breaker"), "half-open"_ba);
        QCOMPARE(breakerState(harness), BreakerState::HalfOpen);
    }
    QCOMPARE(harness.mock()->callCount(u"/no-such-prefix/v1/chat/completions"_s), 4);
}

void TestRoutes::upstreamUrl_joinsBaseAndPath_data()
{
    QTest::addColumn<QUrl>("base");
    QTest::addColumn<bool>("anthropic");
    QTest::addColumn<QByteArray>("path");
    QTest::addColumn<QByteArray>("query");
    QTest::addColumn<QString>("expected");
    QTest::newRow("openai /v1 not repeated") << QUrl(u"https://api.openai.com/v1"_s) << false
        << "/v1/chat/completions"_ba << ""_ba << u"https://api.openai.com/v1/chat/completions"_s;
    QTest::newRow("base with a trailing slash") << QUrl(u"http://127.0.0.1:8081/v1/"_s) << false
        << "/v1/models"_ba << ""_ba << u"http://127.0.0.1:8081/v1/models"_s;
    QTest::newRow("base under a prefix") << QUrl(u"https://gw.example/openai/v1"_s) << false
        << "/v1/embeddings"_ba << ""_ba << u"https://gw.example/openai/v1/embeddings"_s;
    QTest::newRow("openai base without /v1 keeps it") << QUrl(u"http://127.0.0.1:9000"_s) << false
        << "/v1/responses"_ba << ""_ba << u"http://127.0.0.1:9000/v1/responses"_s;
    QTest::newRow("anthropic adds /v1") << QUrl(u"https://api.anthropic.com"_s) << true
        << "/v1/messages"_ba << ""_ba << u"https://api.anthropic.com/v1/messages"_s;
    QTest::newRow("encoding and query kept") << QUrl(u"https://api.openai.com/v1"_s) << false
        << "/v1/models/openai%2Fgpt-4o"_ba << "after=a%20b&limit=2"_ba
        << u"https://api.openai.com/v1/models/openai%2Fgpt-4o?after=a%20b&limit=2"_s;
}

void TestRoutes::upstreamUrl_joinsBaseAndPath()
{
    QFETCH(QUrl, base);
    QFETCH(bool, anthropic);
    QFETCH(QByteArray, path);
    QFETCH(QByteArray, query);
    QFETCH(QString, expected);
    const QUrl url = upstreamUrl(base, anthropic ? ApiStyle::Anthropic : ApiStyle::OpenAI, path, query);
    QCOMPARE(url.toString(QUrl::FullyEncoded), expected);
}

QTEST_GUILESS_MAIN(TestRoutes)
#include "tst_routes.moc"
