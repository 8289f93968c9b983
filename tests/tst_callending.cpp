// What happened to a call, in one vocabulary: how it was served (miss, joined, hit, bypass, refused)
// apart from how it ended (ok, upstream_error, timeout, unreachable, ...). Derived from the record's
// fields (table-driven), checked per kind of call through a real proxy (the x-breakwater-dedup
// header, the record, /metrics), and stored in the call log's `ended` column, old rows included.

#include "accounting/callcolumns.h"
#include "accounting/callending.h"
#include "accounting/calllog.h"
#include "proxyharness.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace std::chrono_literals;

Q_DECLARE_METATYPE(Outcome)
Q_DECLARE_METATYPE(Served)
Q_DECLARE_METATYPE(Ending)

namespace {

const QByteArray kChat = "/v1/chat/completions";

quint16 closedPort()
{
    QTcpServer server;
    server.listen(QHostAddress::LocalHost, 0);
    return server.serverPort();
}

// The newest record the proxy published (an empty one if none came).
CallRecord lastRecord(ProxyHarness &harness)
{
    [&] { QTRY_VERIFY(!harness.records.isEmpty()); }();
    return harness.records.isEmpty() ? CallRecord{} : harness.records.last();
}

} // namespace

class TestCallEnding final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { qRegisterMetaType<CallRecord>(); }
    void endingOf_derivesFromOutcomeStatusAndKind_data();
    void endingOf_derivesFromOutcomeStatusAndKind();
    void proxy_servedAndEndedPerKindOfCall();
    void breakerRefusal_answersRefusedNeverMiss();
    void metrics_countRequestsByEnding();
    void callLog_storesEndedAndFillsItForOldRows();
};

void TestCallEnding::endingOf_derivesFromOutcomeStatusAndKind_data()
{
    QTest::addColumn<Outcome>("outcome");
    QTest::addColumn<int>("status");
    QTest::addColumn<QByteArray>("kind");
    QTest::addColumn<Served>("served");
    QTest::addColumn<QByteArray>("ended");
    QTest::newRow("miss ok") << Outcome::Miss << 200 << ""_ba << Served::Miss << "ok"_ba;
    QTest::newRow("joined ok") << Outcome::Joined << 200 << ""_ba << Served::Joined << "ok"_ba;
    QTest::newRow("hit") << Outcome::Hit << 200 << ""_ba << Served::Hit << "ok"_ba;
    QTest::newRow("bypass ok") << Outcome::Bypass << 200 << ""_ba << Served::Bypass << "ok"_ba;
    QTest::newRow("upstream 503") << Outcome::Miss << 503 << ""_ba << Served::Miss << "upstream_error"_ba;
    QTest::newRow("upstream 429 to a rider") << Outcome::Joined << 429 << ""_ba << Served::Joined << "upstream_error"_ba;
    QTest::newRow("garbage 2xx") << Outcome::Miss << 502 << "invalid_upstream_answer"_ba << Served::Miss << "upstream_error"_ba;
    QTest::newRow("timeout") << Outcome::Miss << 504 << "upstream_timeout"_ba << Served::Miss << "timeout"_ba;
    QTest::newRow("timeout mid-stream") << Outcome::Miss << 200 << "upstream_timeout"_ba << Served::Miss << "timeout"_ba;
    QTest::newRow("unreachable") << Outcome::Bypass << 502 << "upstream_unreachable"_ba << Served::Bypass << "unreachable"_ba;
    QTest::newRow("cut stream") << Outcome::Miss << 200 << "stream_cut"_ba << Served::Miss << "cut"_ba;
    QTest::newRow("error event in a 200 stream") << Outcome::Miss << 200 << "upstream_error_event"_ba << Served::Miss << "error_event"_ba;
    QTest::newRow("breaker") << Outcome::BreakerRefused << 503 << "breaker_open"_ba << Served::Refused << "breaker_refused"_ba;
    QTest::newRow("spend") << Outcome::SpendRefused << 429 << "spend_limit_exceeded"_ba << Served::Refused << "spend_refused"_ba;
    QTest::newRow("queue full") << Outcome::Error << 429 << "queue_full"_ba << Served::Refused << "queue_full"_ba;
    QTest::newRow("bad json") << Outcome::Error << 400 << "invalid_json"_ba << Served::Refused << "bad_request"_ba;
    QTest::newRow("client closed") << Outcome::Miss << 200 << "client_closed"_ba << Served::Miss << "client_closed"_ba;
    QTest::newRow("cancelled: every caller hung up") << Outcome::Bypass << 499 << "cancelled"_ba << Served::Bypass << "client_closed"_ba;
}

