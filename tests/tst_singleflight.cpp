// Singleflight and answer reuse through a real proxy: identical requests in flight share one upstream
// call, finished answers are reused for the window, failures are shared but never kept, and a caller
// who hangs up cancels nothing. Real sockets on loopback; overlap is forced with the mock's gate and
// checked by counting (upstream calls, riders, response headers), never by timing.

#include "fakeclock.h"
#include "proxyharness.h"
#include "sharing/flight.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QScopeGuard>
#include <QSemaphore>
#include <QTcpSocket>
#include <QTest>

#include <memory>
#include <vector>

using namespace Qt::StringLiterals;
using namespace std::chrono_literals;

namespace {
constexpr int kWait = 30000;   // ms: generous, for a loaded 2-core machine; never reached when it passes
const QByteArray kChat = "/v1/chat/completions";
const QByteArray kMessages = "/v1/messages";

int countDedup(const QList<LoopbackClient *> &calls, const QByteArray &outcome)
{
    return int(std::count_if(calls.begin(), calls.end(), [&](const LoopbackClient *c) {
        return c->response().header("x-breakwater-dedup") == outcome;
    }));
}

int headerCount(const LoopbackResponse &response, const QByteArray &name)
{
    return int(std::count_if(response.headers.begin(), response.headers.end(), [&](const auto &h) {
        return h.first.compare(name, Qt::CaseInsensitive) == 0;
    }));
}

QString words(int count)
{
    QStringList list;
    for (int i = 0; i < count; ++i)
        list << u"w%1"_s.arg(i);
    return list.join(u' ');
}

HeaderList with(HeaderList headers, const HeaderList &more)
{
    headers += more;
    return headers;
}

void noBreaker(ProxyConfig &config)
{
    config.breakerFailures = 1000;   // these tests are about sharing; the breaker has its own
}
} // namespace

class TestSingleFlight final : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void herdOfTwoHundred_makesOneUpstreamCall();
    void herdArrivingWhileProxyIsBusy_isQueuedNotDropped();
    void anthropicHerd_makesOneUpstreamCall();
    void finishedAnswer_isHitUntilWindowPasses();
    void secondRequest_sharesOnlyWhenTheAnswerWouldBeTheSame_data();
    void secondRequest_sharesOnlyWhenTheAnswerWouldBeTheSame();
    void noCache_bypassesACachedAnswer();
    void fiftyStreamJoiners_getTheWholeStreamFromOneCall();
    void firstCallerHangsUp_othersAnsweredAndAnswerCached();
    void streamStarterHangsUp_joinerGetsAllAndReplayIsAStream();
    void failedFlight_sharedWithEveryWaiterButNeverCached_data();
    void failedFlight_sharedWithEveryWaiterButNeverCached();
    void timedOutFlight_everyWaiterGets504AndNothingIsCached();
};

void TestSingleFlight::initTestCase()
{
    qRegisterMetaType<CallRecord>();
}

