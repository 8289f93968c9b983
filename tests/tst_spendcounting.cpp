// Issue 20, items 3, 4 and 5 through the real proxy: today's spend is counted whether or not a cap is
// set (so a cap turned on mid-day caps what is left), a stream that ends early is charged for what it
// consumed, and a call that never reached the upstream costs nothing.

#include "accounting/spendguard.h"
#include "proxyharness.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace std::chrono_literals;

namespace {

double spentToday(const ProxyHarness &harness)
{
    return harness.onProxyThread<double>([](ProxyServer *p) { return p->spendGuard()->spentToday(); });
}

double reservedNow(const ProxyHarness &harness)
{
    return harness.onProxyThread<double>([](ProxyServer *p) { return p->spendGuard()->reservedNow(); });
}

double metricValue(const QByteArray &metrics, const QByteArray &name)
{
    const QRegularExpression line(u"^%1 (\\S+)$"_s.arg(QString::fromLatin1(name)),
                                  QRegularExpression::MultilineOption);
    const QRegularExpressionMatch match = line.match(QString::fromUtf8(metrics));
    return match.hasMatch() ? match.captured(1).toDouble() : -1;
}

bool closeTo(double a, double b)
{
    return qAbs(a - b) <= 1e-9 + 1e-9 * qAbs(b);
}

QByteArray streamWithUsage(const QString &prompt)
{
    QJsonObject body = QJsonDocument::fromJson(chatBody(prompt, true)).object();
    body.insert(u"stream_options"_s, QJsonObject{{u"include_usage"_s, true}});
    return QJsonDocument(body).toJson(QJsonDocument::Compact);
}

void armFault(const ProxyHarness &harness, const QByteArray &rule)
{
    const LoopbackResponse armed = harness.control("POST", "/breakwater/faults", R"({"rule":")" + rule + R"("})");
    QVERIFY2(armed.status == 200 || armed.status == 201, armed.body.constData());
}

} // namespace

class TestSpendCounting final : public QObject
{
    Q_OBJECT
private slots:
    void noCap_spendIsCounted_aCapTurnedOnLaterCapsWhatIsLeft();
    void cutStream_isChargedForWhatItConsumed();
    void errorEventStream_isChargedForWhatItConsumed();
    void callHungUpWhileQueued_costsNothing();
    void cancelledInjectedHang_costsNothing();
};

void TestSpendCounting::noCap_spendIsCounted_aCapTurnedOnLaterCapsWhatIsLeft()
{
    // What the log said at start, then three calls with no cap: all of it is today's spend.
    ProxyHarness harness([](ProxyConfig &c) {
        c.maxSpendUsd = 0;
        c.spentTodayAtStartUsd = 0.25;
    });
    QCOMPARE(spentToday(harness), 0.25);
    double calls = 0;
    for (int i = 0; i < 3; ++i)
        QCOMPARE(harness.post("/v1/chat/completions", chatBody(u"uncapped %1"_s.arg(i))).status, 200);
    QTRY_COMPARE(harness.records.size(), 3);
    for (const CallRecord &record : std::as_const(harness.records)) {
        QVERIFY(record.costUsd > 0);
        calls += record.costUsd;
    }
    const double spent = spentToday(harness);
    QVERIFY2(closeTo(spent, 0.25 + calls), QByteArray::number(spent, 'f', 9).constData());
    QVERIFY(closeTo(metricValue(harness.get("/metrics").body, "breakwater_spend_today_usd"), spent));
    const QJsonObject stats = QJsonDocument::fromJson(harness.control("GET", "/breakwater/stats").body).object();
    QVERIFY(closeTo(stats[u"spend"_s][u"todayUsd"_s].toDouble(), spent));

    // A cap turned on now, below what was spent: the next call is refused before the provider.
    const QByteArray patch = R"({"max-spend":)" + QByteArray::number(0.25 + calls / 2, 'f', 9) + "}";
    QCOMPARE(harness.control("PATCH", "/breakwater/settings", patch).status, 200);
    const LoopbackResponse refused = harness.post("/v1/chat/completions", chatBody(u"over the cap"_s));
    QCOMPARE(refused.status, 429);
    QCOMPARE(QJsonDocument::fromJson(refused.body)["error"]["code"].toString(), u"spend_limit_exceeded"_s);
    QCOMPARE(harness.mock()->callCount(), 3);
}

