// One upstream exchange on the wire: what the pool sends (every value of a repeated header, the
// body exactly once) and what it hands back (each Set-Cookie on its own), and which failures it
// tries again (a refused connection, once) and which never (a reset after the request went out).

#include "upstream/upstreampool.h"

#include <QTcpServer>
#include <QTest>

#include "cannedserver.h"
#include "mocktest.h"
#include "wireevents.h"

using namespace Qt::StringLiterals;
using namespace std::chrono_literals;

namespace {

constexpr int kWait = 10000;

// One exchange's signals, as the proxy thread would see them (here the test thread).
struct Outcome
{
    int status = 0;
    HeaderList headers;
    QByteArray body;
    bool finished = false;
    UpstreamResult result;
};

Outcome *follow(UpstreamCall *call, QObject *context)
{
    auto *outcome = new Outcome;
    QObject::connect(context, &QObject::destroyed, [outcome] { delete outcome; });
    QObject::connect(call, &UpstreamCall::headersReceived, context, [outcome](int status, const HeaderList &headers) {
        outcome->status = status;
        outcome->headers = headers;
    });
    QObject::connect(call, &UpstreamCall::bodyReceived, context,
                     [outcome](const QByteArray &piece) { outcome->body += piece; });
    QObject::connect(call, &UpstreamCall::finished, context, [outcome](const UpstreamResult &result) {
        outcome->result = result;
        outcome->finished = true;
    });
    return outcome;
}

UpstreamRequest chatRequest(quint16 port, const HeaderList &headers = kJsonContentType,
                            const QByteArray &body = R"({"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}]})")
{
    UpstreamRequest request;
    request.url = QUrl(u"http://127.0.0.1:%1/v1/chat/completions"_s.arg(port));
    request.headers = headers;
    request.body = body;
    request.timeout = 5s;
    return request;
}

// A loopback port nothing listens on (it was free a moment ago).
quint16 refusingPort()
{
    QTcpServer probe;
    if (!probe.listen(QHostAddress::LocalHost, 0))
        qFatal("no free port");
    return probe.serverPort();
}

} // namespace

class tst_UpstreamPool final : public MockTest
{
    Q_OBJECT
private slots:
    void repeatedSetCookie_comesBackAsSeparateHeaders();
    void repeatedRequestHeader_reachesUpstreamWithEveryValue();
    void body_reachesUpstreamWholeAndOnce();
    void resetAfterRequestWasSent_isNotSentAgain();
    void refusedConnection_isTriedOnceMore();
    void refusedTwice_isUnreachable();
};

void tst_UpstreamPool::repeatedSetCookie_comesBackAsSeparateHeaders()
{
    mock()->setExtraHeaders(MockProvider::realProviderHeaders());
    UpstreamPool pool(u"openai"_s, 2, 4);
    QObject context;
    Outcome *outcome = follow(pool.submit(chatRequest(port()), &context), &context);
    QTRY_VERIFY_WITH_TIMEOUT(outcome->finished, kWait);
    QCOMPARE(outcome->status, 200);
    const QList<QByteArray> cookies = headerValues(outcome->headers, "set-cookie");
    QCOMPARE(cookies.size(), 2);
    QVERIFY(cookies[0].startsWith("__cf_bm=") && cookies[0].contains("expires=Tue, 14-Nov-23 22:43:20 GMT"));
    QVERIFY(cookies[1].startsWith("_cfuvid="));
    for (const auto &[name, value] : outcome->headers)
        QVERIFY2(!value.contains('\n') && !value.contains('\r'), name.constData());
    QCOMPARE(headerValues(outcome->headers, "x-ratelimit-remaining-requests"), QList<QByteArray>{"9999"});
}

void tst_UpstreamPool::repeatedRequestHeader_reachesUpstreamWithEveryValue()
{
    // Each line goes up as the client sent it: not only the last value (QNetworkRequest's
    // setRawHeader replaced), and not joined into one line either.
    UpstreamPool pool(u"anthropic"_s, 2, 4);
    QObject context;
    const HeaderList headers = kJsonContentType + HeaderList{{"anthropic-beta", "tools-2024-04-04"},
                                                             {"anthropic-beta", "prompt-caching-2024-07-31"},
                                                             {"Cookie", "a=1"}, {"Cookie", "b=2"}};
    Outcome *outcome = follow(pool.submit(chatRequest(port(), headers), &context), &context);
    QTRY_VERIFY_WITH_TIMEOUT(outcome->finished, kWait);
    QCOMPARE(outcome->status, 200);
    const HeaderList seen = mock()->lastRequestHeaders();
    QCOMPARE(headerValues(seen, "anthropic-beta"),
             (QList<QByteArray>{"tools-2024-04-04", "prompt-caching-2024-07-31"}));
    QCOMPARE(headerValues(seen, "cookie"), (QList<QByteArray>{"a=1", "b=2"}));
}

