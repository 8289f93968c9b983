// Gemini's own API through a real Breakwater to the mock provider (which speaks it): generateContent,
// streamGenerateContent?alt=sse and countTokens answered and shared like the other APIs' calls, the
// key (x-goog-api-key or ?key=) in the dedup key, usage from usageMetadata in the call log, the
// upstream's errors passed on and Breakwater's own in Gemini's shape with x-should-retry: false.
// Real sockets on loopback; upstream calls are counted.

#include "commandline.h"
#include "proxyharness.h"
#include "mockrequest.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace std::chrono_literals;

namespace {
constexpr int kWait = 30000;
const QByteArray kGenerate = "/v1beta/models/mock-gemini:generateContent";
const QByteArray kStream = "/v1beta/models/mock-gemini:streamGenerateContent?alt=sse";
const HeaderList kGeminiAuth{{"x-goog-api-key", "AIza-test-1"}, {"Content-Type", "application/json"}};

QByteArray geminiBody(const QString &prompt)
{
    const QJsonObject body{{u"contents"_s, QJsonArray{QJsonObject{
        {u"role"_s, u"user"_s}, {u"parts"_s, QJsonArray{QJsonObject{{u"text"_s, prompt}}}}}}}};
    return QJsonDocument(body).toJson(QJsonDocument::Compact);
}

void toMock(ProxyConfig &config)
{
    config.geminiUpstream = config.anthropicUpstream;   // the mock, without a path
}

QJsonObject geminiError(const LoopbackResponse &response)
{
    return QJsonDocument::fromJson(response.body).object().value(u"error"_s).toObject();
}
} // namespace

class TestGemini : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void generateContent_isAnswered_withUsageInTheLog();
    void streamWithAltSse_isRelayed_andCompleteAtItsFinishReason();
    void twentyIdenticalCalls_makeOneUpstreamCall_butAnotherKeyIsAnotherCall();
    void countTokensAndModels_areAnswered();
    void upstreamErrors_passOn_inGeminisShape();
    void breakwatersOwnErrors_areInGeminisShape_withoutRetry();
    void cutStream_endsWithAGeminiErrorEvent();
    void geminiModel_isPricedFromTheBuiltInTable_andAdmittedUnderACap();
    void lane_isListedFromTheStart_onlyWhenGeminiWasChosen();
};

// Gemini's lane (/metrics, the snapshot, the dashboard) is there from the start when its upstream
// was chosen (--gemini-upstream, the configuration file, a Gemini route), whatever its URL; left
// at its default (as the demo leaves it) it comes with the first call.
void TestGemini::lane_isListedFromTheStart_onlyWhenGeminiWasChosen()
{
    const auto listed = [](ProxyHarness &harness) {
        return harness.get("/metrics").body.contains(R"(breakwater_breaker_state{upstream="gemini")");
    };
    {
        ProxyHarness notChosen(toMock);   // at the mock's Anthropic base, as the demo sets it
        QVERIFY(!listed(notChosen));
        QCOMPARE(notChosen.post(kGenerate, geminiBody(u"first"_s), kGeminiAuth).status, 200);
        QVERIFY(listed(notChosen));   // from its first call
    }
    ProxyHarness chosen([](ProxyConfig &config) {
        toMock(config);
        config.geminiUpstreamChosen = true;
    });
    QVERIFY(listed(chosen));   // the same URL, chosen: listed before any call

    const Expected<CommandLine> given = parseCommandLine({u"breakwater"_s, u"--gemini-upstream"_s, u"http://127.0.0.1:9/"_s});
    QVERIFY(given.ok());
    QVERIFY(given.value().config.geminiUpstreamChosen);
    const Expected<CommandLine> plain = parseCommandLine({u"breakwater"_s});
    QVERIFY(plain.ok());
    QVERIFY(!plain.value().config.geminiUpstreamChosen);
}

void TestGemini::generateContent_isAnswered_withUsageInTheLog()
{
    ProxyHarness harness(toMock);
    const LoopbackResponse answer = harness.post(kGenerate, geminiBody(u"hello gemini"_s), kGeminiAuth);
    QCOMPARE(answer.status, 200);
    const QJsonObject body = QJsonDocument::fromJson(answer.body).object();
    QCOMPARE(body[u"candidates"_s][0][u"content"_s][u"parts"_s][0][u"text"_s].toString(), u"echo: hello gemini"_s);
    QCOMPARE(answer.header("x-breakwater-dedup"), QByteArray("miss"));
    QCOMPARE(harness.mock()->callCount(u"/v1beta/models/mock-gemini:generateContent"_s), 1);
    QCOMPARE(mockanswers::headerValue(harness.mock()->lastRequestHeaders(), "x-goog-api-key"), QByteArray("AIza-test-1"));
    QTRY_COMPARE(harness.records.size(), 1);
    const CallRecord &record = harness.records[0];
    QCOMPARE(record.upstream, QByteArray("gemini"));
    QCOMPARE(record.model, u"mock-gemini"_s);
    QCOMPARE(record.inputTokens, 2);    // usageMetadata.promptTokenCount
    QCOMPARE(record.outputTokens, 3);   // candidatesTokenCount: "echo: hello gemini"
    QVERIFY2(!record.requestHeaders.contains("AIza-test-1"), record.requestHeaders.constData());   // never recorded
    QVERIFY(record.keyInputs.contains("credential x-goog-api-key: sha256 "));
}

