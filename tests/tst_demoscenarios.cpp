// The demo's scenarios against a real Breakwater and its mock provider (ProxyHarness): a herd
// reaches the provider once; a time-scaled outage opens the breaker after 5 failures, refuses
// inside the proxy, and closes again when the provider is back; a burst and stop() end cleanly.

#include "demoscenarios.h"
#include "mockprovider.h"
#include "proxyharness.h"
#include "servicethread.h"

#include <QSignalSpy>
#include <QTest>

#include <algorithm>
#include <functional>

using namespace Qt::StringLiterals;
using namespace std::chrono_literals;

Q_DECLARE_METATYPE(DemoScenarios::Result)

namespace {

DemoScenarios::Result waitForResult(QSignalSpy &spy, int timeoutMs)
{
    if (spy.isEmpty() && !spy.wait(timeoutMs))
        return {};
    return spy.takeFirst().at(0).value<DemoScenarios::Result>();
}

} // namespace

class TestDemoScenarios final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { qRegisterMetaType<DemoScenarios::Result>(); }
    void herd_reachesTheProviderOnce();
    void outage_breakerOpensAfterFiveFailuresAndRecovers();
    void fallback_everyPromptAnswered_theBackupStandsInWhileThePrimaryIsOverloaded();
    void burst_differentPromptsEachCallUpstream();
    void stop_endsAtOnceAndRestoresTheMock();
};

void TestDemoScenarios::herd_reachesTheProviderOnce()
{
    ProxyHarness harness;
    DemoScenarios demo(harness.port(), harness.mock());
    DemoScenarios::Options options;
    options.herdSize = 50;
    options.restoreLatency = 0ms;
    demo.setOptions(options);
    QSignalSpy finished(&demo, &DemoScenarios::finished);
    QVERIFY(demo.start(DemoScenarios::Scenario::Herd));
    QVERIFY(!demo.start(DemoScenarios::Scenario::Burst));   // one at a time
    const DemoScenarios::Result result = waitForResult(finished, 20000);
    QCOMPARE(result.sent, 50);
    QCOMPARE(result.answered, 50);
    QCOMPARE(result.failed, 0);
    QCOMPARE(result.statuses.value(200), 50);
    QCOMPARE(result.upstreamCalls, 1);
    QCOMPARE(harness.mock()->callCount(u"/v1/chat/completions"_s), 1);
    QCOMPARE(result.dedup.value("miss"), 1);
    QCOMPARE(result.dedup.value("joined"), 49);
    // At least the provider's 1.5 s; no upper bound, which would only say how fast the machine is
    // (that they all waited for one call, not one each, is upstreamCalls above).
    QVERIFY(result.slowestMs >= 1400);
    QVERIFY(!demo.isRunning());
    QTRY_COMPARE(harness.records.size(), 50);
}

void TestDemoScenarios::outage_breakerOpensAfterFiveFailuresAndRecovers()
{
    ProxyHarness harness;
    DemoScenarios demo(harness.port(), harness.mock());
    DemoScenarios::Options options;
    // 1/20 of the field test: a prompt every 100 ms for 7.5 s; 503s from 0.75 s to 3.75 s.
    options.timeScale = 0.05;
    options.restoreLatency = 0ms;
    demo.setOptions(options);
    QSignalSpy finished(&demo, &DemoScenarios::finished);
    QVERIFY(demo.start(DemoScenarios::Scenario::Outage));
    const DemoScenarios::Result result = waitForResult(finished, 30000);
    QCOMPARE(result.sent, 75);
    QCOMPARE(result.answered, 75);
    QCOMPARE(result.failed, 0);

    // During the 3 s outage (30 prompts) the provider saw 5 failing calls, then the breaker refused.
    QTRY_COMPARE(harness.records.size(), 75);
    int upstream503 = 0;
    int refused = 0;
    for (const CallRecord &record : harness.records) {
        if (record.outcome == Outcome::Miss && record.status == 503)
            ++upstream503;
        if (record.outcome == Outcome::BreakerRefused)
            ++refused;
    }
    QCOMPARE(upstream503, 5);
    QVERIFY2(refused >= 20, qPrintable(QString::number(refused)));
    QCOMPARE(result.upstreamCalls, 75 - refused);
    // 8 healthy prompts before, and those after the probe saw the provider back (1 s probe interval).
    QVERIFY2(result.statuses.value(200) >= 30, qPrintable(result.summary()));
    QCOMPARE(result.statuses.value(200) + result.statuses.value(503), 75);

    // The breaker opened once and closed again (via half-open) once the provider was back.
    QVERIFY(harness.transitions.size() >= 3);
    QCOMPARE(harness.transitions.first().to, BreakerState::Open);
    QCOMPARE(harness.transitions.last().to, BreakerState::Closed);
    QCOMPARE(harness.mock()->currentMode(), MockProvider::Mode::Ok);
}

