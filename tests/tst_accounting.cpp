// Issue 5 through the real proxy: every request becomes one call-log row with its outcome, tokens and
// cost; the spend cap refuses before the provider is called; /metrics and /breakwater/stats report it.

#include "accounting/calllog.h"
#include "accounting/spendguard.h"
#include "proxyharness.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace std::chrono_literals;

class TestAccounting final : public QObject
{
    Q_OBJECT
private slots:
    void mixedRun_everyRequestIsOneRowWithItsOutcome();
    void spendCap_refusesWith429BeforeCallingUpstream();
    void spendCap_refusesModelsWithoutAPrice();
    void spendCap_reservesEveryCompletion();
    void streamWithoutUsage_isChargedItsReservation();
    void metrics_countTrafficAndPassPromtool();
};

void TestAccounting::streamWithoutUsage_isChargedItsReservation()
{
    // Without include_usage an OpenAI stream reports no tokens: the cap must not be walked around.
    ProxyHarness harness([](ProxyConfig &c) { c.maxSpendUsd = 1.0; });
    const LoopbackResponse stream = harness.post("/v1/chat/completions", chatBody(u"no usage here"_s, true));
    QCOMPARE(stream.status, 200);
    QVERIFY(!stream.body.contains("\"usage\""));
    QTRY_COMPARE(harness.records.size(), 1);
    const double spent = harness.onProxyThread<double>([](ProxyServer *p) { return p->spendGuard()->spentToday(); });
    QVERIFY2(spent > 0, QByteArray::number(spent).constData());
    // It is logged at what it was charged, so a restart reads the same spend back from the log.
    QCOMPARE(harness.records.first().costUsd, spent);
    // A failed call costs nothing.
    harness.mock()->setMode(MockProvider::Mode::Error503);
    QCOMPARE(harness.post("/v1/chat/completions", chatBody(u"fails"_s)).status, 503);
    QTRY_COMPARE(harness.records.size(), 2);
    QCOMPARE(harness.onProxyThread<double>([](ProxyServer *p) { return p->spendGuard()->spentToday(); }), spent);
}

