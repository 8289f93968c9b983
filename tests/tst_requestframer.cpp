// Request framing on raw bytes: where each request ends (Content-Length, chunked with extensions and
// trailers, pipelined, blank lines between), the limits and their status codes, and that none of it
// depends on how the bytes were cut into reads.

#include "http/requestframer.h"

#include <QTest>

using namespace Qt::StringLiterals;

namespace {
const QByteArray kChunkedHead = "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"_ba;
const QByteArray kGet = "GET /v1/models HTTP/1.1\r\nHost: x\r\n\r\n"_ba;

QByteArray chunked(const QByteArray &body)
{
    return kChunkedHead + body;
}

struct Outcome
{
    int completed = 0;
    int continues = 0;
    int refusal = 0;
    bool inRequest = false;
};

// Feeds `stream` in pieces of the given lengths (the last one repeated), adding up the progress.
Outcome feed(QByteArrayView stream, const QList<qsizetype> &cuts, qint64 maxBodyBytes = 1024)
{
    RequestFramer framer({.maxBodyBytes = maxBodyBytes, .maxHeaderBytes = 256, .chunkFramingBytes = 64});
    Outcome outcome;
    for (qsizetype pos = 0, i = 0; pos < stream.size(); ++i) {
        const qsizetype length = qMin(cuts.at(qMin(i, cuts.size() - 1)), stream.size() - pos);
        const RequestFramer::Progress progress = framer.feed(stream.sliced(pos, length));
        pos += length;
        outcome.completed += progress.completed;
        outcome.continues += progress.continues;
        outcome.refusal = qMax(outcome.refusal, progress.refusal);
    }
    outcome.inRequest = framer.inRequest();
    return outcome;
}
} // namespace

class TestRequestFramer final : public QObject
{
    Q_OBJECT
private slots:
    void framing_isTheSameForEveryCut_data();
    void framing_isTheSameForEveryCut();
    void refusal_isFinal();
    void head_isNeverHeldPastItsLimit();
};

void TestRequestFramer::framing_isTheSameForEveryCut_data()
{
    QTest::addColumn<QByteArray>("stream");
    QTest::addColumn<int>("completed");
    QTest::addColumn<int>("continues");
    QTest::addColumn<int>("refusal");
    QTest::addColumn<bool>("inRequest");

    QTest::newRow("get") << kGet << 1 << 0 << 0 << false;
    QTest::newRow("content-length body")
        << "POST /v1/embeddings HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}"_ba << 1 << 0 << 0 << false;
    QTest::newRow("body not yet in full")
        << "POST /v1/embeddings HTTP/1.1\r\nContent-Length: 5\r\n\r\n{}"_ba << 0 << 0 << 0 << true;
    QTest::newRow("head not yet in full") << "GET /v1/models HTTP/1.1\r\nHost"_ba << 0 << 0 << 0 << true;
    QTest::newRow("pipelined, blank lines between")
        << QByteArray(kGet + "\r\n\r\nPOST /v1/embeddings HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}" + kGet + "\r\n")
        << 3 << 0 << 0 << false;
    QTest::newRow("expect 100-continue")
        << "POST /v1/embeddings HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n{}"_ba
        << 1 << 1 << 0 << false;
    QTest::newRow("chunked") << chunked("5\r\nhello\r\nA\r\n0123456789\r\n0\r\n\r\n") << 1 << 0 << 0 << false;
    QTest::newRow("chunked, empty") << chunked("0\r\n\r\n") << 1 << 0 << 0 << false;
    QTest::newRow("chunked, LF line ends") << chunked("5\nhello\n0\n\n") << 1 << 0 << 0 << false;
    QTest::newRow("chunked, extensions") << chunked("5;a=b\r\nhello\r\n0;c\r\n\r\n") << 1 << 0 << 0 << false;
    // Before: a chunked body was over only when a read *ended* with "\r\n0\r\n\r\n", so these
    // never ended (the read timeout then refused a request that had been answered) or, cut
    // differently, ended early.
    QTest::newRow("chunked, then a pipelined request") << chunked("5\r\nhello\r\n0\r\n\r\n" + kGet)
                                                       << 2 << 0 << 0 << false;
    QTest::newRow("chunked, trailers") << chunked("5\r\nhello\r\n0\r\nX-Sum: 1\r\nX-Other: 2\r\n\r\n")
                                       << 1 << 0 << 0 << false;
    QTest::newRow("chunk data that looks like the end")
        << chunked("7\r\n\r\n0\r\n\r\n\r\n0\r\n\r\n" + kGet) << 2 << 0 << 0 << false;
    QTest::newRow("chunked, not yet in full") << chunked("5\r\nhello\r\n0\r\n") << 0 << 0 << 0 << true;
    QTest::newRow("chunked framing broken: never ends")
        << chunked("hello\r\n0\r\n\r\n" + kGet) << 0 << 0 << 0 << true;

    QTest::newRow("content-length over the limit, before its body")
        << "POST /v1/messages HTTP/1.1\r\nContent-Length: 1025\r\n\r\n"_ba << 0 << 0 << 413 << true;
    QTest::newRow("no 100-continue for a refused body")
        << "POST /v1/messages HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 2000\r\n\r\n"_ba
        << 0 << 0 << 413 << true;
    QTest::newRow("chunked body over the limit and its framing")
        << chunked("220\r\n" + QByteArray(544, 'a') + "\r\n220\r\n" + QByteArray(544, 'b') + "\r\n0\r\n\r\n")
        << 0 << 0 << 413 << true;
    QTest::newRow("chunk announced over the limit, before its data")
        << chunked("FFFFFFFFFFFFFFFFFFFF\r\n") << 0 << 0 << 413 << true;
    // The limit here is 1024 + 64 = 0x440 bytes.
    QTest::newRow("chunk announced one over the limit") << chunked("441\r\n") << 0 << 0 << 413 << true;
    QTest::newRow("chunk announced at the limit") << chunked("440\r\n") << 0 << 0 << 0 << true;
    QTest::newRow("head over the limit") << QByteArray("GET / HTTP/1.1\r\nX-Big: " + QByteArray(300, 'h') + "\r\n\r\n")
                                         << 0 << 0 << 431 << true;
    QTest::newRow("second head over the limit") << QByteArray(kGet + "GET / HTTP/1.1\r\nX-Big: " + QByteArray(300, 'h'))
                                                << 1 << 0 << 431 << true;
}