void TestCallEnding::endingOf_derivesFromOutcomeStatusAndKind()
{
    QFETCH(Outcome, outcome);
    QFETCH(int, status);
    QFETCH(QByteArray, kind);
    QFETCH(Served, served);
    QFETCH(QByteArray, ended);
    CallRecord record;
    record.outcome = outcome;
    record.status = status;
    record.errorKind = kind;
    QCOMPARE(servedOf(outcome), served);
    QCOMPARE(endingName(endingOf(record)), ended);
    const Ending ending = endingOf(record);
    QCOMPARE(isRefusal(ending), served == Served::Refused);
    QCOMPARE(isFailure(ending), served != Served::Refused && ended != "ok");
}

// One call of each kind through a real proxy: what the header says, what the record says.
void TestCallEnding::proxy_servedAndEndedPerKindOfCall()
{
    ProxyHarness harness([](ProxyConfig &c) {
        c.breakerFailures = 1000;   // the breaker has its own test below
        c.upstreamTimeout = 300ms;
    });
    struct Expected { QByteArray dedup; Outcome outcome; int status; Ending ending; };
    const auto check = [&](const LoopbackResponse &response, const Expected &expected) {
        QCOMPARE(response.header("x-breakwater-dedup"), expected.dedup);
        QCOMPARE(response.status, expected.status);
        const CallRecord record = lastRecord(harness);
        QCOMPARE(record.outcome, expected.outcome);
        QCOMPARE(record.status, expected.status);
        QCOMPARE(endingOf(record), expected.ending);
        harness.records.clear();
    };
    const QByteArray body = chatBody(u"served and ended"_s);
    check(harness.post(kChat, body), {"miss", Outcome::Miss, 200, Ending::Ok});
    check(harness.post(kChat, body), {"hit", Outcome::Hit, 200, Ending::Ok});
    check(harness.post(kChat, body, {{"Cache-Control", "no-cache"}}), {"bypass", Outcome::Bypass, 200, Ending::Ok});

    // Two identical calls while the provider holds its answer: one makes the call, one rides on it.
    harness.mock()->setHoldAnswers(true);
    const QByteArray shared = chatBody(u"shared"_s);
    LoopbackClient *first = harness.start(kChat, shared);
    QTRY_COMPARE(harness.ridersWaiting(), 1);
    LoopbackClient *second = harness.start(kChat, shared);
    QTRY_COMPARE(harness.ridersWaiting(), 2);
    harness.mock()->setHoldAnswers(false);
    QTRY_VERIFY(first->isFinished() && second->isFinished());
    QCOMPARE(first->response().header("x-breakwater-dedup"), "miss"_ba);
    QCOMPARE(second->response().header("x-breakwater-dedup"), "joined"_ba);
    QTRY_COMPARE(harness.records.size(), 2);
    QCOMPARE(harness.countOutcome(Outcome::Joined), 1);
    for (const CallRecord &record : harness.records)
        QCOMPARE(endingOf(record), Ending::Ok);
    harness.records.clear();

    // The provider's own 503 is served as a miss (the call was made) and ends upstream_error.
    harness.mock()->setMode(MockProvider::Mode::Error503);
    check(harness.post(kChat, chatBody(u"503"_s)), {"miss", Outcome::Miss, 503, Ending::UpstreamError});
    // Silent past --timeout: Breakwater's 504, a timeout, not an upstream error.
    harness.mock()->setMode(MockProvider::Mode::Hang);
    check(harness.post(kChat, chatBody(u"hang"_s)), {"miss", Outcome::Miss, 504, Ending::Timeout});
    harness.mock()->setMode(MockProvider::Mode::Ok);
    // Bad input: no upstream call, refused.
    check(harness.post(kChat, "{not json"), {"refused", Outcome::Error, 400, Ending::BadRequest});

    // Nothing listening: 502, unreachable.
    const quint16 nowhere = closedPort();
    ProxyHarness lost([nowhere](ProxyConfig &c) {
        c.openaiUpstream = QUrl(u"http://127.0.0.1:%1/v1"_s.arg(nowhere));
        c.breakerFailures = 1000;
    });
    const LoopbackResponse unreachable = lost.post(kChat, chatBody(u"nobody home"_s));
    QCOMPARE(unreachable.status, 502);
    QCOMPARE(unreachable.header("x-breakwater-dedup"), "miss"_ba);
    QCOMPARE(endingOf(lastRecord(lost)), Ending::Unreachable);
}

void TestCallEnding::breakerRefusal_answersRefusedNeverMiss()
{
    ProxyHarness harness([](ProxyConfig &c) {
        c.breakerFailures = 1;
        c.breakerCooldown = 60s;
        c.breakerProbeInterval = 60s;
    });
    harness.mock()->setMode(MockProvider::Mode::Error503);
    QCOMPARE(harness.post(kChat, chatBody(u"fails"_s)).header("x-breakwater-dedup"), "miss"_ba);
    QTRY_COMPARE(harness.transitions.size(), 1);
    const int calls = harness.mock()->callCount();
    const LoopbackResponse refused = harness.post(kChat, chatBody(u"refused"_s));
    QCOMPARE(refused.status, 503);
    QCOMPARE(refused.header("x-breakwater-dedup"), "refused"_ba);   // no upstream call was made
    QCOMPARE(harness.mock()->callCount(), calls);
    QTRY_COMPARE(harness.countOutcome(Outcome::BreakerRefused), 1);
    QCOMPARE(endingOf(harness.records.last()), Ending::BreakerRefused);
}