void TestAccounting::mixedRun_everyRequestIsOneRowWithItsOutcome()
{
    QTemporaryDir dir;
    CallLog log;
    const Result opened = log.open(dir.filePath(u"calls.sqlite"_s));
    QVERIFY2(opened.ok(), qPrintable(opened.error()));
    ProxyHarness harness([](ProxyConfig &c) { c.breakerFailures = 1; c.breakerCooldown = 60s;
                                              c.breakerProbeInterval = 60s; });
    connect(harness.proxy(), &ProxyServer::callCompleted, &log,
            [&log](const CallRecord &record) { log.append(record); }, Qt::DirectConnection);

    // miss, then hit
    QCOMPARE(harness.post("/v1/chat/completions", chatBody(u"counted words"_s)).status, 200);
    QCOMPARE(harness.post("/v1/chat/completions", chatBody(u"counted words"_s)).status, 200);
    // miss + joined
    harness.mock()->setHoldAnswers(true);
    LoopbackClient *first = harness.start("/v1/chat/completions", chatBody(u"shared"_s));
    QTRY_COMPARE(harness.mock()->heldCount(), 1);
    LoopbackClient *second = harness.start("/v1/chat/completions", chatBody(u"shared"_s));
    QTRY_COMPARE(harness.onProxyThread<int>([](ProxyServer *p) { return p->ridersInFlight(); }), 2);
    harness.mock()->setHoldAnswers(false);
    QTRY_VERIFY(first->isFinished() && second->isFinished());
    // a stream with usage
    const LoopbackResponse stream = harness.post("/v1/chat/completions",
        R"({"model":"gpt-4o-mini","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"stream it"}]})");
    QCOMPARE(stream.status, 200);
    // an error of our own
    QCOMPARE(harness.post("/v1/chat/completions", "{oops").status, 400);
    // an upstream failure opens the breaker (threshold 1), then a refusal
    harness.mock()->setMode(MockProvider::Mode::Error503);
    QCOMPARE(harness.post("/v1/chat/completions", chatBody(u"fails"_s)).status, 503);
    const LoopbackResponse refused = harness.post("/v1/chat/completions", chatBody(u"refused"_s));
    QCOMPARE(refused.header("x-breakwater-breaker"), "open"_ba);

    QTRY_COMPARE(harness.records.size(), 8);
    log.flush();
    const QList<CallRecord> rows = log.recent(100);
    QCOMPARE(rows.size(), 8);
    QMap<QByteArray, int> outcomes;
    for (const CallRecord &row : rows)
        ++outcomes[outcomeName(row.outcome)];
    QCOMPARE(outcomes.value("miss"), 4);   // counted words, shared, stream, fails
    QCOMPARE(outcomes.value("hit"), 1);
    QCOMPARE(outcomes.value("joined"), 1);
    QCOMPARE(outcomes.value("error"), 1);
    QCOMPARE(outcomes.value("breaker_refused"), 1);

    for (const CallRecord &row : rows) {
        QVERIFY(!row.requestId.isEmpty());
        QCOMPARE(row.credentialFingerprint.size(), 12);
        if (row.outcome == Outcome::Miss && row.status == 200) {
            QVERIFY2(row.inputTokens > 0 && row.outputTokens > 0, row.requestId.constData());
            QVERIFY2(row.costUsd > 0, row.requestId.constData());   // gpt-4o-mini is in the price table
            QVERIFY(row.upstreamStartAtMs >= row.receivedAtMs);
            QVERIFY(row.endAtMs >= row.firstByteAtMs && row.firstByteAtMs >= row.upstreamStartAtMs);
        }
        if (row.outcome == Outcome::Hit || row.outcome == Outcome::Joined)
            QVERIFY(row.costSavedUsd > 0);
        if (row.stream)
            QVERIFY(row.outputTokens > 0);   // from the include_usage chunk
    }
}

void TestAccounting::spendCap_refusesWith429BeforeCallingUpstream()
{
    // A cap of a hundredth of a cent: one gpt-4o call with 4096 max tokens reserves more than that.
    ProxyHarness harness([](ProxyConfig &c) { c.maxSpendUsd = 0.0001; });
    const LoopbackResponse refused = harness.post("/v1/chat/completions", chatBody(u"too dear"_s, false, u"gpt-4o"_s));
    QCOMPARE(refused.status, 429);
    QCOMPARE(refused.header("x-should-retry"), "false"_ba);
    const QJsonObject error = QJsonDocument::fromJson(refused.body).object().value(u"error"_s).toObject();
    QVERIFY(error.value(u"code"_s).toString().startsWith(u"spend_limit"_s));
    QCOMPARE(harness.mock()->callCount(), 0);
    const LoopbackResponse anthropic = harness.post("/v1/messages", messagesBody(u"too dear"_s), kAnthropicAuth);
    QCOMPARE(anthropic.status, 429);
    QCOMPARE(QJsonDocument::fromJson(anthropic.body)["error"]["type"].toString(), u"rate_limit_error"_s);
    QTRY_COMPARE(harness.countOutcome(Outcome::SpendRefused), 2);

    // A cap that fits a few small calls: 50 concurrent ones never overshoot by more than one reservation.
    ProxyHarness capped([](ProxyConfig &c) { c.maxSpendUsd = 0.01; });
    capped.mock()->setHoldAnswers(true);
    QList<LoopbackClient *> calls;
    const QByteArray body = R"({"model":"gpt-4o-mini","max_tokens":1000,"messages":[{"role":"user","content":"p%1"}]})";
    for (int i = 0; i < 50; ++i)
        calls.append(capped.start("/v1/chat/completions", QByteArray(body).replace("%1", QByteArray::number(i))));
    QTRY_COMPARE(capped.records.size() + capped.mock()->heldCount(), 50);
    const int admitted = capped.mock()->heldCount();
    capped.mock()->setHoldAnswers(false);
    QTRY_VERIFY(allFinished(calls));
    QVERIFY2(admitted > 0 && admitted < 50, QByteArray::number(admitted).constData());
    const double spent = capped.onProxyThread<double>([](ProxyServer *p) { return p->spendGuard()->spentToday(); });
    QVERIFY2(spent <= 0.01, QByteArray::number(spent).constData());
}