// Gemini's models are in the built-in price table (genai-prices' google list), so its calls cost
// what they cost and a spend cap admits and counts them (an unpriced model is refused under a cap).
void TestGemini::geminiModel_isPricedFromTheBuiltInTable_andAdmittedUnderACap()
{
    ProxyHarness harness([](ProxyConfig &config) {
        toMock(config);
        config.maxSpendUsd = 1.0;
    });
    const QByteArray path = "/v1beta/models/gemini-2.0-flash:generateContent";
    QCOMPARE(harness.post(path, geminiBody(u"what does this cost"_s), kGeminiAuth).status, 200);
    QTRY_COMPARE(harness.records.size(), 1);
    const CallRecord &record = harness.records[0];
    QCOMPARE(record.model, u"gemini-2.0-flash"_s);
    QVERIFY(record.inputTokens > 0 && record.outputTokens > 0);
    // $0.10 per million input tokens, $0.40 per million output tokens.
    QVERIFY2(qFuzzyCompare(record.costUsd, (record.inputTokens * 0.10 + record.outputTokens * 0.40) / 1e6),
             qPrintable(QString::number(record.costUsd)));
}

void TestGemini::streamWithAltSse_isRelayed_andCompleteAtItsFinishReason()
{
    ProxyHarness harness(toMock);
    harness.mock()->setChunkInterval(20ms);   // event by event, not one burst (which the log calls "buffered")
    const LoopbackResponse answer = harness.post(kStream, geminiBody(u"stream this please"_s), kGeminiAuth);
    QCOMPARE(answer.status, 200);
    QVERIFY(answer.header("content-type").startsWith("text/event-stream"));
    QVERIFY2(answer.body.contains(R"("finishReason":"STOP")"), answer.body.constData());
    QCOMPARE(harness.mock()->lastRequestQuery(), QByteArray("alt=sse"));
    QTRY_COMPARE(harness.records.size(), 1);
    QCOMPARE(harness.records[0].stream, true);
    QCOMPARE(harness.records[0].streamVerdict, QByteArray("complete"));
    QCOMPARE(harness.records[0].outputTokens, 4);   // the last chunk's usageMetadata
    // Replayed from the cache as a stream, still complete.
    const LoopbackResponse again = harness.post(kStream, geminiBody(u"stream this please"_s), kGeminiAuth);
    QCOMPARE(again.header("x-breakwater-dedup"), QByteArray("hit"));
    QCOMPARE(again.body, answer.body);
}

void TestGemini::twentyIdenticalCalls_makeOneUpstreamCall_butAnotherKeyIsAnotherCall()
{
    ProxyHarness harness(toMock);
    harness.mock()->setHoldAnswers(true);
    QList<LoopbackClient *> calls;
    for (int i = 0; i < 20; ++i)
        calls.append(harness.start(kGenerate, geminiBody(u"the herd"_s), kGeminiAuth));
    QTRY_COMPARE_WITH_TIMEOUT(harness.ridersWaiting(), 20, kWait);
    QTRY_COMPARE_WITH_TIMEOUT(harness.mock()->heldCount(), 1, kWait);
    harness.mock()->releaseHeld();
    QTRY_VERIFY_WITH_TIMEOUT(std::all_of(calls.begin(), calls.end(), [](auto *call) { return call->isFinished(); }), kWait);
    for (const LoopbackClient *call : calls)
        QCOMPARE(call->response().status, 200);
    QCOMPARE(harness.mock()->callCount(), 1);
    harness.mock()->setHoldAnswers(false);

    // Another key in the header, or a key in ?key=: another account, never the same answer.
    const HeaderList otherKey{{"x-goog-api-key", "AIza-test-2"}, {"Content-Type", "application/json"}};
    QCOMPARE(harness.post(kGenerate, geminiBody(u"the herd"_s), otherKey).header("x-breakwater-dedup"), QByteArray("miss"));
    QCOMPARE(harness.post(kGenerate + "?key=AIza-test-3", geminiBody(u"the herd"_s), {{"Content-Type", "application/json"}})
                 .header("x-breakwater-dedup"), QByteArray("miss"));
    QCOMPARE(harness.mock()->callCount(), 3);
    QCOMPARE(harness.post(kGenerate, geminiBody(u"the herd"_s), kGeminiAuth).header("x-breakwater-dedup"), QByteArray("hit"));
    QCOMPARE(harness.mock()->callCount(), 3);
    QTRY_COMPARE(harness.records.size(), 23);
    QVERIFY(std::none_of(harness.records.begin(), harness.records.end(),
                         [](const CallRecord &r) { return r.target.contains("AIza-test-3"); }));   // ?key= redacted
}