// The Fallback scenario against a proxy whose upstream for the demo's model (the mock) names a
// second mock as its fallback: while the mock answers 529, every prompt is still answered 200, by
// the backup, marked so; the refused calls have rows of their own; afterwards the mock answers again.
void TestDemoScenarios::fallback_everyPromptAnswered_theBackupStandsInWhileThePrimaryIsOverloaded()
{
    ServiceThread<MockProvider> backup(u"backup"_s, [] { return new MockProvider; });
    ProxyHarness harness([&backup](ProxyConfig &config) {
        config.upstreamRoutes = {
            {QString::fromLatin1(DemoScenarios::kFallbackPrimary), ApiStyle::OpenAI, config.openaiUpstream, {u"*"_s},
             QString::fromLatin1(DemoScenarios::kFallbackBackup), {}},
            {QString::fromLatin1(DemoScenarios::kFallbackBackup), ApiStyle::OpenAI, backup.service()->openaiBaseUrl(),
             {u"backup-only/*"_s}, {}, {}},
        };
    });
    DemoScenarios demo(harness.port(), harness.mock());
    DemoScenarios::Options options;
    options.timeScale = 0.05;   // a prompt every 100 ms for 7.5 s; 529s from 0.75 s to 3.75 s
    options.restoreLatency = 0ms;
    demo.setOptions(options);
    QSignalSpy finished(&demo, &DemoScenarios::finished);
    QVERIFY(demo.start(DemoScenarios::Scenario::Fallback));
    const DemoScenarios::Result result = waitForResult(finished, 30000);
    QCOMPARE(result.sent, 75);
    QCOMPARE(result.answered, 75);
    QCOMPARE(result.statuses.value(200), 75);   // nobody saw the 529
    QVERIFY2(result.fellBack >= 20, qPrintable(result.summary()));   // about 30 prompts in the 3 s
    QCOMPARE(backup.service()->callCount(u"/v1/chat/completions"_s), result.fellBack);

    // The primary's refusals before its breaker opened, each a fell_back row naming the backup.
    // Every prompt's own row (a row is published as its answer goes out, so the last ones may
    // follow the client's answer), and the refusal rows, which come before their prompt's answer.
    QTRY_COMPARE(std::count_if(harness.records.cbegin(), harness.records.cend(),
                               [](const CallRecord &record) { return record.isClientRequest(); }), 75);
    int refusedRows = 0;
    int answeredByBackup = 0;
    for (const CallRecord &record : harness.records) {
        if (record.outcome == Outcome::FellBack) {
            ++refusedRows;
            QCOMPARE(record.status, 529);
            QCOMPARE(record.fallbackTo, QByteArray(DemoScenarios::kFallbackBackup));
        }
        answeredByBackup += record.fallbackFrom == DemoScenarios::kFallbackPrimary;
    }
    QVERIFY2(refusedRows >= 5, qPrintable(QString::number(refusedRows)));
    QCOMPARE(answeredByBackup, result.fellBack);
    QCOMPARE(harness.records.size(), 75 + refusedRows);
    QCOMPARE(harness.mock()->currentMode(), MockProvider::Mode::Ok);
}

void TestDemoScenarios::burst_differentPromptsEachCallUpstream()
{
    ProxyHarness harness([](ProxyConfig &config) { config.concurrency = 4; });
    DemoScenarios demo(harness.port(), harness.mock());
    DemoScenarios::Options options;
    options.burstSize = 8;
    options.timeScale = 0.2;   // a 300 ms provider
    options.restoreLatency = 0ms;
    demo.setOptions(options);
    QSignalSpy finished(&demo, &DemoScenarios::finished);
    QVERIFY(demo.start(DemoScenarios::Scenario::Burst));
    const DemoScenarios::Result result = waitForResult(finished, 20000);
    QCOMPARE(result.answered, 8);
    QCOMPARE(result.upstreamCalls, 8);
    QCOMPARE(result.dedup.value("miss"), 8);
    QCOMPARE(harness.mock()->maxInFlight(), 4);   // the pool's limit: the second four queued
    QTRY_COMPARE(harness.records.size(), 8);
    // The second four waited in the queue for a 300 ms call each: their waits are at least that
    // (less the timer's slack). How little the first four waited says only how fast the machine
    // is, so it is not asserted.
    QList<qint64> waits;
    for (const CallRecord &record : harness.records)
        waits.append(record.queueWaitMs);
    std::sort(waits.begin(), waits.end(), std::greater<>());
    for (int i = 0; i < 4; ++i)
        QVERIFY2(waits[i] >= 200, qPrintable(QString::number(waits[i])));
}

void TestDemoScenarios::stop_endsAtOnceAndRestoresTheMock()
{
    ProxyHarness harness([](ProxyConfig &config) { config.upstreamTimeout = 30s; });
    DemoScenarios demo(harness.port(), harness.mock());
    DemoScenarios::Options options;
    options.timeScale = 0.01;        // hang from 150 ms on
    options.restoreLatency = 0ms;
    demo.setOptions(options);
    QSignalSpy finished(&demo, &DemoScenarios::finished);
    QVERIFY(demo.start(DemoScenarios::Scenario::Hang));
    QTRY_VERIFY(harness.mock()->currentMode() == MockProvider::Mode::Hang);
    QTest::qWait(100);   // let a prompt or two hang
    demo.stop();
    QCOMPARE(finished.size(), 1);
    const DemoScenarios::Result result = finished.takeFirst().at(0).value<DemoScenarios::Result>();
    QVERIFY(result.stopped);
    QVERIFY(result.failed >= 1);   // the hung ones were hung up on
    QCOMPARE(result.answered + result.failed, result.sent);
    QVERIFY(!demo.isRunning());
    QCOMPARE(harness.mock()->currentMode(), MockProvider::Mode::Ok);
}

QTEST_GUILESS_MAIN(TestDemoScenarios)
#include "tst_demoscenarios.moc"