void TestSingleFlight::herdOfTwoHundred_makesOneUpstreamCall()
{
    ProxyHarness harness;
    harness.mock()->setHoldAnswers(true);
    QList<LoopbackClient *> calls;
    for (int i = 0; i < 200; ++i)
        calls.append(harness.start(kChat, chatBody(u"the herd"_s)));
    QTRY_COMPARE_WITH_TIMEOUT(harness.ridersWaiting(), 200, kWait);
    // The upstream call may reach the mock only after its riders are all on.
    QTRY_COMPARE_WITH_TIMEOUT(harness.mock()->heldCount(), 1, kWait);
    QCOMPARE(harness.onProxyThread<int>([](ProxyServer *p) { return p->flightsInProgress(); }), 1);
    harness.mock()->releaseHeld();
    QTRY_VERIFY_WITH_TIMEOUT(allFinished(calls), kWait);

    QCOMPARE(harness.mock()->callCount(), 1);
    QCOMPARE(countDedup(calls, "miss"), 1);
    QCOMPARE(countDedup(calls, "joined"), 199);
    const QByteArray body = calls.first()->response().body;
    QVERIFY(body.contains("echo: the herd"));
    QSet<QByteArray> requestIds;
    for (const LoopbackClient *call : calls) {
        QCOMPARE(call->response().status, 200);
        QVERIFY(call->response().complete);
        QCOMPARE(call->response().body, body);
        requestIds.insert(call->response().header("x-request-id"));
    }
    QCOMPARE(requestIds.size(), 200);   // one shared answer, but each caller is its own request
    QTRY_COMPARE(harness.records.size(), 200);
    QCOMPARE(harness.countOutcome(Outcome::Miss), 1);
    QCOMPARE(harness.countOutcome(Outcome::Joined), 199);
    QCOMPARE(harness.onProxyThread<int>([](ProxyServer *p) { return p->flightsInProgress(); }), 0);
}

void TestSingleFlight::herdArrivingWhileProxyIsBusy_isQueuedNotDropped()
{
    // A herd's connections arrive at once, often while the proxy thread is busy. The kernel queues
    // them for accept() only up to the listen backlog (Qt's default: 50); beyond it their SYNs are
    // dropped and each such client waits for a retransmit (1 s, 3 s, 7 s...), which is longer than
    // the whole shared answer should take. So all 200 must be queued while the proxy is stalled.
    ProxyHarness harness;
    QSemaphore stall;
    QMetaObject::invokeMethod(harness.proxy(), [&stall] { stall.acquire(); });
    auto resume = qScopeGuard([&stall] { stall.release(); });   // also when a check below fails
    std::vector<std::unique_ptr<QTcpSocket>> sockets;
    for (int i = 0; i < 200; ++i) {
        sockets.push_back(std::make_unique<QTcpSocket>());
        sockets.back()->connectToHost(QHostAddress::LocalHost, harness.port());
    }
    const auto connected = [&sockets] {
        return int(std::count_if(sockets.begin(), sockets.end(), [](const auto &socket) {
            return socket->state() == QAbstractSocket::ConnectedState;
        }));
    };
    QTRY_COMPARE_WITH_TIMEOUT(connected(), 200, 10000);
    resume.dismiss();
    stall.release();
    // And every one of them is then served.
    std::vector<QByteArray> received(sockets.size());
    for (const auto &socket : sockets)
        socket->write("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    const auto answered = [&] {
        int count = 0;
        for (size_t i = 0; i < sockets.size(); ++i) {
            received[i] += sockets[i]->readAll();
            count += received[i].startsWith("HTTP/1.1 200") && received[i].contains("\"ok\"");
        }
        return count;
    };
    QTRY_COMPARE_WITH_TIMEOUT(answered(), 200, kWait);
}

void TestSingleFlight::anthropicHerd_makesOneUpstreamCall()
{
    ProxyHarness harness;
    harness.mock()->setHoldAnswers(true);
    QList<LoopbackClient *> calls;
    for (int i = 0; i < 20; ++i)
        calls.append(harness.start(kMessages, messagesBody(u"claude herd"_s), kAnthropicAuth));
    QTRY_COMPARE_WITH_TIMEOUT(harness.ridersWaiting(), 20, kWait);
    QTRY_COMPARE_WITH_TIMEOUT(harness.mock()->heldCount(), 1, kWait);
    harness.mock()->releaseHeld();
    QTRY_VERIFY_WITH_TIMEOUT(allFinished(calls), kWait);
    QCOMPARE(harness.mock()->callCount(u"/v1/messages"_s), 1);
    QCOMPARE(countDedup(calls, "miss"), 1);
    QCOMPARE(countDedup(calls, "joined"), 19);
    for (const LoopbackClient *call : calls) {
        QCOMPARE(call->response().status, 200);
        QCOMPARE(call->response().body, calls.first()->response().body);
    }
    QCOMPARE(QJsonDocument::fromJson(calls.first()->response().body).object().value(u"type"_s).toString(),
             u"message"_s);
}

