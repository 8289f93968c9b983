// Several upstreams routed by model (issue 24): the configuration's "upstreams" list and --route
// are checked at start (a wrong key is named), and through a real proxy with two mock providers a
// call goes to the first upstream whose patterns match its model, else to its family's default,
// and each upstream has a breaker of its own. Real sockets on loopback; upstream calls are counted.

#include "cannedserver.h"
#include "commandline.h"
#include "fakeclock.h"
#include "mockrequest.h"
#include "proxyharness.h"
#include "routing/upstreamroutes.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace std::chrono_literals;

namespace {
const QByteArray kChat = "/v1/chat/completions";

Expected<CommandLine> parseWithConfig(const QByteArray &json, const QStringList &extra = {})
{
    QTemporaryDir dir;
    const QString path = dir.filePath(u"config.json"_s);
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        qFatal("cannot write the test's config file");
    file.write(json);
    file.close();
    return parseCommandLine(QStringList{u"breakwater"_s, u"--config"_s, path} + extra);
}
} // namespace

class TestRouting : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void configFile_readsUpstreamsInOrder();
    void badConfig_isRefusedNamingTheKey_data();
    void badConfig_isRefusedNamingTheKey();
    void routeOption_namesTheUpstreamByItsHost();
    void routeOption_refusesAWrongValue();
    void globs_matchWholeModelNames();
    void matchingModel_goesToItsUpstream_otherToTheDefault();
    void eachUpstream_hasItsOwnBreaker();
    void openBreaker_sendsTheCallToItsFallback_withTheModelMapped();
    void refusedBeforeTheFirstByte_goesToTheFallback_data();
    void refusedBeforeTheFirstByte_goesToTheFallback();
    void streamCutAfterItBegan_neverFallsBack();
    void modelsList_isTheUnionOfEveryOpenAiUpstream_aFailingOneNamed();
};

void TestRouting::configFile_readsUpstreamsInOrder()
{
    const Expected<CommandLine> line = parseWithConfig(R"({"upstreams": [
        {"name": "local", "api": "openai", "url": "http://127.0.0.1:8000/v1", "models": ["llama-*", "qwen*"], "fallback": "cloud"},
        {"name": "cloud", "api": "openai", "url": "https://openrouter.ai/api/v1", "models": ["*/*"],
         "models_map": {"llama-3": "meta-llama/llama-3"}}]})");
    QVERIFY2(line.ok(), qPrintable(line.error()));
    const QList<UpstreamRoute> &routes = line->config.upstreamRoutes;
    QCOMPARE(routes.size(), 2);
    QCOMPARE(routes[0].name, u"local"_s);
    QCOMPARE(routes[0].models, (QStringList{u"llama-*"_s, u"qwen*"_s}));
    QCOMPARE(routes[0].fallback, u"cloud"_s);
    QCOMPARE(routes[1].url, QUrl(u"https://openrouter.ai/api/v1"_s));
    QCOMPARE(routes[1].modelsMap.value(u"llama-3"_s), u"meta-llama/llama-3"_s);
}