void tst_UpstreamPool::body_reachesUpstreamWholeAndOnce()
{
    // The body is handed to Qt as a device that reads once; every byte of it still arrives.
    QByteArray body = R"({"model":"gpt-4o-mini","messages":[{"role":"user","content":")";
    for (int i = 0; body.size() < 3 * 1024 * 1024; ++i)
        body += QByteArray::number(i) + ' ';
    body += R"("}]})";
    UpstreamPool pool(u"openai"_s, 2, 4);
    QObject context;
    Outcome *outcome = follow(pool.submit(chatRequest(port(), kJsonContentType, body), &context), &context);
    QTRY_VERIFY_WITH_TIMEOUT(outcome->finished, kWait);
    QCOMPARE(outcome->status, 200);
    QCOMPARE(int(outcome->result.failure), int(UpstreamFailure::None));
    QCOMPARE(mock()->lastRequestBody().size(), body.size());
    QVERIFY(mock()->lastRequestBody() == body);
    QCOMPARE(mock()->callCount(), 1);
}

void tst_UpstreamPool::resetAfterRequestWasSent_isNotSentAgain()
{
    // The mock reads the request, then resets the connection: it may have acted on it, so Qt's own
    // resend (which used to make this 2 calls) must not happen, and neither may ours.
    mock()->setMode(MockProvider::Mode::Reset);
    UpstreamPool pool(u"openai"_s, 2, 4);
    QObject context;
    Outcome *outcome = follow(pool.submit(chatRequest(port()), &context), &context);
    QTRY_VERIFY_WITH_TIMEOUT(outcome->finished, kWait);
    QCOMPARE(int(outcome->result.failure), int(UpstreamFailure::Unreachable));
    QCOMPARE(outcome->status, 0);
    QCOMPARE(mock()->callCount(), 1);
    QCOMPARE(pool.refusedRetries(), 0);

    // The next exchange goes out normally.
    mock()->setMode(MockProvider::Mode::Ok);
    Outcome *next = follow(pool.submit(chatRequest(port()), &context), &context);
    QTRY_VERIFY_WITH_TIMEOUT(next->finished, kWait);
    QCOMPARE(next->status, 200);
    QCOMPARE(mock()->callCount(), 2);
}

void tst_UpstreamPool::refusedConnection_isTriedOnceMore()
{
    // Refused first (nothing listens), then the upstream is back within the retry delay: the caller
    // gets the answer, and the upstream saw exactly one request.
    const quint16 blinking = refusingPort();
    UpstreamPool pool(u"openai"_s, 2, 4);
    pool.setRefusedRetryDelay(1500ms);   // time for this thread to listen; 200 ms in the app
    QObject context;
    Outcome *outcome = follow(pool.submit(chatRequest(blinking), &context), &context);
    QTRY_COMPARE_WITH_TIMEOUT(pool.refusedRetries(), 1, kWait);
    CannedServer upstream(CannedServer::answer(200, {}, R"({"ok":true})"));
    QVERIFY(upstream.listenOn(blinking));
    QTRY_VERIFY_WITH_TIMEOUT(outcome->finished, kWait);
    QCOMPARE(int(outcome->result.failure), int(UpstreamFailure::None));
    QCOMPARE(outcome->status, 200);
    QCOMPARE(outcome->body, R"({"ok":true})"_ba);
    QCOMPARE(upstream.requests(), 1);
    QCOMPARE(pool.refusedRetries(), 1);
}

void tst_UpstreamPool::refusedTwice_isUnreachable()
{
    const quint16 down = refusingPort();
    UpstreamPool pool(u"openai"_s, 2, 4);
    pool.setRefusedRetryDelay(10ms);
    QObject context;
    Outcome *outcome = follow(pool.submit(chatRequest(down), &context), &context);
    QTRY_VERIFY_WITH_TIMEOUT(outcome->finished, kWait);
    QCOMPARE(int(outcome->result.failure), int(UpstreamFailure::Unreachable));
    QCOMPARE(pool.refusedRetries(), 1);   // once more, not again and again
}

QTEST_GUILESS_MAIN(tst_UpstreamPool)
#include "tst_upstreampool.moc"