void TestSingleFlight::finishedAnswer_isHitUntilWindowPasses()
{
    FakeClock clock;   // outlives the harness that reads it
    ProxyHarness harness([](ProxyConfig &c) { c.dedupWindow = 5s; }, &clock);
    const LoopbackResponse first = harness.post(kChat, chatBody(u"remember me"_s));
    QCOMPARE(first.status, 200);
    QCOMPARE(first.header("x-breakwater-dedup"), "miss"_ba);

    clock.advance(4999);
    const LoopbackResponse second = harness.post(kChat, chatBody(u"remember me"_s));
    QCOMPARE(second.status, 200);
    QCOMPARE(second.header("x-breakwater-dedup"), "hit"_ba);
    QCOMPARE(second.body, first.body);
    QCOMPARE(headerCount(second, "content-length"), 1);
    QCOMPARE(second.header("content-length").toInt(), second.body.size());
    QVERIFY(second.header("x-request-id") != first.header("x-request-id"));
    QCOMPARE(harness.mock()->callCount(), 1);

    clock.advance(1);   // the window has passed
    const LoopbackResponse third = harness.post(kChat, chatBody(u"remember me"_s));
    QCOMPARE(third.status, 200);
    QCOMPARE(third.header("x-breakwater-dedup"), "miss"_ba);
    QCOMPARE(harness.mock()->callCount(), 2);
    QVERIFY(third.body != first.body);   // a new upstream answer (the mock numbers its answers)
}

void TestSingleFlight::secondRequest_sharesOnlyWhenTheAnswerWouldBeTheSame_data()
{
    QTest::addColumn<QByteArray>("path");
    QTest::addColumn<QByteArray>("firstBody");
    QTest::addColumn<HeaderList>("firstHeaders");
    QTest::addColumn<QByteArray>("secondBody");
    QTest::addColumn<HeaderList>("secondHeaders");
    QTest::addColumn<QByteArray>("secondOutcome");

    const QByteArray chat = chatBody(u"same words"_s);
    const QByteArray reordered = R"(  {"messages": [ {"content": "same words", "role": "user"} ],)"
                                 "\n  \"model\": \"gpt-4o-mini\"}\n";
    QTest::newRow("identical") << kChat << chat << kOpenAiAuth << chat << kOpenAiAuth << "joined"_ba;
    QTest::newRow("json keys reordered, other whitespace")
        << kChat << chat << kOpenAiAuth << reordered << kOpenAiAuth << "joined"_ba;
    QTest::newRow("only X-Stainless headers differ")
        << kChat << chat << with(kOpenAiAuth, {{"X-Stainless-Retry-Count", "0"}, {"X-Stainless-Timeout", "600"}})
        << chat << with(kOpenAiAuth, {{"X-Stainless-Retry-Count", "2"}, {"X-Stainless-Timeout", "30"}})
        << "joined"_ba;
    QTest::newRow("another API key")
        << kChat << chat << kOpenAiAuth << chat
        << HeaderList{{"Authorization", "Bearer sk-test-2"}, {"Content-Type", "application/json"}} << "miss"_ba;
    QTest::newRow("another OpenAI-Organization")
        << kChat << chat << kOpenAiAuth << chat << with(kOpenAiAuth, {{"OpenAI-Organization", "org-2"}})
        << "miss"_ba;
    QTest::newRow("another model") << kChat << chat << kOpenAiAuth << chatBody(u"same words"_s, false, u"gpt-4o"_s)
                                   << kOpenAiAuth << "miss"_ba;
    QTest::newRow("stream instead") << kChat << chat << kOpenAiAuth << chatBody(u"same words"_s, true)
                                    << kOpenAiAuth << "miss"_ba;
    QTest::newRow("Cache-Control: no-cache")
        << kChat << chat << kOpenAiAuth << chat << with(kOpenAiAuth, {{"Cache-Control", "no-cache"}}) << "bypass"_ba;
    QTest::newRow("Cache-Control: no-store")
        << kChat << chat << kOpenAiAuth << chat << with(kOpenAiAuth, {{"Cache-Control", "no-store"}}) << "bypass"_ba;

    const QByteArray messages = messagesBody(u"same words"_s);
    QTest::newRow("anthropic identical")
        << kMessages << messages << kAnthropicAuth << messages << kAnthropicAuth << "joined"_ba;
    QTest::newRow("anthropic: another x-api-key")
        << kMessages << messages << kAnthropicAuth << messages
        << HeaderList{{"x-api-key", "sk-ant-test-2"}, {"anthropic-version", "2023-06-01"},
                      {"Content-Type", "application/json"}}
        << "miss"_ba;
    QTest::newRow("anthropic: another anthropic-beta")
        << kMessages << messages << kAnthropicAuth << messages
        << with(kAnthropicAuth, {{"anthropic-beta", "prompt-caching-2024-07-31"}}) << "miss"_ba;
}