void TestRequestFramer::framing_isTheSameForEveryCut()
{
    QFETCH(QByteArray, stream);
    QFETCH(int, completed);
    QFETCH(int, continues);
    QFETCH(int, refusal);
    QFETCH(bool, inRequest);

    QList<QList<qsizetype>> cutsToTry{{stream.size()}, {1}, {3}, {7}};
    for (qsizetype at = 1; at < stream.size(); ++at)
        cutsToTry.append({at, stream.size()});
    for (const QList<qsizetype> &cuts : cutsToTry) {
        const Outcome outcome = feed(stream, cuts);
        const QByteArray got = "cut after " + QByteArray::number(cuts.first()) + ": completed "
            + QByteArray::number(outcome.completed) + ", continues " + QByteArray::number(outcome.continues)
            + ", refusal " + QByteArray::number(outcome.refusal) + ", in request " + QByteArray::number(outcome.inRequest);
        QVERIFY2(outcome.completed == completed && outcome.continues == continues && outcome.refusal == refusal
                     && outcome.inRequest == inRequest,
                 got.constData());
    }
}

void TestRequestFramer::refusal_isFinal()
{
    RequestFramer framer({.maxBodyBytes = 16, .maxHeaderBytes = 256});
    QCOMPARE(framer.feed("POST /v1/messages HTTP/1.1\r\nContent-Length: 17\r\n\r\n").refusal, 413);
    QVERIFY(framer.isRefused());
    const RequestFramer::Progress after = framer.feed(QByteArray(kGet + kGet));
    QCOMPARE(after.completed, 0);
    QCOMPARE(after.refusal, 0);
    QVERIFY(framer.isRefused());
    // A refusal from outside (the meter's read timeout) is as final.
    RequestFramer timedOut({.maxBodyBytes = 16, .maxHeaderBytes = 256});
    timedOut.refuse();
    QCOMPARE(timedOut.feed(kGet).completed, 0);
}

void TestRequestFramer::head_isNeverHeldPastItsLimit()
{
    RequestFramer framer({.maxBodyBytes = 16, .maxHeaderBytes = 64});
    QCOMPARE(framer.feed("GET /v1/models HTTP/1.1\r\n").refusal, 0);
    QCOMPARE(framer.feed(QByteArray(10'000, 'h')).refusal, 431);
    QCOMPARE(framer.head().size(), 65);
    QVERIFY(framer.head().startsWith("GET /v1/models"));   // the refusal's error shape comes from it
}

QTEST_GUILESS_MAIN(TestRequestFramer)
#include "tst_requestframer.moc"
