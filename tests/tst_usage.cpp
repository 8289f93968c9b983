#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include "accounting/usage.h"

using namespace Qt::StringLiterals;

// Usage as the providers send it: JSON answers and whole event streams, with and without usage.
class TestUsage : public QObject
{
    Q_OBJECT

private slots:
    void parseUsage_readsEveryShape_data();
    void parseUsage_readsEveryShape();
    void anthropicStream_outputIsOverwrittenNotAdded();
    void openaiStream_cutBeforeUsage_isUnknown();
    void requestedMaxTokens_readsEachFieldOrDefaultTimesCompletions_data();
    void requestedMaxTokens_readsEachFieldOrDefaultTimesCompletions();
    void estimateInputTokens_isBytesOverFourRoundedUp();
};

void TestUsage::parseUsage_readsEveryShape_data()
{
    QTest::addColumn<bool>("anthropic");
    QTest::addColumn<bool>("stream");
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<qint64>("input");
    QTest::addColumn<qint64>("output");
    QTest::addColumn<qint64>("cached");

    QTest::newRow("openai json") << false << false
        << R"({"id":"c1","choices":[],"usage":{"prompt_tokens":120,"completion_tokens":30,"total_tokens":150,
              "prompt_tokens_details":{"cached_tokens":64},"completion_tokens_details":{"reasoning_tokens":10}}})"_ba
        << qint64(120) << qint64(30) << qint64(64);
    QTest::newRow("openai json, no details") << false << false
        << R"({"usage":{"prompt_tokens":7,"completion_tokens":3,"total_tokens":10}})"_ba
        << qint64(7) << qint64(3) << qint64(-1);
    QTest::newRow("openai embeddings") << false << false
        << R"({"object":"list","data":[],"usage":{"prompt_tokens":9,"total_tokens":9}})"_ba
        << qint64(9) << qint64(0) << qint64(-1);
    // A count no call can have is not said (casting it was undefined behaviour; found by fuzz_usage).
    QTest::newRow("openai json, count beyond any call") << false << false
        << R"({"usage":{"prompt_tokens":1e30,"completion_tokens":5}})"_ba << qint64(-1) << qint64(5) << qint64(-1);
    QTest::newRow("openai json, negative count") << false << false
        << R"({"usage":{"prompt_tokens":-5,"completion_tokens":3}})"_ba << qint64(-1) << qint64(3) << qint64(-1);
    QTest::newRow("openai json without usage") << false << false
        << R"({"id":"c1","choices":[]})"_ba << qint64(-1) << qint64(-1) << qint64(-1);
    QTest::newRow("openai stream with include_usage") << false << true
        << "data: {\"choices\":[{\"delta\":{\"content\":\"Hi\"}}],\"usage\":null}\n\n"
           "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}],\"usage\":null}\n\n"
           "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":11,\"completion_tokens\":5,"
           "\"prompt_tokens_details\":{\"cached_tokens\":0}}}\n\n"
           "data: [DONE]\n\n"_ba
        << qint64(11) << qint64(5) << qint64(0);
    QTest::newRow("openai stream, CRLF lines") << false << true
        << "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":4,\"completion_tokens\":2}}\r\n\r\ndata: [DONE]\r\n\r\n"_ba
        << qint64(4) << qint64(2) << qint64(-1);
    QTest::newRow("openai stream without usage") << false << true
        << "data: {\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}\n\ndata: [DONE]\n\n"_ba
        << qint64(-1) << qint64(-1) << qint64(-1);
    // The Responses API: OpenAI's style in other words, told apart by its shape.
    QTest::newRow("responses json") << false << false
        << R"({"id":"resp_1","object":"response","status":"completed","output":[],
              "usage":{"input_tokens":36,"input_tokens_details":{"cached_tokens":12},"output_tokens":87,
              "output_tokens_details":{"reasoning_tokens":50},"total_tokens":123}})"_ba
        << qint64(36) << qint64(87) << qint64(12);
    QTest::newRow("responses json, no details") << false << false
        << R"({"object":"response","usage":{"input_tokens":5,"output_tokens":2,"total_tokens":7}})"_ba
        << qint64(5) << qint64(2) << qint64(-1);
    QTest::newRow("responses stream: usage of response.completed") << false << true
        << "event: response.created\ndata: {\"type\":\"response.created\",\"sequence_number\":0,"
           "\"response\":{\"status\":\"in_progress\",\"usage\":null}}\n\n"
           "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\","
           "\"sequence_number\":1,\"delta\":\"usage\"}\n\n"
           "event: response.completed\ndata: {\"type\":\"response.completed\",\"sequence_number\":2,"
           "\"response\":{\"status\":\"completed\",\"usage\":{\"input_tokens\":21,"
           "\"input_tokens_details\":{\"cached_tokens\":4},\"output_tokens\":9,"
           "\"output_tokens_details\":{\"reasoning_tokens\":0},\"total_tokens\":30}}}\n\n"_ba
        << qint64(21) << qint64(9) << qint64(4);
    QTest::newRow("responses stream: usage of response.incomplete") << false << true
        << "event: response.incomplete\ndata: {\"type\":\"response.incomplete\",\"response\":"
           "{\"status\":\"incomplete\",\"usage\":{\"input_tokens\":8,\"output_tokens\":16}}}\n\n"_ba
        << qint64(8) << qint64(16) << qint64(-1);
    QTest::newRow("responses stream cut before its end") << false << true
        << "event: response.created\ndata: {\"type\":\"response.created\",\"response\":{\"usage\":null}}\n\n"_ba
        << qint64(-1) << qint64(-1) << qint64(-1);
    QTest::newRow("anthropic json with cache") << true << false
        << R"({"type":"message","usage":{"input_tokens":20,"cache_creation_input_tokens":100,
              "cache_read_input_tokens":300,"output_tokens":42}})"_ba
        << qint64(420) << qint64(42) << qint64(300);
    QTest::newRow("anthropic json, counts whose sum overflows") << true << false
        << R"({"type":"message","usage":{"input_tokens":9e18,"cache_read_input_tokens":9e18,"output_tokens":8}})"_ba
        << qint64(-1) << qint64(8) << qint64(-1);
    QTest::newRow("anthropic json plain") << true << false
        << R"({"type":"message","usage":{"input_tokens":15,"output_tokens":8}})"_ba
        << qint64(15) << qint64(8) << qint64(0);
    QTest::newRow("anthropic stream") << true << true
        << "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":"
           "{\"input_tokens\":25,\"cache_read_input_tokens\":10,\"output_tokens\":1}}}\n\n"
           "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"delta\":{\"text\":\"usage\"}}\n\n"
           "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{},\"usage\":{\"output_tokens\":17}}\n\n"
           "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"_ba
        << qint64(35) << qint64(17) << qint64(10);
}