namespace {
QByteArray chatRequest(const QString &model, const QString &prompt, const QJsonObject &extra = {})
{
    QJsonObject body = extra;
    body.insert(u"model"_s, model);
    body.insert(u"messages"_s, QJsonArray{QJsonObject{{u"role"_s, u"user"_s}, {u"content"_s, prompt}}});
    return QJsonDocument(body).toJson(QJsonDocument::Compact);
}
} // namespace

void TestAccounting::spendCap_refusesModelsWithoutAPrice()
{
    // Issue 12, seen 1: under --max-spend 0.01, 30 different requests with max_tokens 100000 for a
    // model missing from the price table were all admitted (it reserved nothing), while gpt-4o's
    // were all refused. Now the unknown model is refused with what to do about it, and gpt-5.1 (the
    // model of the report, unknown to the old hand-typed table) has its price.
    const QString unpriced = u"breakwater-test-unpriced-model"_s;
    const QJsonObject long100k{{u"max_tokens"_s, 100000}};
    ProxyHarness capped([](ProxyConfig &c) { c.maxSpendUsd = 0.01; });
    int refusedUnpriced = 0;
    int refusedOverCap = 0;
    LoopbackResponse last;
    for (int i = 0; i < 30; ++i) {
        last = capped.post("/v1/chat/completions", chatRequest(unpriced, u"prompt %1"_s.arg(i), long100k));
        const QJsonObject error = QJsonDocument::fromJson(last.body)[u"error"_s].toObject();
        if (last.status == 403 && error[u"code"_s].toString() == u"model_price_unknown"_s
            && last.header("x-should-retry") == "false")
            ++refusedUnpriced;
        const LoopbackResponse dear = capped.post("/v1/chat/completions",
                                              chatRequest(u"gpt-5.1"_s, u"prompt %1"_s.arg(i), long100k));
        if (dear.status == 429)
            ++refusedOverCap;
    }
    QCOMPARE(refusedUnpriced, 30);
    QCOMPARE(refusedOverCap, 30);
    QCOMPARE(capped.mock()->callCount(), 0);
    const QString message = QJsonDocument::fromJson(last.body)[u"error"_s][u"message"_s].toString();
    QVERIFY2(message.contains(unpriced) && message.contains(u"--prices FILE"_s), qPrintable(message));
    // In Anthropic's shape on its route; a router's name and a fine-tune of an unknown base too.
    const QByteArray messages = QJsonDocument(QJsonObject{
        {u"model"_s, u"claude-unlisted-test"_s}, {u"max_tokens"_s, 100},
        {u"messages"_s, QJsonArray{QJsonObject{{u"role"_s, u"user"_s}, {u"content"_s, u"hi"_s}}}}}).toJson();
    const LoopbackResponse anthropic = capped.post("/v1/messages", messages, kAnthropicAuth);
    QCOMPARE(anthropic.status, 403);
    QCOMPARE(QJsonDocument::fromJson(anthropic.body)[u"error"_s][u"type"_s].toString(), u"permission_error"_s);
    QCOMPARE(capped.post("/v1/chat/completions", chatRequest(u"mistralai/mixtral-8x7b"_s, u"r"_s)).status, 403);
    QCOMPARE(capped.post("/v1/chat/completions", chatRequest(u"ft:acme-base:org::x"_s, u"f"_s)).status, 403);
    QTRY_COMPARE(capped.countOutcome(Outcome::SpendRefused), 63);
    QCOMPARE(capped.mock()->callCount(), 0);

    // The remedy the message names: a price for it in a --prices file.
    QTemporaryDir dir;
    const QString prices = dir.filePath(u"prices.json"_s);
    QFile file(prices);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(R"({"models": {"breakwater-test-unpriced-model": {"input": 0.01, "output": 0.01}}})");
    file.close();
    ProxyHarness priced([&prices](ProxyConfig &c) { c.maxSpendUsd = 0.01; c.priceFile = prices; });
    QCOMPARE(priced.post("/v1/chat/completions", chatRequest(unpriced, u"now priced"_s, long100k)).status, 200);
    QCOMPARE(priced.mock()->callCount(), 1);

    // Without a cap nothing is refused, and the cost stays unknown rather than guessed.
    ProxyHarness uncapped;
    QCOMPARE(uncapped.post("/v1/chat/completions", chatRequest(unpriced, u"no cap"_s, long100k)).status, 200);
    QTRY_COMPARE(uncapped.records.size(), 1);
    QVERIFY(uncapped.records.first().outputTokens > 0);
    QCOMPARE(uncapped.records.first().costUsd, -1.0);
}