void TestSingleFlight::secondRequest_sharesOnlyWhenTheAnswerWouldBeTheSame()
{
    QFETCH(QByteArray, path);
    QFETCH(QByteArray, firstBody);
    QFETCH(HeaderList, firstHeaders);
    QFETCH(QByteArray, secondBody);
    QFETCH(HeaderList, secondHeaders);
    QFETCH(QByteArray, secondOutcome);
    ProxyHarness harness;
    harness.mock()->setHoldAnswers(true);
    LoopbackClient *first = harness.start(path, firstBody, firstHeaders);
    QTRY_COMPARE_WITH_TIMEOUT(harness.mock()->heldCount(), 1, kWait);
    LoopbackClient *second = harness.start(path, secondBody, secondHeaders);
    // Both wait on an upstream call, whether their own or a shared one.
    QTRY_COMPARE_WITH_TIMEOUT(harness.ridersWaiting(), 2, kWait);
    const int expectedCalls = secondOutcome == "joined" ? 1 : 2;
    QTRY_COMPARE_WITH_TIMEOUT(harness.mock()->heldCount(), expectedCalls, kWait);
    harness.mock()->releaseHeld();
    QTRY_VERIFY_WITH_TIMEOUT(first->isFinished() && second->isFinished(), kWait);
    QCOMPARE(first->response().status, 200);
    QCOMPARE(second->response().status, 200);
    QCOMPARE(first->response().header("x-breakwater-dedup"), "miss"_ba);
    QCOMPARE(second->response().header("x-breakwater-dedup"), secondOutcome);
    QCOMPARE(harness.mock()->callCount(QString::fromLatin1(path)), expectedCalls);
    if (secondOutcome == "joined")
        QCOMPARE(second->response().body, first->response().body);
    else
        QVERIFY(second->response().body != first->response().body);
}

void TestSingleFlight::noCache_bypassesACachedAnswer()
{
    ProxyHarness harness;
    const QByteArray body = chatBody(u"fresh please"_s);
    QCOMPARE(harness.post(kChat, body).header("x-breakwater-dedup"), "miss"_ba);
    QCOMPARE(harness.post(kChat, body).header("x-breakwater-dedup"), "hit"_ba);
    const LoopbackResponse fresh = harness.post(kChat, body, with(kOpenAiAuth, {{"Cache-Control", "no-cache"}}));
    QCOMPARE(fresh.status, 200);
    QCOMPARE(fresh.header("x-breakwater-dedup"), "bypass"_ba);
    QCOMPARE(harness.mock()->callCount(), 2);
    // The bypass neither replaced nor dropped the shared answer.
    QCOMPARE(harness.post(kChat, body).header("x-breakwater-dedup"), "hit"_ba);
    QCOMPARE(harness.mock()->callCount(), 2);
}

