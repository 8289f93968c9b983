// Graceful shutdown: ProxyServer::drain stops accepting, lets calls in flight finish, ends the rest
// after the grace time, and publishes a record for every one of them (issue 12, "SIGTERM loses
// calls the provider bills").
#include "proxyharness.h"

#include <QSignalSpy>
#include <QTcpSocket>
#include <QTest>

using namespace std::chrono_literals;
using namespace Qt::StringLiterals;

class DrainTest final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void drain_letsAStreamFinishAndPublishesItsRecord();
    void drain_endsHungCallsAfterGraceWithAnErrorEvent_andRecordsThem();
    void drain_callWhoseCallerHungUp_stillRecorded();
    void drain_refusesNewConnectionsAndNewRequests();
    void drain_withNothingInFlight_isDrainedAtOnce();
};

namespace {
// Starts a drain on the proxy thread; `drained` is spied from the test thread.
void startDrain(ProxyHarness &harness, std::chrono::milliseconds grace)
{
    harness.onProxyThread<bool>([grace](ProxyServer *proxy) {
        proxy->drain(grace);
        return true;
    });
}
} // namespace

void DrainTest::drain_letsAStreamFinishAndPublishesItsRecord()
{
    ProxyHarness harness;
    harness.mock()->setChunkInterval(30ms);   // about 20 events: still streaming when the drain starts
    QSignalSpy drained(harness.proxy(), &ProxyServer::drained);
    LoopbackClient *call = harness.start("/v1/chat/completions", chatBody(u"drain me"_qs, true));
    QTRY_COMPARE(harness.mock()->inFlight(), 1);
    startDrain(harness, 30s);
    QTRY_VERIFY_WITH_TIMEOUT(call->isFinished(), 20000);
    QVERIFY(call->response().complete);
    QVERIFY(call->response().body.contains("data: [DONE]"));
    QTRY_COMPARE(drained.count(), 1);
    QTRY_COMPARE(harness.records.size(), 1);
    QCOMPARE(harness.records.first().status, 200);
    QVERIFY(harness.records.first().errorKind.isEmpty());
}

void DrainTest::drain_endsHungCallsAfterGraceWithAnErrorEvent_andRecordsThem()
{
    ProxyHarness harness;
    harness.mock()->setMode(MockProvider::Mode::SlowStream);
    harness.mock()->setSlowGap(20s);   // the stream begins, then waits far longer than the grace
    QSignalSpy drained(harness.proxy(), &ProxyServer::drained);
    LoopbackClient *stream = harness.start("/v1/chat/completions", chatBody(u"slow"_qs, true));
    QTRY_VERIFY(!stream->response().chunks.isEmpty());
    harness.mock()->setMode(MockProvider::Mode::Hang);
    LoopbackClient *hung = harness.start("/v1/chat/completions", chatBody(u"hung"_s));
    QTRY_COMPARE(harness.mock()->inFlight(), 2);

    startDrain(harness, 0ms);
    QTRY_VERIFY_WITH_TIMEOUT(stream->isFinished() && hung->isFinished(), 10000);
    // The stream ends with an error event the SDK raises, never a clean end it would take for success.
    QVERIFY(stream->response().body.contains("shutting_down"));
    QVERIFY(!stream->response().body.contains("[DONE]"));
    QCOMPARE(hung->response().status, 503);
    QCOMPARE(hung->response().header("x-should-retry"), QByteArray("false"));
    QTRY_COMPARE(drained.count(), 1);
    QTRY_COMPARE(harness.records.size(), 2);
    for (const CallRecord &record : std::as_const(harness.records))
        QCOMPARE(record.errorKind, QByteArray("shutting_down"));
}

void DrainTest::drain_callWhoseCallerHungUp_stillRecorded()
{
    ProxyHarness harness;
    harness.mock()->setLatency(300ms);
    QSignalSpy drained(harness.proxy(), &ProxyServer::drained);
    LoopbackClient *call = harness.start("/v1/chat/completions", chatBody(u"gone"_s));
    QTRY_COMPARE(harness.mock()->inFlight(), 1);
    call->hangUp();
    startDrain(harness, 30s);
    QTRY_COMPARE(drained.count(), 1);
    QTRY_COMPARE(harness.records.size(), 1);
    QCOMPARE(harness.records.first().status, 200);   // the provider answered (and billed) it
    QCOMPARE(harness.mock()->callCount(), 1);
}

void DrainTest::drain_refusesNewConnectionsAndNewRequests()
{
    ProxyHarness harness;
    harness.mock()->setMode(MockProvider::Mode::Hang);
    // A keep-alive connection opened before the drain: its next request is refused, not served.
    QTcpSocket open;
    open.connectToHost(QHostAddress::LocalHost, harness.port());
    QVERIFY(open.waitForConnected(5000));
    LoopbackClient *hung = harness.start("/v1/chat/completions", chatBody(u"hung"_s));
    QTRY_COMPARE(harness.mock()->inFlight(), 1);
    startDrain(harness, 30s);

    open.write(LoopbackClient::requestBytes(harness.port(), "POST", "/v1/chat/completions", kOpenAiAuth,
                                            chatBody(u"late"_s)));
    QTRY_VERIFY(open.bytesAvailable() > 0 || open.state() != QAbstractSocket::ConnectedState);
    open.waitForReadyRead(2000);
    const QByteArray answer = open.readAll();
    QVERIFY2(answer.startsWith("HTTP/1.1 503"), answer.constData());
    QVERIFY(answer.contains("shutting_down"));
    QCOMPARE(harness.mock()->callCount(), 1);

    QTcpSocket fresh;
    fresh.connectToHost(QHostAddress::LocalHost, harness.port());
    QVERIFY(!fresh.waitForConnected(2000));   // nobody listens any more
    QVERIFY(!hung->isFinished());
}

void DrainTest::drain_withNothingInFlight_isDrainedAtOnce()
{
    ProxyHarness harness;
    QSignalSpy drained(harness.proxy(), &ProxyServer::drained);
    startDrain(harness, 30s);
    QTRY_COMPARE(drained.count(), 1);
    QVERIFY(harness.records.isEmpty());
}

QTEST_GUILESS_MAIN(DrainTest)
#include "tst_drain.moc"