void TestRouting::badConfig_isRefusedNamingTheKey_data()
{
    QTest::addColumn<QByteArray>("upstreams");
    QTest::addColumn<QString>("key");
    const QByteArray local = R"({"name": "local", "url": "http://127.0.0.1:8000/v1", "models": ["llama-*"])";
    QTest::newRow("unknown api") << QByteArray(R"([{"name": "a", "api": "cohere", "url": "http://h/v1", "models": ["x"]}])")
                                 << u"upstreams[0].api"_s;
    QTest::newRow("bad url") << QByteArray(R"([{"name": "a", "url": "ftp://h/v1", "models": ["x"]}])") << u"upstreams[0].url"_s;
    QTest::newRow("bad pattern") << QByteArray(R"([{"name": "a", "url": "http://h/v1", "models": ["llama-[3"]}])")
                                 << u"upstreams[0].models"_s;
    QTest::newRow("no models") << QByteArray(R"([{"name": "a", "url": "http://h/v1"}])") << u"upstreams[0].models"_s;
    QTest::newRow("unknown key") << QByteArray(R"([{"name": "a", "url": "http://h/v1", "models": ["x"], "weight": 2}])")
                                 << u"upstreams[0].weight"_s;
    QTest::newRow("duplicate name") << QByteArray("[" + local + "}, " + local + "}]") << u"upstreams[1].name"_s;
    QTest::newRow("default's name") << QByteArray(R"([{"name": "openai", "url": "http://h/v1", "models": ["x"]}])")
                                    << u"upstreams[0].name"_s;
    QTest::newRow("fallback to nobody") << QByteArray("[" + local + R"(, "fallback": "cloud"}])") << u"upstreams[0].fallback"_s;
    QTest::newRow("fallback cycle")
        << QByteArray(R"([{"name": "a", "url": "http://h/v1", "models": ["x"], "fallback": "b"},
                          {"name": "b", "url": "http://g/v1", "models": ["y"], "fallback": "a"}])")
        << u"upstreams[1].fallback"_s;   // the link that closes the cycle
    QTest::newRow("fallback of another api")
        << QByteArray(R"([{"name": "a", "url": "http://h/v1", "models": ["x"], "fallback": "b"},
                          {"name": "b", "api": "anthropic", "url": "http://g", "models": ["y"]}])")
        << u"upstreams[0].fallback"_s;
}

void TestRouting::badConfig_isRefusedNamingTheKey()
{
    QFETCH(QByteArray, upstreams);
    QFETCH(QString, key);
    const Expected<CommandLine> line = parseWithConfig(R"({"upstreams": )" + upstreams + "}");
    QVERIFY(!line.ok());
    QVERIFY2(line.error().contains(key), qPrintable(line.error()));
}

void TestRouting::routeOption_namesTheUpstreamByItsHost()
{
    const Expected<CommandLine> line = parseCommandLine({u"breakwater"_s, u"--route"_s, u"llama-*,qwen*=http://127.0.0.1:8000/v1"_s,
                                                         u"--route"_s, u"deepseek-*=https://api.deepseek.com/v1"_s});
    QVERIFY2(line.ok(), qPrintable(line.error()));
    const QList<UpstreamRoute> &routes = line->config.upstreamRoutes;
    QCOMPARE(routes.size(), 2);
    QCOMPARE(routes[0].name, u"127.0.0.1:8000"_s);
    QCOMPARE(routes[0].models, (QStringList{u"llama-*"_s, u"qwen*"_s}));
    QCOMPARE(routes[0].api, ApiStyle::OpenAI);
    QCOMPARE(routes[1].name, u"api.deepseek.com"_s);
}

void TestRouting::routeOption_refusesAWrongValue()
{
    for (const QString &value : {u"llama-*"_s, u"=http://h/v1"_s, u"llama-*=not a url"_s, u"llama-[=http://h/v1"_s}) {
        const Expected<CommandLine> line = parseCommandLine({u"breakwater"_s, u"--route"_s, value});
        QVERIFY2(!line.ok(), qPrintable(value));
        QVERIFY2(line.error().startsWith(u"--route"_s), qPrintable(line.error()));
    }
    // Two --route options for one host are two upstreams with one name.
    const Expected<CommandLine> twice = parseCommandLine({u"breakwater"_s, u"--route"_s, u"a*=http://h:1/v1"_s,
                                                          u"--route"_s, u"b*=http://h:1/v1"_s});
    QVERIFY(!twice.ok());
    QVERIFY2(twice.error().contains(u"'h:1'"_s), qPrintable(twice.error()));
}

void TestRouting::globs_matchWholeModelNames()
{
    const UpstreamRoutes routes({{u"local"_s, ApiStyle::OpenAI, QUrl(u"http://h/v1"_s), {u"llama-*"_s, u"qwen?"_s}, {}, {}},
                                 {u"claude"_s, ApiStyle::Anthropic, QUrl(u"http://g"_s), {u"*"_s}, {}, {}}});
    QCOMPARE(routes.routeFor(ApiStyle::OpenAI, u"llama-3.1-8b"_s), std::optional<qsizetype>(0));
    QCOMPARE(routes.routeFor(ApiStyle::OpenAI, u"qwen3"_s), std::optional<qsizetype>(0));
    QCOMPARE(routes.routeFor(ApiStyle::OpenAI, u"qwen3-coder"_s), std::nullopt);   // ? is one character
    QCOMPARE(routes.routeFor(ApiStyle::OpenAI, u"my-llama-3"_s), std::nullopt);    // the whole name
    QCOMPARE(routes.routeFor(ApiStyle::OpenAI, u"gpt-4o"_s), std::nullopt);
    QCOMPARE(routes.routeFor(ApiStyle::Anthropic, u"llama-3"_s), std::optional<qsizetype>(1));   // per API
}

void TestRouting::matchingModel_goesToItsUpstream_otherToTheDefault()
{
    ServiceThread<MockProvider> local(u"local"_s, [] { return new MockProvider; });
    ProxyHarness harness([&local](ProxyConfig &config) {
        config.upstreamRoutes = {{u"local"_s, ApiStyle::OpenAI, local.service()->openaiBaseUrl(), {u"llama-*"_s}, {}, {}}};
    });
    const LoopbackResponse routed = harness.post(kChat, chatBody(u"hi"_s, false, u"llama-3"_s));
    QCOMPARE(routed.status, 200);
    QCOMPARE(local.service()->callCount(), 1);
    QCOMPARE(harness.mock()->callCount(), 0);

    const LoopbackResponse defaulted = harness.post(kChat, chatBody(u"hi"_s, false, u"gpt-4o-mini"_s));
    QCOMPARE(defaulted.status, 200);
    QCOMPARE(local.service()->callCount(), 1);
    QCOMPARE(harness.mock()->callCount(), 1);

    // The same prompt for a model of each upstream: two answers, never one shared between them.
    QCOMPARE(harness.post(kChat, chatBody(u"hi"_s, false, u"llama-3"_s)).header("x-breakwater-dedup"), QByteArray("hit"));
    QTRY_COMPARE(harness.records.size(), 3);
    QCOMPARE(harness.records[0].upstream, QByteArray("local"));
    QCOMPARE(harness.records[1].upstream, QByteArray("openai"));

    const LoopbackResponse metrics = harness.get("/metrics");
    QVERIFY2(metrics.body.contains(R"(breakwater_upstream_calls_total{upstream="local",status="200"} 1)"), metrics.body.constData());
    QVERIFY(metrics.body.contains(R"(upstream="local")"));
}

void TestRouting::eachUpstream_hasItsOwnBreaker()
{
    FakeClock clock;
    ServiceThread<MockProvider> local(u"local"_s, [] { return new MockProvider; });
    ProxyHarness harness([&local](ProxyConfig &config) {
        config.breakerFailures = 2;
        config.breakerCooldown = 60s;
        config.upstreamRoutes = {{u"local"_s, ApiStyle::OpenAI, local.service()->openaiBaseUrl(), {u"llama-*"_s}, {}, {}}};
    }, &clock);
    local.service()->setMode(MockProvider::Mode::Error503);
    for (int i = 0; i < 2; ++i)
        QCOMPARE(harness.post(kChat, chatBody(u"p%1"_s.arg(i), false, u"llama-3"_s)).status, 503);
    QCOMPARE(local.service()->callCount(u"/v1/chat/completions"_s), 2);

    const LoopbackResponse refused = harness.post(kChat, chatBody(u"p9"_s, false, u"llama-3"_s));
    QCOMPARE(refused.status, 503);
    QCOMPARE(refused.header("x-breakwater-breaker"), QByteArray("open"));
    QCOMPARE(refused.header("x-should-retry"), QByteArray("false"));
    QCOMPARE(local.service()->callCount(u"/v1/chat/completions"_s), 2);   // refused without calling it

    // The default OpenAI upstream is another upstream: its breaker stays closed and it answers.
    const LoopbackResponse other = harness.post(kChat, chatBody(u"p9"_s, false, u"gpt-4o-mini"_s));
    QCOMPARE(other.status, 200);
    QCOMPARE(other.header("x-breakwater-breaker"), QByteArray("closed"));
    const ProxySnapshot snapshot = harness.onProxyThread<ProxySnapshot>([](ProxyServer *proxy) { return proxy->snapshot(); });
    QCOMPARE(snapshot.upstreams.size(), 3);
    QCOMPARE(snapshot.upstreams[2].name, QByteArray("local"));
    QCOMPARE(snapshot.upstreams[2].breakerState, BreakerState::Open);
    QCOMPARE(snapshot.upstreams[0].breakerState, BreakerState::Closed);
}

void TestRouting::openBreaker_sendsTheCallToItsFallback_withTheModelMapped()
{
    FakeClock clock;
    ServiceThread<MockProvider> local(u"local"_s, [] { return new MockProvider; });
    ProxyHarness harness([&local](ProxyConfig &config) {
        config.upstreamRoutes = {
            {u"local"_s, ApiStyle::OpenAI, local.service()->openaiBaseUrl(), {u"llama-*"_s}, u"cloud"_s, {}},
            {u"cloud"_s, ApiStyle::OpenAI, config.openaiUpstream, {u"meta/*"_s}, {}, {{u"llama-3"_s, u"meta/llama-3"_s}}},
        };
    }, &clock);
    // Closed: no fallback.
    const LoopbackResponse direct = harness.post(kChat, chatBody(u"one"_s, false, u"llama-3"_s));
    QCOMPARE(direct.status, 200);
    QCOMPARE(direct.header("x-breakwater-fallback"), QByteArray());
    QCOMPARE(local.service()->callCount(), 1);

    QCOMPARE(harness.control("POST", "/breakwater/breaker/local/open").status, 200);
    const LoopbackResponse fell = harness.post(kChat, chatBody(u"two"_s, false, u"llama-3"_s));
    QCOMPARE(fell.status, 200);
    QCOMPARE(fell.header("x-breakwater-fallback"), QByteArray("cloud"));
    QCOMPARE(local.service()->callCount(), 1);           // the open breaker's upstream is not called
    QCOMPARE(harness.mock()->callCount(u"/v1/chat/completions"_s), 1);   // the fallback is, once
    QTRY_COMPARE(harness.records.size(), 2);
    QCOMPARE(harness.records[1].upstream, QByteArray("cloud"));
    QCOMPARE(harness.records[1].fallbackFrom, QByteArray("local"));
    QCOMPARE(harness.records[1].model, u"meta/llama-3"_s);   // models_map
    QVERIFY(harness.records[1].keyInputs.contains("fallback: from local"));
    const LoopbackResponse metrics = harness.get("/metrics");
    QVERIFY2(metrics.body.contains(R"(breakwater_fallbacks_total{from="local",to="cloud"} 1)"), metrics.body.constData());

    // The fallback's answer is shared like any other: the same prompt again is a hit, still marked.
    const LoopbackResponse again = harness.post(kChat, chatBody(u"two"_s, false, u"llama-3"_s));
    QCOMPARE(again.header("x-breakwater-dedup"), QByteArray("hit"));
    QCOMPARE(again.header("x-breakwater-fallback"), QByteArray("cloud"));
    QCOMPARE(harness.mock()->callCount(u"/v1/chat/completions"_s), 1);
}

void TestRouting::refusedBeforeTheFirstByte_goesToTheFallback_data()
{
    QTest::addColumn<MockProvider::Mode>("mode");
    QTest::addColumn<bool>("stream");
    QTest::addColumn<QByteArray>("why");
    QTest::newRow("529") << MockProvider::Mode::Overloaded529 << false << "it answered HTTP 529"_ba;
    QTest::newRow("529 streamed") << MockProvider::Mode::Overloaded529 << true << "it answered HTTP 529"_ba;
    QTest::newRow("429") << MockProvider::Mode::RateLimited429 << false << "it answered HTTP 429"_ba;
    QTest::newRow("503") << MockProvider::Mode::Error503 << false << "it answered HTTP 503"_ba;
    QTest::newRow("reset") << MockProvider::Mode::Reset << false << "it was unreachable"_ba;
}

void TestRouting::refusedBeforeTheFirstByte_goesToTheFallback()
{
    QFETCH(MockProvider::Mode, mode);
    QFETCH(bool, stream);
    QFETCH(QByteArray, why);
    ServiceThread<MockProvider> local(u"local"_s, [] { return new MockProvider; });
    ProxyHarness harness([&local](ProxyConfig &config) {
        config.upstreamRoutes = {
            {u"local"_s, ApiStyle::OpenAI, local.service()->openaiBaseUrl(), {u"llama-*"_s}, u"cloud"_s, {}},
            {u"cloud"_s, ApiStyle::OpenAI, config.openaiUpstream, {u"meta/*"_s}, {}, {{u"llama-3"_s, u"meta/llama-3"_s}}},
        };
    });
    local.service()->setMode(mode);
    const LoopbackResponse answer = harness.post(kChat, chatBody(u"one"_s, stream, u"llama-3"_s));
    QCOMPARE(answer.status, 200);
    QCOMPARE(answer.header("x-breakwater-fallback"), QByteArray("cloud"));
    QVERIFY2(answer.body.contains(stream ? "[DONE]" : "echo: one"), answer.body.constData());
    if (mode == MockProvider::Mode::Reset)
        QVERIFY(local.service()->callCount(u"/v1/chat/completions"_s) >= 1);   // a reset may be retried by the pool
    else
        QCOMPARE(local.service()->callCount(u"/v1/chat/completions"_s), 1);   // asked once, never again
    QCOMPARE(harness.mock()->callCount(u"/v1/chat/completions"_s), 1);   // the fallback answered, once
    // Two rows for one request, by the same x-request-id: the refused attempt, then the answer.
    QTRY_COMPARE(harness.records.size(), 2);
    const CallRecord &refused = harness.records[0];
    const CallRecord &answered = harness.records[1];
    QCOMPARE(refused.requestId, answered.requestId);
    QCOMPARE(refused.outcome, Outcome::FellBack);
    QCOMPARE(refused.upstream, QByteArray("local"));
    QCOMPARE(refused.fallbackTo, QByteArray("cloud"));
    QCOMPARE(refused.fallbackFrom, QByteArray());
    QCOMPARE(refused.model, u"llama-3"_s);   // as it was asked of local, before the models_map
    if (mode == MockProvider::Mode::Reset) {
        QCOMPARE(refused.errorKind, QByteArray("upstream_unreachable"));
    } else {
        QCOMPARE(refused.status, why.right(3).toInt());
        QVERIFY(!refused.errorBody.isEmpty());   // the provider's own refusal, for the details
    }
    QVERIFY(refused.upstreamStartAtMs > 0 && refused.endAtMs >= refused.upstreamStartAtMs);
    QVERIFY2(refused.keyInputs.contains(QByteArray("fallback: to cloud (" + why + " before any byte)")),
             refused.keyInputs.constData());
    QCOMPARE(answered.upstream, QByteArray("cloud"));
    QCOMPARE(answered.fallbackFrom, QByteArray("local"));
    QCOMPARE(answered.fallbackTo, QByteArray());
    QCOMPARE(answered.status, 200);
    QCOMPARE(answered.model, u"meta/llama-3"_s);
    QVERIFY2(answered.keyInputs.contains(QByteArray("fallback: from local (" + why + " before any byte)")),
             answered.keyInputs.constData());
    const LoopbackResponse metrics = harness.get("/metrics");
    QVERIFY2(metrics.body.contains(R"(breakwater_fallbacks_total{from="local",to="cloud"} 1)"), metrics.body.constData());
    // One client request, counted once; both upstream calls counted, each under its upstream.
    QVERIFY2(metrics.body.contains(R"(breakwater_requests_total{route="/v1/chat/completions",outcome="miss"} 1)"),
             metrics.body.constData());
    QVERIFY2(!metrics.body.contains("fell_back"), metrics.body.constData());
    if (mode != MockProvider::Mode::Reset) {
        QVERIFY2(metrics.body.contains(QByteArray(R"(breakwater_upstream_calls_total{upstream="local",status=")" + why.right(3)
                                                  + R"("} 1)")), metrics.body.constData());
    }
}

void TestRouting::streamCutAfterItBegan_neverFallsBack()
{
    ServiceThread<MockProvider> local(u"local"_s, [] { return new MockProvider; });
    ProxyHarness harness([&local](ProxyConfig &config) {
        config.upstreamRoutes = {
            {u"local"_s, ApiStyle::OpenAI, local.service()->openaiBaseUrl(), {u"llama-*"_s}, u"cloud"_s, {}},
            {u"cloud"_s, ApiStyle::OpenAI, config.openaiUpstream, {u"meta/*"_s}, {}, {}},
        };
    });
    local.service()->setMode(MockProvider::Mode::CutStream);
    const LoopbackResponse cut = harness.post(kChat, chatBody(u"a long enough prompt to cut"_s, true, u"llama-3"_s));
    QCOMPARE(cut.status, 200);   // the stream had begun: its status was sent
    QCOMPARE(cut.header("x-breakwater-fallback"), QByteArray());
    QVERIFY2(cut.body.contains("data: {\"error\""), cut.body.constData());   // the error event, never a clean end
    QVERIFY(!cut.body.contains("[DONE]"));
    QCOMPARE(local.service()->callCount(u"/v1/chat/completions"_s), 1);
    QCOMPARE(harness.mock()->callCount(u"/v1/chat/completions"_s), 0);   // the fallback was never called
    QTRY_COMPARE(harness.records.size(), 1);
    QCOMPARE(harness.records[0].fallbackFrom, QByteArray());
    QCOMPARE(harness.records[0].upstream, QByteArray("local"));
}

void TestRouting::modelsList_isTheUnionOfEveryOpenAiUpstream_aFailingOneNamed()
{
    // The default upstream (the mock: mock-gpt, mock-gpt-mini, mock-claude), a local server with a
    // list of its own that repeats one of those, and one that fails.
    CannedServer local(CannedServer::answer(200, "Content-Type: application/json\r\n",
        R"({"object":"list","data":[{"id":"llama-3","object":"model","created":1,"owned_by":"me"},)"
        R"({"id":"mock-gpt","object":"model","created":1,"owned_by":"me"}]})"));
    QVERIFY(local.listenOn());
    ServiceThread<MockProvider> broken(u"broken"_s, [] { return new MockProvider; });
    broken.service()->setMode(MockProvider::Mode::Error503);
    ProxyHarness harness([&](ProxyConfig &config) {
        config.upstreamRoutes = {
            {u"local"_s, ApiStyle::OpenAI, QUrl(u"http://127.0.0.1:%1/v1"_s.arg(local.serverPort())), {u"llama-*"_s}, {}, {}},
            {u"broken"_s, ApiStyle::OpenAI, broken.service()->openaiBaseUrl(), {u"qwen*"_s}, {}, {}},
        };
    });
    const LoopbackResponse listed = harness.get("/v1/models");   // with kOpenAiAuth
    QCOMPARE(listed.status, 200);
    const QJsonObject list = QJsonDocument::fromJson(listed.body).object();
    QCOMPARE(list.value(u"object"_s).toString(), u"list"_s);
    QStringList ids;
    QStringList owners;
    for (const QJsonValue &model : list.value(u"data"_s).toArray()) {
        ids.append(model[u"id"_s].toString());
        owners.append(model[u"upstream"_s].toString());
    }
    QCOMPARE(ids, (QStringList{u"mock-gpt"_s, u"mock-gpt-mini"_s, u"mock-claude"_s, u"llama-3"_s}));   // mock-gpt once
    QCOMPARE(owners, (QStringList{u"openai"_s, u"openai"_s, u"openai"_s, u"local"_s}));
    QCOMPARE(listed.header("x-breakwater-models-missing"), QByteArray("broken"));
    QCOMPARE(local.requests(), 1);
    QCOMPARE(broken.service()->callCount(u"/v1/models"_s), 1);
    QCOMPARE(harness.mock()->callCount(u"/v1/models"_s), 1);
    // The key went to every OpenAI-API upstream, as it goes to them for chat calls.
    QCOMPARE(mockanswers::headerValue(broken.service()->lastRequestHeaders(), "authorization"), QByteArray("Bearer sk-test-1"));
}

QTEST_GUILESS_MAIN(TestRouting)
#include "tst_routing.moc"