void TestSingleFlight::fiftyStreamJoiners_getTheWholeStreamFromOneCall()
{
    ProxyHarness harness;
    harness.mock()->setChunkInterval(30ms);
    const QByteArray body = chatBody(words(60), true);   // about 60 events, one every 30 ms
    LoopbackClient *first = harness.start(kChat, body);
    QList<LoopbackClient *> calls{first};
    QList<LoopbackClient *> lastBatch;
    int eventsAtFirst = 0;
    // Seven batches of seven joiners, each started as another event reaches the first client.
    connect(first, &LoopbackClient::chunkReceived, this, [&] {
        if (++eventsAtFirst > 7)
            return;
        for (int i = 0; i < 7; ++i) {
            LoopbackClient *joiner = harness.start(kChat, body);
            calls.append(joiner);
            if (eventsAtFirst == 7)
                lastBatch.append(joiner);
        }
    });
    QTRY_VERIFY_WITH_TIMEOUT(calls.size() == 50 && allFinished(calls), kWait);

    QCOMPARE(harness.mock()->callCount(), 1);
    QCOMPARE(countDedup(calls, "miss"), 1);
    QCOMPARE(countDedup(calls, "joined"), 49);
    const QByteArray whole = first->response().body;
    QVERIFY(whole.endsWith("data: [DONE]\n\n"));
    QVERIFY(whole.contains("w59"));
    for (const LoopbackClient *call : calls) {
        QCOMPARE(call->response().status, 200);
        QVERIFY(call->response().chunked);
        QVERIFY(call->response().complete);
        QVERIFY(call->response().header("content-type").startsWith("text/event-stream"));
        QCOMPARE(call->response().body, whole);
    }
    // The late joiners got what they had missed as one catch-up piece, then the live ones.
    for (const LoopbackClient *call : lastBatch)
        QVERIFY(call->response().chunks.size() < first->response().chunks.size());
}

void TestSingleFlight::firstCallerHangsUp_othersAnsweredAndAnswerCached()
{
    ProxyHarness harness;
    harness.mock()->setHoldAnswers(true);
    const QByteArray body = chatBody(u"impatient"_s);
    QList<LoopbackClient *> calls;
    for (int i = 0; i < 10; ++i)
        calls.append(harness.start(kChat, body));
    QTRY_COMPARE_WITH_TIMEOUT(harness.ridersWaiting(), 10, kWait);
    QTRY_COMPARE_WITH_TIMEOUT(harness.mock()->heldCount(), 1, kWait);
    calls.first()->hangUp();   // the caller whose request started the upstream call
    // It goes without cancelling the call: the mock still holds it, open.
    QCOMPARE(harness.onProxyThread<int>([](ProxyServer *p) { return p->flightsInProgress(); }), 1);
    QCOMPARE(harness.mock()->inFlight(), 1);
    harness.mock()->releaseHeld();
    const QList<LoopbackClient *> others = calls.mid(1);
    QTRY_VERIFY_WITH_TIMEOUT(allFinished(others), kWait);
    for (const LoopbackClient *call : others) {
        QCOMPARE(call->response().status, 200);
        QCOMPARE(call->response().header("x-breakwater-dedup"), "joined"_ba);
        QCOMPARE(call->response().body, others.first()->response().body);
    }
    // Its retry finds the answer its hang-up did not cancel.
    const LoopbackResponse retry = harness.post(kChat, body);
    QCOMPARE(retry.status, 200);
    QCOMPARE(retry.header("x-breakwater-dedup"), "hit"_ba);
    QCOMPARE(retry.body, others.first()->response().body);
    QCOMPARE(harness.mock()->callCount(), 1);
}

