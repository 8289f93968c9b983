// Issue 20, item 9 and the stream faults found by reading: a flight whose stream has failed takes no
// new riders, an injected error or cut never comes after a stream's final event (nor sits in a cached
// body), and garbage on a pass-through route never reaches the client as a 200.

#include "proxyharness.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace std::chrono_literals;

namespace {

void armFault(const ProxyHarness &harness, const QByteArray &rule)
{
    const LoopbackResponse armed = harness.control("POST", "/breakwater/faults", R"({"rule":")" + rule + R"("})");
    QVERIFY2(armed.status == 200 || armed.status == 201, armed.body.constData());
}

// Starts a streamed call and returns once its client has the provider's error event.
LoopbackClient *startUntilErrorEvent(ProxyHarness &harness, const QByteArray &body, QByteArray *seen)
{
    LoopbackClient *call = harness.start("/v1/chat/completions", body);
    QObject::connect(call, &LoopbackClient::chunkReceived, call, [seen](const QByteArray &piece) { *seen += piece; });
    return call;
}

// The `data:` events of an event-stream body, in order.
QList<QByteArray> dataEvents(const QByteArray &body)
{
    QList<QByteArray> events;
    for (const QByteArray &line : body.split('\n')) {
        if (line.startsWith("data:"))
            events.append(line.mid(5).trimmed());
    }
    return events;
}

} // namespace

class TestFailedFlight final : public QObject
{
    Q_OBJECT
private slots:
    void retryAfterProviderErrorChunk_connectionStillOpen_isANewMiss();
    void retryAfterInjectedErrorEvent_isANewMiss();
    void errorEventAtTheLastEvent_comesBeforeDone_andIsNeverCached_data();
    void errorEventAtTheLastEvent_comesBeforeDone_andIsNeverCached();
    void garbageOnAPassThroughRoute_isNot200();
};

void TestFailedFlight::retryAfterProviderErrorChunk_connectionStillOpen_isANewMiss()
{
    // A provider that sends `data: {"error":...}` and keeps the connection open a while.
    ProxyHarness harness;
    harness.mock()->setMode(MockProvider::Mode::ErrorEventInStream);
    harness.mock()->setStreamEndDelay(5s);
    const QByteArray body = chatBody(u"fails, then lingers"_s, true);
    QByteArray seen;
    LoopbackClient *first = startUntilErrorEvent(harness, body, &seen);
    QTRY_VERIFY(seen.contains("\"error\""));
    QCOMPARE(harness.mock()->callCount(), 1);
    QCOMPARE(harness.mock()->inFlight(), 1);   // the provider has not ended the stream yet

    harness.mock()->setMode(MockProvider::Mode::Ok);
    harness.mock()->setStreamEndDelay(0ms);
    const LoopbackResponse retry = harness.post("/v1/chat/completions", body);
    QCOMPARE(retry.status, 200);
    QCOMPARE(retry.header("x-breakwater-dedup"), "miss"_ba);
    QVERIFY(!retry.body.contains("\"error\""));
    QCOMPARE(harness.mock()->callCount(), 2);
    QTRY_VERIFY(first->isFinished());
}

void TestFailedFlight::retryAfterInjectedErrorEvent_isANewMiss()
{
    ProxyHarness harness;
    harness.mock()->setStreamEndDelay(5s);   // the real call behind the fault is still open
    armFault(harness, "error-event=2:count=1");
    const QByteArray body = chatBody(u"an injected fault"_s, true);
    QByteArray seen;
    LoopbackClient *first = startUntilErrorEvent(harness, body, &seen);
    QTRY_VERIFY(seen.contains("\"error\""));

    harness.mock()->setStreamEndDelay(0ms);
    const LoopbackResponse retry = harness.post("/v1/chat/completions", body);
    QCOMPARE(retry.status, 200);
    QCOMPARE(retry.header("x-breakwater-dedup"), "miss"_ba);
    QVERIFY2(!retry.body.contains("\"error\""), retry.body.constData());
    QCOMPARE(harness.mock()->callCount(), 2);
    QTRY_VERIFY(first->isFinished());
}

void TestFailedFlight::errorEventAtTheLastEvent_comesBeforeDone_andIsNeverCached_data()
{
    QTest::addColumn<QByteArray>("kind");
    QTest::addColumn<int>("pastTheEnd");
    QTest::newRow("error-event at the last event") << "error-event"_ba << 0;
    QTest::newRow("error-event past the last event") << "error-event"_ba << 3;
    QTest::newRow("cut at the last event") << "cut"_ba << 0;
}

void TestFailedFlight::errorEventAtTheLastEvent_comesBeforeDone_andIsNeverCached()
{
    QFETCH(QByteArray, kind);
    QFETCH(int, pastTheEnd);
    ProxyHarness harness;
    const QByteArray body = chatBody(u"how many events"_s, true);
    // The same answer, unshared, to count its events ([DONE] is the last).
    const LoopbackResponse plain = harness.post("/v1/chat/completions", body,
                                                kOpenAiAuth + HeaderList{{"Cache-Control", "no-store"}});
    const QList<QByteArray> events = dataEvents(plain.body);
    QCOMPARE(events.last(), "[DONE]"_ba);

    armFault(harness, kind + "=" + QByteArray::number(events.size() + pastTheEnd) + ":count=1");
    const LoopbackResponse faulted = harness.post("/v1/chat/completions", body);
    QCOMPARE(faulted.status, 200);
    const QList<QByteArray> got = dataEvents(faulted.body);
    const qsizetype done = got.indexOf("[DONE]");
    // Nothing comes after [DONE]; a stream with an error in it has no [DONE] at all.
    QVERIFY2(done < 0 || done == got.size() - 1, faulted.body.constData());
    QVERIFY2(done < 0 || !faulted.body.contains("\"error\""), faulted.body.constData());
    QVERIFY2(done < 0, "the fault did not fire");

    // Whatever the first got, an error never sits in the cache.
    const LoopbackResponse again = harness.post("/v1/chat/completions", body);
    QCOMPARE(again.status, 200);
    QVERIFY2(!again.body.contains("\"error\""), again.body.constData());
    QCOMPARE(dataEvents(again.body).last(), "[DONE]"_ba);
}

void TestFailedFlight::garbageOnAPassThroughRoute_isNot200()
{
    ProxyHarness harness;
    armFault(harness, "garbage:count=1");
    const LoopbackResponse models = harness.get("/v1/models");
    QVERIFY2(models.status != 200, models.body.constData());
    QCOMPARE(models.status, 502);
    QCOMPARE(harness.mock()->callCount(), 0);
}

QTEST_GUILESS_MAIN(TestFailedFlight)
#include "tst_failedflight.moc"