void TestAccounting::spendCap_reservesEveryCompletion()
{
    // gpt-4o-mini is 0.60 USD per million output tokens: 10,000 max tokens reserve 0.006 USD (with
    // the prompt's few tokens), under a 0.01 cap; n = 2 asks for two such completions, 0.012.
    // gpt-3.5-turbo-instruct is 2 USD: best_of 6 generates (and bills) six of 1,000 tokens.
    ProxyHarness harness([](ProxyConfig &c) { c.maxSpendUsd = 0.01; });
    const LoopbackResponse two = harness.post("/v1/chat/completions",
        chatRequest(u"gpt-4o-mini"_s, u"twice"_s, {{u"max_tokens"_s, 10000}, {u"n"_s, 2}}));
    QCOMPARE(two.status, 429);
    const QByteArray bestOf = R"({"model":"gpt-3.5-turbo-instruct","prompt":"six","max_tokens":1000,"best_of":6})";
    QCOMPARE(harness.post("/v1/completions", bestOf).status, 429);
    QCOMPARE(harness.mock()->callCount(), 0);
    const LoopbackResponse one = harness.post("/v1/chat/completions",
        chatRequest(u"gpt-4o-mini"_s, u"once"_s, {{u"max_tokens"_s, 10000}, {u"n"_s, 1}}));
    QCOMPARE(one.status, 200);
    QCOMPARE(harness.mock()->callCount(), 1);
}

void TestAccounting::metrics_countTrafficAndPassPromtool()
{
    ProxyHarness harness;
    QCOMPARE(harness.post("/v1/chat/completions", chatBody(u"m"_s)).status, 200);
    QCOMPARE(harness.post("/v1/chat/completions", chatBody(u"m"_s)).status, 200);
    QTRY_COMPARE(harness.records.size(), 2);
    const LoopbackResponse metrics = harness.get("/metrics");
    QCOMPARE(metrics.status, 200);
    QVERIFY(metrics.header("content-type").startsWith("text/plain"));
    QVERIFY(metrics.body.contains(R"(breakwater_requests_total{route="/v1/chat/completions",outcome="miss"} 1)"));
    QVERIFY(metrics.body.contains(R"(breakwater_requests_total{route="/v1/chat/completions",outcome="hit"} 1)"));
    const LoopbackResponse stats = harness.control("GET", "/breakwater/stats");
    QCOMPARE(stats.status, 200);
    QVERIFY(QJsonDocument::fromJson(stats.body).isObject());

    const QString promtool = QStandardPaths::findExecutable(u"promtool"_s);
    if (promtool.isEmpty())
        QSKIP("promtool not installed (packaging/setup.sh installs it)");
    QProcess check;
    check.start(promtool, {u"check"_s, u"metrics"_s});
    check.write(metrics.body);
    check.closeWriteChannel();
    QVERIFY(check.waitForFinished(30000));
    QVERIFY2(check.exitCode() == 0, check.readAllStandardError().constData());
}

QTEST_GUILESS_MAIN(TestAccounting)
#include "tst_accounting.moc"