void TestSingleFlight::streamStarterHangsUp_joinerGetsAllAndReplayIsAStream()
{
    ProxyHarness harness;
    harness.mock()->setChunkInterval(30ms);
    const QByteArray body = chatBody(words(30), true);
    LoopbackClient *first = harness.start(kChat, body);
    LoopbackClient *joiner = nullptr;
    int events = 0;
    connect(first, &LoopbackClient::chunkReceived, this, [&] {
        ++events;
        if (events == 2)
            joiner = harness.start(kChat, body);
        if (events == 2 + 3)
            first->hangUp();
    });
    QTRY_VERIFY_WITH_TIMEOUT(joiner && joiner->isFinished(), kWait);
    QVERIFY(first->isFinished());
    QVERIFY(!first->response().complete);
    const LoopbackResponse &joined = joiner->response();
    QCOMPARE(joined.status, 200);
    QCOMPARE(joined.header("x-breakwater-dedup"), "joined"_ba);
    QVERIFY(joined.complete);
    QVERIFY(joined.body.endsWith("data: [DONE]\n\n"));
    QVERIFY(joined.body.contains("w29"));

    const LoopbackResponse replay = harness.post(kChat, body);
    QCOMPARE(replay.status, 200);
    QCOMPARE(replay.header("x-breakwater-dedup"), "hit"_ba);
    QVERIFY(replay.chunked);   // a cached stream is replayed as a stream
    QVERIFY(replay.header("content-type").startsWith("text/event-stream"));
    QCOMPARE(headerCount(replay, "transfer-encoding"), 1);
    QCOMPARE(replay.body, joined.body);
    QCOMPARE(harness.mock()->callCount(), 1);
}

void TestSingleFlight::failedFlight_sharedWithEveryWaiterButNeverCached_data()
{
    QTest::addColumn<QByteArray>("path");
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<HeaderList>("headers");
    QTest::addColumn<MockProvider::Mode>("mode");
    QTest::addColumn<int>("status");
    QTest::addColumn<int>("upstreamCalls");
    QTest::newRow("openai 503") << kChat << chatBody(u"down"_s) << kOpenAiAuth << MockProvider::Mode::Error503
                                << 503 << 1;
    QTest::newRow("anthropic 503") << kMessages << messagesBody(u"down"_s) << kAnthropicAuth
                                   << MockProvider::Mode::Error503 << 503 << 1;
    QTest::newRow("garbage") << kChat << chatBody(u"garbled"_s) << kOpenAiAuth << MockProvider::Mode::Garbage
                             << 502 << 1;
    // A reset after the upstream read the request: sent once, never again (Qt's own resend is
    // refused, see OneShotBody in upstream/upstreampool.cpp), one flight for all five.
    QTest::newRow("reset") << kChat << chatBody(u"reset"_s) << kOpenAiAuth << MockProvider::Mode::Reset << 502 << 1;
    // A cut stream has sent its 200 already: the failure is the error event that ends it.
    QTest::newRow("openai cut stream") << kChat << chatBody(words(12), true) << kOpenAiAuth
                                       << MockProvider::Mode::CutStream << 200 << 1;
    QTest::newRow("anthropic cut stream") << kMessages << messagesBody(words(12), true) << kAnthropicAuth
                                          << MockProvider::Mode::CutStream << 200 << 1;
}