void TestUsage::parseUsage_readsEveryShape()
{
    QFETCH(bool, anthropic);
    QFETCH(bool, stream);
    QFETCH(QByteArray, body);
    const Usage usage = parseUsage(anthropic ? ApiStyle::Anthropic : ApiStyle::OpenAI, body, stream);
    QTEST(usage.inputTokens, "input");
    QTEST(usage.outputTokens, "output");
    QTEST(usage.cachedTokens, "cached");
    QCOMPARE(usage.known(), usage.inputTokens >= 0);
}

void TestUsage::anthropicStream_outputIsOverwrittenNotAdded()
{
    // message_delta counts are cumulative: two deltas of 10 and 25 mean 25 tokens, not 36.
    const QByteArray body =
        "data: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":5,\"output_tokens\":1}}}\n\n"
        "data: {\"type\":\"message_delta\",\"usage\":{\"output_tokens\":10}}\n\n"
        "data: {\"type\":\"message_delta\",\"usage\":{\"output_tokens\":25}}\n\n"_ba;
    const Usage usage = parseUsage(ApiStyle::Anthropic, body, true);
    QCOMPARE(usage.outputTokens, 25);
    QCOMPARE(usage.inputTokens, 5);
}

void TestUsage::openaiStream_cutBeforeUsage_isUnknown()
{
    const QByteArray cut = "data: {\"choices\":[{\"delta\":{\"content\":\"Hel\"}}],\"usage\":null}\n\n"
                           "data: {\"choices\":[{\"delta\":{\"content\":\"lo\"}}],\"usa"_ba;
    const Usage usage = parseUsage(ApiStyle::OpenAI, cut, true);
    QVERIFY(!usage.known());
}

void TestUsage::requestedMaxTokens_readsEachFieldOrDefaultTimesCompletions_data()
{
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<qint64>("expected");
    QTest::newRow("max_tokens") << R"({"max_tokens":256})"_ba << qint64(256);
    QTest::newRow("max_completion_tokens") << R"({"max_completion_tokens":1000})"_ba << qint64(1000);
    QTest::newRow("max_output_tokens") << R"({"max_output_tokens":77})"_ba << qint64(77);
    QTest::newRow("absent") << R"({"model":"gpt-4o"})"_ba << kDefaultMaxOutputTokens;
    QTest::newRow("not a number") << R"({"max_tokens":"lots"})"_ba << kDefaultMaxOutputTokens;
    // Every completion asked for may be that long, and each is billed.
    QTest::newRow("n") << R"({"max_tokens":256,"n":3})"_ba << qint64(768);
    QTest::newRow("n without a max") << R"({"n":2})"_ba << 2 * kDefaultMaxOutputTokens;
    QTest::newRow("best_of") << R"({"max_tokens":100,"best_of":5,"n":2})"_ba << qint64(500);
    QTest::newRow("n above best_of") << R"({"max_tokens":100,"best_of":2,"n":4})"_ba << qint64(400);
    QTest::newRow("n of 1") << R"({"max_completion_tokens":50,"n":1})"_ba << qint64(50);
    QTest::newRow("n not a number") << R"({"max_tokens":50,"n":"3"})"_ba << qint64(50);
    QTest::newRow("absurd, bounded") << R"({"max_tokens":1e300,"n":1e300})"_ba << qint64(1e12) * qint64(1e6);
    // Reserved as the most believed, not cast beyond qint64 (undefined; on x86 it gave a negative
    // count that reserved nothing).
    QTest::newRow("beyond any call") << R"({"max_tokens":1e300})"_ba << qint64(1e12);
}

void TestUsage::requestedMaxTokens_readsEachFieldOrDefaultTimesCompletions()
{
    QFETCH(QByteArray, body);
    QTEST(requestedMaxTokens(QJsonDocument::fromJson(body).object()), "expected");
}

void TestUsage::estimateInputTokens_isBytesOverFourRoundedUp()
{
    QCOMPARE(estimateInputTokens(QByteArray()), 0);
    QCOMPARE(estimateInputTokens(QByteArray(4, 'x')), 1);
    QCOMPARE(estimateInputTokens(QByteArray(5, 'x')), 2);
    QCOMPARE(estimateInputTokens(QByteArray(4000, 'x')), 1000);
}

QTEST_GUILESS_MAIN(TestUsage)
#include "tst_usage.moc"