void TestSpendCounting::cutStream_isChargedForWhatItConsumed()
{
    // Issue 20, seen 4: --max-spend 1, cut=4:count=1, a streamed call with include_usage.
    ProxyHarness harness([](ProxyConfig &c) { c.maxSpendUsd = 1; });
    armFault(harness, "cut=4:count=1");
    const LoopbackResponse cut = harness.post("/v1/chat/completions", streamWithUsage(u"cut me"_s));
    QCOMPARE(cut.status, 200);   // the stream had begun
    QTRY_COMPARE(harness.records.size(), 1);
    const CallRecord &record = harness.records.first();
    QVERIFY2(record.costUsd > 0, QByteArray::number(record.costUsd).constData());
    QVERIFY(closeTo(spentToday(harness), record.costUsd));
    QCOMPARE(reservedNow(harness), 0.0);
}

void TestSpendCounting::errorEventStream_isChargedForWhatItConsumed()
{
    ProxyHarness harness([](ProxyConfig &c) { c.maxSpendUsd = 1; });
    harness.mock()->setMode(MockProvider::Mode::ErrorEventInStream);
    harness.post("/v1/chat/completions", streamWithUsage(u"fails in the stream"_s));
    QTRY_COMPARE(harness.records.size(), 1);
    const CallRecord &record = harness.records.first();
    QVERIFY2(record.costUsd > 0, QByteArray::number(record.costUsd).constData());
    QVERIFY(closeTo(spentToday(harness), record.costUsd));
    QCOMPARE(harness.mock()->callCount(), 1);
}

void TestSpendCounting::callHungUpWhileQueued_costsNothing()
{
    // Issue 20, seen 5: concurrency 1, cap $1; a no-store call with max_tokens 100000 waits for the
    // slot and its caller hangs up.
    ProxyHarness harness([](ProxyConfig &c) {
        c.maxSpendUsd = 1;
        c.concurrency = 1;
        c.abandonGrace = 0ms;
    });
    harness.mock()->setHoldAnswers(true);
    LoopbackClient *first = harness.start("/v1/chat/completions", chatBody(u"holds the slot"_s));
    QTRY_COMPARE(harness.mock()->heldCount(), 1);
    const QByteArray dear = R"({"model":"gpt-4o-mini","max_tokens":100000,"messages":[{"role":"user","content":"queued"}]})";
    LoopbackClient *queued = harness.start("/v1/chat/completions", dear,
                                           kOpenAiAuth + HeaderList{{"Cache-Control", "no-store"}});
    QTRY_COMPARE(harness.ridersWaiting(), 2);
    queued->hangUp();
    QTRY_COMPARE(harness.records.size(), 1);
    QCOMPARE(harness.records.first().upstreamStartAtMs, 0);
    QVERIFY(harness.records.first().costUsd <= 0);
    QCOMPARE(spentToday(harness), 0.0);

    harness.mock()->setHoldAnswers(false);
    QTRY_VERIFY(first->isFinished());
    QTRY_COMPARE(harness.records.size(), 2);
    QVERIFY(closeTo(spentToday(harness), harness.records.last().costUsd));
    QCOMPARE(reservedNow(harness), 0.0);
    QCOMPARE(harness.mock()->callCount(), 1);
}

void TestSpendCounting::cancelledInjectedHang_costsNothing()
{
    // The reservation of a dear call is most of the cap: charged in full, it would refuse the next.
    ProxyHarness harness([](ProxyConfig &c) {
        c.maxSpendUsd = 0.1;
        c.abandonGrace = 0ms;
    });
    armFault(harness, "hang:count=1");
    const QByteArray dear = R"({"model":"gpt-4o-mini","max_tokens":100000,"messages":[{"role":"user","content":"hangs"}]})";
    LoopbackClient *hung = harness.start("/v1/chat/completions", dear);
    QTRY_COMPARE(harness.ridersWaiting(), 1);
    hung->hangUp();
    QTRY_COMPARE(harness.records.size(), 1);
    QVERIFY(harness.records.first().costUsd <= 0);
    QCOMPARE(spentToday(harness), 0.0);
    QCOMPARE(reservedNow(harness), 0.0);
    // No false spend_limit_exceeded afterwards.
    QCOMPARE(harness.post("/v1/chat/completions", dear).status, 200);
    QCOMPARE(harness.post("/v1/chat/completions", dear).status, 200);
    QCOMPARE(harness.mock()->callCount(), 1);   // the second was answered from the cache
}

QTEST_GUILESS_MAIN(TestSpendCounting)
#include "tst_spendcounting.moc"
