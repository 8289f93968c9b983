// Sharing on its own, the way Go tests singleflight's Do without a server: no proxy, no network.
// Riders write to fake client sockets that keep what they are sent; the upstream is a fake whose
// calls the test ends by hand (status, body pieces, then the end). Checked by counting: calls
// started, flights in the table, cache entries, bytes each rider received, and in what order the
// table, the cache and the riders saw the end of a call.

#include "fakeclock.h"
#include "sharing/answercache.h"
#include "sharing/sharing.h"
#include "upstream/circuitbreaker.h"
#include "upstream/upstreamcall.h"

#include <QPointer>
#include <QTcpSocket>
#include <QTest>

#include <memory>
#include <vector>

using namespace Qt::StringLiterals;
using namespace std::chrono_literals;

namespace {
const QByteArray kKey = "key-of-one-request";
const QByteArray kAnswer = R"({"id":"chatcmpl-1","object":"chat.completion"})";
const HeaderList kJson{{"Content-Type", "application/json"}};

// A connected client as a ResponseWriter sees it, keeping every byte written to it.
class FakeClientSocket final : public QTcpSocket
{
    Q_DISABLE_COPY_MOVE(FakeClientSocket)
public:
    FakeClientSocket()
    {
        setSocketState(ConnectedState);
        setOpenMode(QIODevice::ReadWrite);
    }
    ~FakeClientSocket() override { setSocketState(UnconnectedState); }

    void hangUp() { setSocketState(UnconnectedState); }
    int status() const { return received.startsWith("HTTP/1.1 ") ? received.mid(9, 3).toInt() : 0; }
    QByteArray header(const QByteArray &name) const
    {
        const qsizetype headEnd = received.indexOf("\r\n\r\n");
        for (const QByteArray &line : received.left(headEnd).split('\n')) {
            const qsizetype colon = line.indexOf(':');
            if (colon > 0 && line.left(colon).trimmed().compare(name, Qt::CaseInsensitive) == 0)
                return line.mid(colon + 1).trimmed();
        }
        return {};
    }

    // The body of a chunked answer, its framing taken off.
    QByteArray streamedBody() const
    {
        QByteArray body;
        for (qsizetype at = received.indexOf("\r\n\r\n") + 4; at > 3 && at < received.size();) {
            const qsizetype sizeEnd = received.indexOf("\r\n", at);
            bool ok = false;
            const qsizetype size = received.mid(at, sizeEnd - at).toLongLong(&ok, 16);
            if (sizeEnd < 0 || !ok || size == 0)
                break;
            body += received.mid(sizeEnd + 2, size);
            at = sizeEnd + 2 + size + 2;
        }
        return body;
    }

    QByteArray received;

protected:
    qint64 writeData(const char *data, qint64 size) override
    {
        received.append(data, size);
        return size;
    }
};

// The upstream side: every call `start` makes, and what the test learns when a call lands.
struct FakeUpstream
{
    int starts = 0;
    bool refuse = false;
    std::vector<QPointer<UpstreamCall>> calls;
    std::function<void(Flight &)> onLanded;