void TestGemini::countTokensAndModels_areAnswered()
{
    ProxyHarness harness(toMock);
    const LoopbackResponse counted = harness.post("/v1beta/models/mock-gemini:countTokens", geminiBody(u"one two three"_s), kGeminiAuth);
    QCOMPARE(counted.status, 200);
    QCOMPARE(QJsonDocument::fromJson(counted.body).object()[u"totalTokens"_s].toInt(), 3);
    const LoopbackResponse models = fetch(harness.port(), "GET", "/v1beta/models", kGeminiAuth);
    QCOMPARE(models.status, 200);
    QCOMPARE(QJsonDocument::fromJson(models.body).object()[u"models"_s][0][u"name"_s].toString(), u"models/mock-gemini"_s);
    QCOMPARE(harness.mock()->callCount(u"/v1beta/models"_s), 1);
}

void TestGemini::upstreamErrors_passOn_inGeminisShape()
{
    ProxyHarness harness(toMock);
    harness.mock()->setMode(MockProvider::Mode::RateLimited429);
    const LoopbackResponse limited = harness.post(kGenerate, geminiBody(u"a"_s), kGeminiAuth);
    QCOMPARE(limited.status, 429);
    QCOMPARE(geminiError(limited)[u"status"_s].toString(), u"RESOURCE_EXHAUSTED"_s);
    QCOMPARE(geminiError(limited)[u"code"_s].toInt(), 429);
    harness.mock()->setMode(MockProvider::Mode::Error503);
    const LoopbackResponse unavailable = harness.post(kGenerate, geminiBody(u"b"_s), kGeminiAuth);
    QCOMPARE(unavailable.status, 503);
    QCOMPARE(geminiError(unavailable)[u"status"_s].toString(), u"UNAVAILABLE"_s);
    QTRY_COMPARE(harness.records.size(), 2);
    QCOMPARE(harness.records[1].upstream, QByteArray("gemini"));
}

void TestGemini::breakwatersOwnErrors_areInGeminisShape_withoutRetry()
{
    ProxyHarness harness(toMock);
    const LoopbackResponse bad = harness.post(kGenerate, "{not json", kGeminiAuth);
    QCOMPARE(bad.status, 400);
    QCOMPARE(bad.header("x-should-retry"), QByteArray("false"));
    QCOMPARE(geminiError(bad)[u"code"_s].toInt(), 400);
    QCOMPARE(geminiError(bad)[u"status"_s].toString(), u"INVALID_ARGUMENT"_s);
    QVERIFY(!geminiError(bad)[u"message"_s].toString().isEmpty());
    // An OpenAI key on Gemini's API never reaches the Gemini upstream.
    const LoopbackResponse foreign = harness.post(kGenerate, geminiBody(u"c"_s), kOpenAiAuth);
    QCOMPARE(foreign.status, 400);
    QCOMPARE(foreign.header("x-should-retry"), QByteArray("false"));
    QCOMPARE(geminiError(foreign)[u"status"_s].toString(), u"INVALID_ARGUMENT"_s);
    // The breaker open by hand: 503 in Gemini's shape.
    QCOMPARE(harness.control("POST", "/breakwater/breaker/gemini/open").status, 200);
    const LoopbackResponse refused = harness.post(kGenerate, geminiBody(u"d"_s), kGeminiAuth);
    QCOMPARE(refused.status, 503);
    QCOMPARE(refused.header("x-should-retry"), QByteArray("false"));
    QCOMPARE(geminiError(refused)[u"status"_s].toString(), u"UNAVAILABLE"_s);
    QCOMPARE(harness.mock()->callCount(), 0);
}

void TestGemini::cutStream_endsWithAGeminiErrorEvent()
{
    ProxyHarness harness(toMock);
    harness.mock()->setMode(MockProvider::Mode::CutStream);
    const LoopbackResponse cut = harness.post(kStream, geminiBody(u"a few words to cut short"_s), kGeminiAuth);
    QCOMPARE(cut.status, 200);
    QVERIFY2(!cut.body.contains("finishReason"), cut.body.constData());
    QVERIFY2(cut.body.contains(R"(data: {"error":{"code":502)"), cut.body.constData());
    QTRY_COMPARE(harness.records.size(), 1);
    QCOMPARE(harness.records[0].errorKind, QByteArray("stream_cut"));
}

QTEST_GUILESS_MAIN(TestGemini)
#include "tst_gemini.moc"