void TestCallEnding::metrics_countRequestsByEnding()
{
    ProxyHarness harness([](ProxyConfig &c) {
        c.breakerFailures = 1000;
        c.upstreamTimeout = 300ms;
    });
    QCOMPARE(harness.post(kChat, chatBody(u"fine"_s)).status, 200);
    harness.mock()->setMode(MockProvider::Mode::Hang);
    QCOMPARE(harness.post(kChat, chatBody(u"stuck 1"_s)).status, 504);
    QCOMPARE(harness.post(kChat, chatBody(u"stuck 2"_s)).status, 504);
    harness.mock()->setMode(MockProvider::Mode::Ok);
    QTRY_COMPARE(harness.records.size(), 3);
    const QByteArray text = harness.get("/metrics").body;
    QVERIFY2(text.contains("# TYPE breakwater_requests_ended_total counter"), text.constData());
    QVERIFY(text.contains(R"(breakwater_requests_ended_total{route="/v1/chat/completions",ended="ok"} 1)"));
    QVERIFY(text.contains(R"(breakwater_requests_ended_total{route="/v1/chat/completions",ended="timeout"} 2)"));
    const QJsonObject stats = QJsonDocument::fromJson(harness.control("GET", "/breakwater/stats").body).object();
    const QJsonObject ended = stats.value(u"ended"_s).toObject().value(u"/v1/chat/completions"_s).toObject();
    QCOMPARE(ended.value(u"ok"_s).toInt(), 1);
    QCOMPARE(ended.value(u"timeout"_s).toInt(), 2);
}

// A schema-1 database (before `ended`): opening it adds the column and fills it for the rows
// already there, as a new row would be filled.
void TestCallEnding::callLog_storesEndedAndFillsItForOldRows()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(u"calls.sqlite"_s);
    const qint64 t = QDateTime::currentMSecsSinceEpoch() - 60'000;
    {
        QSqlDatabase db = QSqlDatabase::addDatabase(u"QSQLITE"_s, u"schema1"_s);
        db.setDatabaseName(path);
        QVERIFY(db.open());
        QSqlQuery query(db);
        QVERIFY(query.exec(CallColumns::createTable(CallColumns::kSchema1Columns)));
        QVERIFY(query.exec(u"PRAGMA user_version = 1"_s));
        const QList<std::tuple<QString, int, QString>> rows{
            {u"miss"_s, 200, QString()}, {u"miss"_s, 503, QString()}, {u"miss"_s, 504, u"upstream_timeout"_s},
            {u"breaker_refused"_s, 503, u"breaker_open"_s}, {u"miss"_s, 200, QString()}};
        for (const auto &[outcome, status, kind] : rows) {
            query.prepare(u"INSERT INTO calls (request_id, received_at_ms, outcome, status, error_kind)"
                          " VALUES ('old', ?, ?, ?, ?)"_s);
            query.addBindValue(t);
            query.addBindValue(outcome);
            query.addBindValue(status);
            query.addBindValue(kind.isEmpty() ? QVariant(QMetaType::fromType<QString>()) : QVariant(kind));
            QVERIFY2(query.exec(), qPrintable(query.lastError().text()));
        }
    }
    QSqlDatabase::removeDatabase(u"schema1"_s);

    CallLog log;
    const Result opened = log.open(path);
    QVERIFY2(opened.ok(), qPrintable(opened.error()));
    CallRecord unreachable;
    unreachable.requestId = "new";
    unreachable.receivedAtMs = t + 1;
    unreachable.outcome = Outcome::Miss;
    unreachable.status = 502;
    unreachable.errorKind = "upstream_unreachable";
    log.append(unreachable);
    log.flush();
    QCOMPARE(log.recent(10).size(), 6);
    log.close();

    QStringList ended;
    {
        QSqlDatabase db = QSqlDatabase::addDatabase(u"QSQLITE"_s, u"reader"_s);
        db.setDatabaseName(path);
        QVERIFY(db.open());
        QSqlQuery query(db);
        QVERIFY(query.exec(u"SELECT ended FROM calls ORDER BY id"_s));
        while (query.next())
            ended << query.value(0).toString();
        QVERIFY(query.exec(u"PRAGMA user_version"_s) && query.next());
        QCOMPARE(query.value(0).toInt(), CallLog::kSchemaVersion);   // migrated through 2 to the newest
    }
    QSqlDatabase::removeDatabase(u"reader"_s);
    QCOMPARE(ended, QStringList({u"ok"_s, u"upstream_error"_s, u"timeout"_s, u"breaker_refused"_s, u"ok"_s,
                                 u"unreachable"_s}));
}

QTEST_GUILESS_MAIN(TestCallEnding)
#include "tst_callending.moc"