    Sharing::Takeoff start(Flight &flight, Sharing::Rider &rider)
    {
        ++starts;
        if (refuse) {
            rider.record.outcome = Outcome::Error;
            rider.writer.writeError(flight.style(), ApiError::queueFull(1));
            return {};
        }
        auto *call = new UpstreamCall(&flight);
        calls.emplace_back(call);
        return {call, [this](Flight &landed) {
                    if (onLanded)
                        onLanded(landed);
                }, {}};
    }
    UpstreamCall *last() const { return calls.back(); }
};

void answer(UpstreamCall *call, int status, const HeaderList &headers, const QByteArray &body)
{
    Q_EMIT call->started(0);
    Q_EMIT call->headersReceived(status, headers);
    if (!body.isEmpty())
        Q_EMIT call->bodyReceived(body);
    Q_EMIT call->finished(UpstreamResult{UpstreamFailure::None, {}, status});
}

void fail(UpstreamCall *call, UpstreamFailure failure)
{
    Q_EMIT call->started(0);
    Q_EMIT call->finished(UpstreamResult{failure, u"fake"_s, 0});
}

// One way an upstream call can end, for the table-driven tests.
enum class End {
    Ok, ServerError, RateLimited, ClientError, Timeout, Unreachable, CutStream, Garbage, Shutdown,
    // 200 streams that go wrong inside: the provider's own error or failure event, then the end.
    ErrorChunk, RateLimitChunk, ResponsesFailed, ResponsesIncomplete, ResponsesErrorEvent
};

const HeaderList kEventStream{{"Content-Type", "text/event-stream"}};
const QByteArray kFirstChunk = "data: {\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}\n\n";
const QByteArray kResponsesStart =
    "event: response.created\ndata: {\"type\":\"response.created\",\"sequence_number\":0}\n\n";

// The body of an End that fails inside a 200 stream (empty for the others).
QByteArray inStreamFailure(End how)
{
    switch (how) {
    case End::ErrorChunk:
        return kFirstChunk + "data: {\"error\":{\"message\":\"overloaded\",\"type\":\"server_error\",\"param\":null,"
                             "\"code\":null}}\n\n";
    case End::RateLimitChunk:
        return kFirstChunk + "data: {\"error\":{\"message\":\"slow down\",\"type\":\"requests\",\"param\":null,"
                             "\"code\":\"rate_limit_exceeded\"}}\n\n";
    case End::ResponsesFailed:
        return kResponsesStart + "event: response.failed\ndata: {\"type\":\"response.failed\",\"sequence_number\":1,"
                                 "\"response\":{\"status\":\"failed\",\"error\":{\"code\":\"server_error\","
                                 "\"message\":\"overloaded\"}}}\n\n";
    case End::ResponsesIncomplete:
        return kResponsesStart + "event: response.incomplete\ndata: {\"type\":\"response.incomplete\",\"sequence_number\":1,"
                                 "\"response\":{\"status\":\"incomplete\",\"incomplete_details\":"
                                 "{\"reason\":\"max_output_tokens\"}}}\n\n";
    case End::ResponsesErrorEvent:
        return kResponsesStart + "event: error\ndata: {\"type\":\"error\",\"sequence_number\":1,"
                                 "\"code\":\"server_is_overloaded\",\"message\":\"busy\",\"param\":null}\n\n";
    default:
        return {};
    }
}

void end(UpstreamCall *call, End how)
{
    switch (how) {
    case End::Ok: answer(call, 200, kJson, kAnswer); break;
    case End::ServerError: answer(call, 503, kJson, R"({"error":{"message":"overloaded"}})"); break;
    case End::RateLimited: answer(call, 429, kJson, R"({"error":{"message":"slow down"}})"); break;
    case End::ClientError: answer(call, 400, kJson, R"({"error":{"message":"bad"}})"); break;
    case End::Timeout: fail(call, UpstreamFailure::Timeout); break;
    case End::Unreachable: fail(call, UpstreamFailure::Unreachable); break;
    case End::CutStream:
        answer(call, 200, {{"Content-Type", "text/event-stream"}}, "data: {\"choices\":[]}\n\n");
        break;
    case End::Garbage: answer(call, 200, kJson, "<html>not json</html>"); break;
    case End::Shutdown: fail(call, UpstreamFailure::Shutdown); break;
    case End::ErrorChunk:
    case End::RateLimitChunk:
    case End::ResponsesFailed:
    case End::ResponsesIncomplete:
    case End::ResponsesErrorEvent: answer(call, 200, kEventStream, inStreamFailure(how)); break;
    }
}

// A proxy-less Sharing with its cache, a breaker and a fake upstream, collecting every record.
struct Bench
{
    FakeClock clock;
    AnswerCache cache{clock, 60'000, 1 << 20};
    CircuitBreaker breaker{u"openai"_s, clock, 1, 30s};
    Sharing sharing{cache, clock, 60, false};
    FakeUpstream upstream;
    std::vector<std::unique_ptr<FakeClientSocket>> clients;
    QList<CallRecord> records;

    Bench()
    {
        QObject::connect(&sharing, &Sharing::riderFinished, &sharing,
                         [this](const CallRecord &record) { records.append(record); });
    }

    // A new client sending the request with `key`; an empty key is a request never shared.
    FakeClientSocket *ask(const QByteArray &key = kKey)
    {
        clients.push_back(std::make_unique<FakeClientSocket>());
        FakeClientSocket *client = clients.back().get();
        CallRecord record;
        record.requestId = "bw-" + QByteArray::number(clients.size());
        record.breakerState = "closed";
        if (key.isEmpty())
            record.outcome = Outcome::Bypass;
        sharing.share(key, ApiStyle::OpenAI, breaker, {ResponseWriter(client), record, {}},
                      [this](Flight &flight, Sharing::Rider &rider) { return upstream.start(flight, rider); });
        return client;
    }

    const CallRecord *recordOf(const FakeClientSocket *client) const
    {
        const QByteArray id = "bw-" + QByteArray::number(indexOf(client) + 1);
        for (const CallRecord &record : records) {
            if (record.requestId == id)
                return &record;
        }
        return nullptr;
    }
    qsizetype indexOf(const FakeClientSocket *client) const
    {
        for (size_t i = 0; i < clients.size(); ++i) {
            if (clients[i].get() == client)
                return qsizetype(i);
        }
        return -1;
    }
};
} // namespace

class TestSharing final : public QObject
{
    Q_OBJECT
private slots:
    void identicalRequests_rideOneCall_andLaterOnesHitTheCache();
    void endedFlight_leavesTheTableBeforeItsRidersAreAnswered_data();
    void endedFlight_leavesTheTableBeforeItsRidersAreAnswered();
    void landing_isHeardBeforeAnyRiderIsAnswered();
    void failedFlight_reachesEveryRiderButIsNeverCached_data();
    void failedFlight_reachesEveryRiderButIsNeverCached();
    void riderWhoHangsUp_onlyLeaves();
    void refusedStart_leavesNothingInTheTable();
    void unsharedRequests_neverJoinNorFillTheCache();
    void sharedAnswers_areGivenWhileTheBreakerIsOpen();
    void breakerVerdict_oneForEveryEnd_data();
    void breakerVerdict_oneForEveryEnd();
    void failureInsideAStream_everyRiderGetsTheProvidersErrorAlone_data();
    void failureInsideAStream_everyRiderGetsTheProvidersErrorAlone();
};

void TestSharing::identicalRequests_rideOneCall_andLaterOnesHitTheCache()
{
    Bench bench;
    FakeClientSocket *first = bench.ask();
    QCOMPARE(bench.upstream.starts, 1);
    QCOMPARE(bench.sharing.size(), 1);
    FakeClientSocket *second = bench.ask();
    FakeClientSocket *third = bench.ask();
    QCOMPARE(bench.upstream.starts, 1);
    QCOMPARE(bench.sharing.riders(), 3);
    QVERIFY(first->received.isEmpty());

    end(bench.upstream.last(), End::Ok);
    for (FakeClientSocket *client : {first, second, third}) {
        QCOMPARE(client->status(), 200);
        QVERIFY(client->received.endsWith(kAnswer));
    }
    QCOMPARE(first->header("x-breakwater-dedup"), "miss");
    QCOMPARE(second->header("x-breakwater-dedup"), "joined");
    QCOMPARE(bench.sharing.size(), 0);
    QCOMPARE(bench.cache.count(), 1);

    FakeClientSocket *late = bench.ask();
    QCOMPARE(bench.upstream.starts, 1);
    QCOMPARE(late->status(), 200);
    QCOMPARE(late->header("x-breakwater-dedup"), "hit");
    QVERIFY(late->received.endsWith(kAnswer));
    QCOMPARE(bench.records.size(), 4);
    QCOMPARE(bench.recordOf(late)->outcome, Outcome::Hit);
    QCOMPARE(bench.recordOf(third)->outcome, Outcome::Joined);

    // The flight is deleted once its riders were answered.
    QTRY_VERIFY(bench.sharing.findChildren<Flight *>().isEmpty());
    QVERIFY(bench.upstream.last() == nullptr);
}

void TestSharing::endedFlight_leavesTheTableBeforeItsRidersAreAnswered_data()
{
    QTest::addColumn<End>("how");
    QTest::addColumn<Outcome>("askedAgainDuringRelease");
    QTest::newRow("answer: the cache has it") << End::Ok << Outcome::Hit;
    QTest::newRow("error: a new call") << End::ServerError << Outcome::Miss;
    QTest::newRow("timeout: a new call") << End::Timeout << Outcome::Miss;
}

void TestSharing::endedFlight_leavesTheTableBeforeItsRidersAreAnswered()
{
    QFETCH(End, how);
    QFETCH(Outcome, askedAgainDuringRelease);
    Bench bench;
    bench.ask();
    bench.ask();
    UpstreamCall *call = bench.upstream.last();

    // A request arriving while the riders are being answered (here: as the first one is) must find
    // the finished answer in the cache, or make a new call: never ride the call that has ended.
    int tableDuringRelease = -1;
    bool asked = false;
    FakeClientSocket *again = nullptr;
    QObject::connect(&bench.sharing, &Sharing::riderFinished, &bench.sharing, [&] {
        if (std::exchange(asked, true))
            return;   // only once, and not again for the hit answered inside this very call
        tableDuringRelease = bench.sharing.size();
        again = bench.ask();
    });
    end(call, how);

    QVERIFY(again);
    QCOMPARE(tableDuringRelease, 0);
    const CallRecord *record = bench.recordOf(again);
    if (askedAgainDuringRelease == Outcome::Hit) {
        QVERIFY(record);
        QCOMPARE(record->outcome, Outcome::Hit);
        QCOMPARE(bench.upstream.starts, 1);
    } else {
        QVERIFY(!record);   // riding a new call, not yet answered
        QCOMPARE(bench.upstream.starts, 2);
        QCOMPARE(bench.sharing.size(), 1);
        QCOMPARE(bench.sharing.riders(), 1);
    }
}

void TestSharing::landing_isHeardBeforeAnyRiderIsAnswered()
{
    Bench bench;
    bench.ask();
    bench.ask();
    int recordsAtLanding = -1;
    int tableAtLanding = -1;
    bench.upstream.onLanded = [&](Flight &flight) {
        recordsAtLanding = int(bench.records.size());
        tableAtLanding = bench.sharing.size();
        flight.setUsage({10, 5, 0}, 0.5);   // as the proxy does: the cost goes to riders and cache
    };
    end(bench.upstream.last(), End::Ok);
    QCOMPARE(recordsAtLanding, 0);
    QCOMPARE(tableAtLanding, 1);
    QCOMPARE(bench.records.size(), 2);
    QCOMPARE(bench.records[0].costUsd, 0.5);
    QCOMPARE(bench.records[1].costSavedUsd, 0.5);
    const std::optional<CachedAnswer> cached = bench.cache.find(kKey);
    QVERIFY(cached);
    QCOMPARE(cached->costUsd, 0.5);
    QCOMPARE(cached->outputTokens, 5);
}

void TestSharing::failedFlight_reachesEveryRiderButIsNeverCached_data()
{
    QTest::addColumn<End>("how");
    QTest::addColumn<int>("status");
    QTest::addColumn<QByteArray>("errorCode");
    QTest::newRow("upstream 503") << End::ServerError << 503 << QByteArray();
    QTest::newRow("upstream 429") << End::RateLimited << 429 << QByteArray();
    QTest::newRow("our timeout") << End::Timeout << 504 << "upstream_timeout"_ba;
    QTest::newRow("unreachable") << End::Unreachable << 502 << "upstream_unreachable"_ba;
    QTest::newRow("cut stream") << End::CutStream << 200 << "stream_cut"_ba;
    QTest::newRow("garbage 2xx") << End::Garbage << 502 << "invalid_upstream_answer"_ba;
    // The stream has sent its 200; the failure is the provider's own event in it.
    QTest::newRow("error chunk in a 200 stream") << End::ErrorChunk << 200 << "stream_error_event:server_error"_ba;
    QTest::newRow("rate limit chunk in a 200 stream")
        << End::RateLimitChunk << 200 << "stream_error_event:rate_limit_exceeded"_ba;
    QTest::newRow("responses failed") << End::ResponsesFailed << 200 << "stream_response_failed:server_error"_ba;
    QTest::newRow("responses incomplete")
        << End::ResponsesIncomplete << 200 << "stream_response_incomplete:max_output_tokens"_ba;
    QTest::newRow("responses error event")
        << End::ResponsesErrorEvent << 200 << "stream_error_event:server_is_overloaded"_ba;
}

void TestSharing::failedFlight_reachesEveryRiderButIsNeverCached()
{
    QFETCH(End, how);
    QFETCH(int, status);
    QFETCH(QByteArray, errorCode);
    Bench bench;
    FakeClientSocket *first = bench.ask();
    FakeClientSocket *second = bench.ask();
    end(bench.upstream.last(), how);

    for (FakeClientSocket *client : {first, second}) {
        QCOMPARE(client->status(), status);
        QCOMPARE(bench.recordOf(client)->errorKind, errorCode);
        if (how == End::CutStream)   // a stream already under way ends with an error event
            QVERIFY(client->received.contains("stream_cut"));
    }
    QCOMPARE(first->received.mid(first->received.indexOf("\r\n\r\n")),
             second->received.mid(second->received.indexOf("\r\n\r\n")));
    QCOMPARE(bench.cache.count(), 0);
    QCOMPARE(bench.sharing.size(), 0);
    bench.ask();
    QCOMPARE(bench.upstream.starts, 2);
}

void TestSharing::riderWhoHangsUp_onlyLeaves()
{
    Bench bench;
    FakeClientSocket *starter = bench.ask();
    FakeClientSocket *joiner = bench.ask();
    starter->hangUp();
    end(bench.upstream.last(), End::Ok);

    QVERIFY(starter->received.isEmpty());
    QCOMPARE(bench.recordOf(starter)->errorKind, "client_closed");
    QCOMPARE(joiner->status(), 200);
    QVERIFY(joiner->received.endsWith(kAnswer));
    QCOMPARE(bench.recordOf(joiner)->errorKind, QByteArray());
    QCOMPARE(bench.upstream.starts, 1);
    QCOMPARE(bench.cache.count(), 1);
}

void TestSharing::refusedStart_leavesNothingInTheTable()
{
    Bench bench;
    bench.upstream.refuse = true;
    FakeClientSocket *refused = bench.ask();
    QCOMPARE(refused->status(), 429);
    QCOMPARE(bench.sharing.size(), 0);
    QCOMPARE(bench.sharing.riders(), 0);
    QVERIFY(bench.sharing.findChildren<Flight *>().isEmpty());

    bench.upstream.refuse = false;
    bench.ask();
    QCOMPARE(bench.upstream.starts, 2);
    QCOMPARE(bench.sharing.size(), 1);
}

void TestSharing::unsharedRequests_neverJoinNorFillTheCache()
{
    Bench bench;
    FakeClientSocket *first = bench.ask({});
    FakeClientSocket *second = bench.ask({});
    QCOMPARE(bench.upstream.starts, 2);
    QCOMPARE(bench.sharing.size(), 0);
    QCOMPARE(bench.sharing.riders(), 2);
    end(bench.upstream.calls[0], End::Ok);
    end(bench.upstream.calls[1], End::Ok);
    QCOMPARE(first->header("x-breakwater-dedup"), "bypass");
    QCOMPARE(second->status(), 200);
    QCOMPARE(bench.recordOf(second)->outcome, Outcome::Bypass);
    QCOMPARE(bench.cache.count(), 0);
}

void TestSharing::sharedAnswers_areGivenWhileTheBreakerIsOpen()
{
    Bench bench;
    bench.ask();
    FakeClientSocket *joiner = nullptr;
    bench.breaker.recordFailure(u"fake"_s, false);   // threshold 1: open
    QCOMPARE(bench.breaker.state(), BreakerState::Open);
    joiner = bench.ask();
    end(bench.upstream.last(), End::Ok);
    FakeClientSocket *hit = bench.ask();
    QCOMPARE(bench.upstream.starts, 1);
    QCOMPARE(joiner->status(), 200);
    QCOMPARE(joiner->header("x-breakwater-breaker"), "open");
    QCOMPARE(hit->status(), 200);
    QCOMPARE(hit->header("x-breakwater-breaker"), "open");
    QCOMPARE(bench.recordOf(hit)->breakerState, "open");
}

void TestSharing::breakerVerdict_oneForEveryEnd_data()
{
    using Kind = BreakerVerdict::Kind;
    QTest::addColumn<End>("how");
    QTest::addColumn<Kind>("kind");
    QTest::addColumn<QString>("reason");
    QTest::newRow("200") << End::Ok << Kind::Success << QString();
    QTest::newRow("400, the request's fault") << End::ClientError << Kind::Success << QString();
    QTest::newRow("429, no verdict") << End::RateLimited << Kind::None << QString();
    QTest::newRow("shutdown, no verdict") << End::Shutdown << Kind::None << QString();
    QTest::newRow("503") << End::ServerError << Kind::Failure << u"HTTP 503"_s;
    QTest::newRow("timeout") << End::Timeout << Kind::Failure << u"timeout"_s;
    QTest::newRow("unreachable") << End::Unreachable << Kind::Failure << u"unreachable"_s;
    QTest::newRow("cut stream") << End::CutStream << Kind::Failure << u"stream cut"_s;
    QTest::newRow("garbage 2xx") << End::Garbage << Kind::Failure << u"invalid answer"_s;
    QTest::newRow("error chunk") << End::ErrorChunk << Kind::Failure << u"error chunk: server_error"_s;
    QTest::newRow("rate limit chunk, no verdict") << End::RateLimitChunk << Kind::None << QString();
    QTest::newRow("responses failed") << End::ResponsesFailed << Kind::Failure << u"response.failed: server_error"_s;
    QTest::newRow("responses error event")
        << End::ResponsesErrorEvent << Kind::Failure << u"error event: server_is_overloaded"_s;
    // Stopped at the request's own max_output_tokens: the provider answered as asked.
    QTest::newRow("responses incomplete") << End::ResponsesIncomplete << Kind::Success << QString();
}

void TestSharing::breakerVerdict_oneForEveryEnd()
{
    QFETCH(End, how);
    QFETCH(BreakerVerdict::Kind, kind);
    QFETCH(QString, reason);
    Bench bench;
    bench.ask();
    bench.ask();
    int verdicts = 0;
    BreakerVerdict verdict;
    bench.upstream.onLanded = [&](Flight &flight) {
        ++verdicts;
        verdict = flight.breakerVerdict();
    };
    end(bench.upstream.last(), how);
    QCOMPARE(verdicts, 1);   // one call, two riders: one verdict
    QCOMPARE(verdict.kind, kind);
    QCOMPARE(verdict.reason.english(), reason);
}

void TestSharing::failureInsideAStream_everyRiderGetsTheProvidersErrorAlone_data()
{
    QTest::addColumn<End>("how");
    QTest::newRow("error chunk") << End::ErrorChunk;
    QTest::newRow("responses failed") << End::ResponsesFailed;
    QTest::newRow("responses incomplete") << End::ResponsesIncomplete;
    QTest::newRow("responses error event") << End::ResponsesErrorEvent;
}

void TestSharing::failureInsideAStream_everyRiderGetsTheProvidersErrorAlone()
{
    QFETCH(End, how);
    const QByteArray stream = inStreamFailure(how);
    Bench bench;
    FakeClientSocket *starter = bench.ask();
    FakeClientSocket *joiner = bench.ask();
    UpstreamCall *call = bench.upstream.last();
    Q_EMIT call->started(0);
    Q_EMIT call->headersReceived(200, kEventStream);
    const qsizetype half = stream.size() / 2;
    Q_EMIT call->bodyReceived(stream.first(half));
    FakeClientSocket *lateJoiner = bench.ask();   // gets what came so far, then the rest
    Q_EMIT call->bodyReceived(stream.sliced(half));
    Q_EMIT call->finished(UpstreamResult{UpstreamFailure::None, {}, 200});

    // The provider's error is the last thing each rider reads, and there is no second of ours.
    for (FakeClientSocket *client : {starter, joiner, lateJoiner}) {
        QCOMPARE(client->status(), 200);
        const QByteArray body = client->streamedBody();
        QCOMPARE(body, stream);
        QCOMPARE(bench.recordOf(client)->errorKind, bench.records.first().errorKind);
    }
    QCOMPARE(bench.recordOf(lateJoiner)->outcome, Outcome::Joined);
    QVERIFY(bench.records.first().errorKind.startsWith("stream_"));
    QCOMPARE(bench.cache.count(), 0);
    bench.ask();
    QCOMPARE(bench.upstream.starts, 2);
}

QTEST_GUILESS_MAIN(TestSharing)
#include "tst_sharing.moc"