void TestSingleFlight::failedFlight_sharedWithEveryWaiterButNeverCached()
{
    QFETCH(QByteArray, path);
    QFETCH(QByteArray, body);
    QFETCH(HeaderList, headers);
    QFETCH(MockProvider::Mode, mode);
    QFETCH(int, status);
    QFETCH(int, upstreamCalls);
    const bool stream = mode == MockProvider::Mode::CutStream;
    const bool anthropic = path == kMessages;
    ProxyHarness harness(noBreaker);
    harness.mock()->setMode(mode);
    harness.mock()->setHoldAnswers(true);
    QList<LoopbackClient *> calls;
    for (int i = 0; i < 5; ++i)
        calls.append(harness.start(path, body, headers));
    QTRY_COMPARE_WITH_TIMEOUT(harness.ridersWaiting(), 5, kWait);
    QTRY_COMPARE_WITH_TIMEOUT(harness.mock()->heldCount(), 1, kWait);
    harness.mock()->setHoldAnswers(false);   // releases the held call, and holds nothing after it
    QTRY_VERIFY_WITH_TIMEOUT(allFinished(calls), kWait);

    QCOMPARE(harness.mock()->callCount(QString::fromLatin1(path)), upstreamCalls);
    QCOMPARE(countDedup(calls, "miss"), 1);
    QCOMPARE(countDedup(calls, "joined"), 4);
    for (const LoopbackClient *call : calls) {
        const LoopbackResponse &response = call->response();
        QCOMPARE(response.status, status);
        QVERIFY(response.complete);
        QCOMPARE(response.body, calls.first()->response().body);
        if (stream) {
            QVERIFY(!response.body.contains("[DONE]") && !response.body.contains("message_stop"));
            QVERIFY2(response.body.contains(anthropic ? "event: error\ndata: {" : "data: {\"error\""),
                     response.body.right(300).constData());
        } else {
            const QJsonObject error = QJsonDocument::fromJson(response.body).object().value(u"error"_s).toObject();
            QVERIFY2(!error.value(u"message"_s).toString().isEmpty(), response.body.constData());
        }
    }
    QCOMPARE(harness.onProxyThread<int>([](ProxyServer *p) { return p->cache().count(); }), 0);

    // Nothing was kept: the same request, once the provider is well, calls it again.
    harness.mock()->setHoldAnswers(false);
    harness.mock()->setMode(MockProvider::Mode::Ok);
    const LoopbackResponse next = harness.post(path, body, headers);
    QCOMPARE(next.status, 200);
    QCOMPARE(next.header("x-breakwater-dedup"), "miss"_ba);
    QCOMPARE(harness.mock()->callCount(QString::fromLatin1(path)), upstreamCalls + 1);
    if (stream)
        QVERIFY(next.body.contains(anthropic ? "message_stop" : "data: [DONE]"));
}

void TestSingleFlight::timedOutFlight_everyWaiterGets504AndNothingIsCached()
{
    // The timeout runs while the mock hangs, so the gate cannot be used to line the callers up
    // first; what is asserted holds however many of them made it onto the call before it expired.
    ProxyHarness harness([](ProxyConfig &c) {
        noBreaker(c);
        c.upstreamTimeout = 300ms;
    });
    harness.mock()->setMode(MockProvider::Mode::Hang);
    const QByteArray body = chatBody(u"hung"_s);
    QList<LoopbackClient *> calls;
    for (int i = 0; i < 5; ++i)
        calls.append(harness.start(kChat, body));
    QTRY_VERIFY_WITH_TIMEOUT(allFinished(calls), kWait);
    for (const LoopbackClient *call : calls) {
        QCOMPARE(call->response().status, 504);
        QCOMPARE(call->response().header("x-should-retry"), "false"_ba);
    }
    const int misses = countDedup(calls, "miss");
    QCOMPARE(misses + countDedup(calls, "joined"), 5);
    QCOMPARE(harness.mock()->callCount(), misses);   // one upstream call per flight, however many rode it
    QCOMPARE(harness.onProxyThread<int>([](ProxyServer *p) { return p->cache().count(); }), 0);

    harness.mock()->setMode(MockProvider::Mode::Ok);
    const LoopbackResponse next = harness.post(kChat, body);
    QCOMPARE(next.status, 200);
    QCOMPARE(next.header("x-breakwater-dedup"), "miss"_ba);
    QCOMPARE(harness.mock()->callCount(), misses + 1);
}

QTEST_GUILESS_MAIN(TestSingleFlight)
#include "tst_singleflight.moc"
