#include <arpa/inet.h>
#include <cerrno>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <memory>

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>
#include <QThread>

#include "loopbackclient.h"
#include "mockprovider.h"
#include "servicethread.h"

using namespace std::chrono_literals;
using namespace Qt::StringLiterals;
using Mode = MockProvider::Mode;

namespace {

constexpr auto kChat = "/v1/chat/completions";
constexpr auto kMessages = "/v1/messages";

QByteArray chatBody(const QString &prompt, bool stream = false, bool includeUsage = false)
{
    QJsonObject body{{u"model"_s, u"gpt-test"_s},
                     {u"messages"_s, QJsonArray{
                         QJsonObject{{u"role"_s, u"system"_s}, {u"content"_s, u"Be brief."_s}},
                         QJsonObject{{u"role"_s, u"user"_s}, {u"content"_s, u"an older question"_s}},
                         QJsonObject{{u"role"_s, u"assistant"_s}, {u"content"_s, u"an older answer"_s}},
                         QJsonObject{{u"role"_s, u"user"_s}, {u"content"_s, prompt}}}}};
    if (stream)
        body[u"stream"_s] = true;
    if (includeUsage)
        body[u"stream_options"_s] = QJsonObject{{u"include_usage"_s, true}};
    return QJsonDocument(body).toJson(QJsonDocument::Compact);
}

QByteArray messagesBody(const QString &prompt, bool stream = false)
{
    // Content as blocks, the way the Anthropic SDK often sends it.
    const QJsonArray content{QJsonObject{{u"type"_s, u"text"_s}, {u"text"_s, prompt}}};
    QJsonObject body{{u"model"_s, u"claude-test"_s}, {u"max_tokens"_s, 64},
                     {u"messages"_s, QJsonArray{QJsonObject{{u"role"_s, u"user"_s}, {u"content"_s, content}}}}};
    if (stream)
        body[u"stream"_s] = true;
    return QJsonDocument(body).toJson(QJsonDocument::Compact);
}

QByteArray jsonOf(const QJsonObject &object)
{
    return QJsonDocument(object).toJson(QJsonDocument::Compact);
}

QJsonObject objectOf(const QByteArray &bytes)
{
    return QJsonDocument::fromJson(bytes).object();
}

// The JSON of each `data:` event of an OpenAI stream, [DONE] excluded.
QList<QJsonObject> dataEvents(const LoopbackResponse &response)
{
    QList<QJsonObject> events;
    for (const QByteArray &chunk : response.chunks) {
        if (chunk.startsWith("data: {"))
            events += objectOf(chunk.mid(6).trimmed());
    }
    return events;
}

struct NamedEvent
{
    QByteArray name;
    QJsonObject data;
};

// Each chunk of an Anthropic stream as (event name, data).
QList<NamedEvent> namedEvents(const LoopbackResponse &response)
{
    QList<NamedEvent> events;
    for (const QByteArray &chunk : response.chunks) {
        const QList<QByteArray> lines = chunk.trimmed().split('\n');
        NamedEvent event;
        for (const QByteArray &line : lines) {
            if (line.startsWith("event: "))
                event.name = line.mid(7);
            else if (line.startsWith("data: "))
                event.data = objectOf(line.mid(6));
        }
        events += event;
    }
    return events;
}

// Sends `request` on a plain POSIX socket and reads until the end: returns 0 for a clean close (FIN),
// the errno of a failed read (ECONNRESET for a TCP RST), or -1 on timeout. QTcpSocket reports both
// endings alike, so this is the only way to see that a reset really is a reset.
int rawEnding(quint16 port, const QByteArray &request)
{
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int ending = -1;
    if (::connect(fd, reinterpret_cast<sockaddr *>(&address), sizeof address) == 0
        && ::send(fd, request.constData(), size_t(request.size()), 0) == request.size()) {
        pollfd readable{fd, POLLIN, 0};
        char buffer[4096];
        while (::poll(&readable, 1, 10000) > 0) {
            const ssize_t got = ::recv(fd, buffer, sizeof buffer, 0);
            if (got > 0)
                continue;
            ending = got == 0 ? 0 : errno;
            break;
        }
    }
    ::close(fd);
    return ending;
}

} // namespace

class tst_MockProvider final : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void cleanup();

    void mock_runsOnItsOwnThreadAndListensOnLoopback();
    void mock_onPortInUse_isNotListening();
    void chat_echoesLastUserMessageWithModelIdAndUsage();
    void chat_differentPromptsGiveDifferentAnswers();
    void completions_echoPromptAsTextCompletion();
    void embeddings_returnOneDeterministicVectorPerInput();
    void messages_answersInAnthropicShapeWithUsage();
    void models_listsModels();
    void unknownRoute_is404InOpenAIShape();
    void invalidJson_is400InRouteShape_data();
    void invalidJson_is400InRouteShape();

    void openaiStream_sendsEachEventAsOwnChunkEndingWithDone();
    void openaiStream_includeUsage_addsUsageChunkBeforeDone();
    void completionsStream_sendsTextCompletionChunks();
    void anthropicStream_sendsNamedEventsInOrder();
    void latency_delaysTheAnswer();
    void chunkInterval_pacesStreamEvents();
    void slowStream_spacesEventsBySlowGap();

    void error503_answersInRouteShape_data();
    void error503_answersInRouteShape();
    void rateLimited429_carriesRetryAfter_data();
    void rateLimited429_carriesRetryAfter();
    void garbage_is200WithNonJsonBody();
    void reset_closesConnectionWithoutStatus();
    void reset_isATcpRst();
    void cutStream_endsWithoutTerminatingChunk();
    void cutStream_nonStreamBodyFallsShortOfContentLength();

    void hang_keepsRequestInFlightUntilClientHangsUp();
    void holdGate_holdsConcurrentCallsUntilReleased();
    void holdGate_turningOffReleasesHeld();
    void holdGate_200ConcurrentConnectionsAllArriveAndComplete();
    void schedule_switchesModeWhenPhaseEnds();
    void schedule_lastPhaseModeContinues();
    void setMode_clearsSchedule();

    void clientHangsUpMidStream_mockSurvivesAndInFlightReturnsToZero();
    void clientHangsUpWhileHeld_dropsOnlyThatCall();
    void clientHangsUpDuringLatency_endsInFlight();

    void destroyingMock_withOpenCalls_closesThemCleanly();
    void counters_countPerPathAndReset();
    void lastRequest_recordsHeadersAndBody();

private:
    MockProvider *mock() const { return m_mock->service(); }
    quint16 port() const { return mock()->port(); }
    LoopbackResponse post(const char *path, const QByteArray &body, const HeaderList &headers = {}) const
    {
        HeaderList all{{"Content-Type", "application/json"}};
        all += headers;
        return fetch(port(), "POST", path, all, body);
    }

    std::unique_ptr<ServiceThread<MockProvider>> m_mock;
};

void tst_MockProvider::init()
{
    m_mock = std::make_unique<ServiceThread<MockProvider>>(u"mock"_s, [] { return new MockProvider; });
    QVERIFY(mock()->isListening());
}

void tst_MockProvider::cleanup()
{
    m_mock.reset();
}

void tst_MockProvider::mock_runsOnItsOwnThreadAndListensOnLoopback()
{
    QVERIFY(mock()->thread() != QThread::currentThread());
    QVERIFY(mock()->port() != 0);
    QCOMPARE(mock()->openaiBaseUrl().toString(), u"http://127.0.0.1:%1/v1"_s.arg(port()));
    QCOMPARE(mock()->anthropicBaseUrl().toString(), u"http://127.0.0.1:%1"_s.arg(port()));
    // Its children (the listening server) were made on its thread too.
    const QList<QObject *> children = m_mock->blocking<QList<QObject *>>(
        [](MockProvider *mock) { return mock->children(); });
    QVERIFY(!children.isEmpty());
    for (QObject *child : children)
        QCOMPARE(child->thread(), mock()->thread());
    QCOMPARE(fetch(port(), "GET", "/v1/models").status, 200);
}

void tst_MockProvider::mock_onPortInUse_isNotListening()
{
    QTest::ignoreMessage(QtWarningMsg, QRegularExpression(u"cannot listen on port"_s));
    ServiceThread<MockProvider> second(u"mock2"_s, [taken = port()] { return new MockProvider(taken); });
    QVERIFY(!second.service()->isListening());
    QCOMPARE(second.service()->port(), quint16(0));
}

void tst_MockProvider::chat_echoesLastUserMessageWithModelIdAndUsage()
{
    const LoopbackResponse response = post(kChat, chatBody(u"hello there"_s));
    QCOMPARE(response.status, 200);
    QVERIFY(response.complete);
    QCOMPARE(response.header("content-type"), "application/json");
    const QJsonObject answer = objectOf(response.body);
    QCOMPARE(answer[u"object"_s].toString(), u"chat.completion"_s);
    QVERIFY(answer[u"id"_s].toString().startsWith(u"chatcmpl-"_s));
    QCOMPARE(answer[u"model"_s].toString(), u"gpt-test"_s);
    const QJsonObject choice = answer[u"choices"_s][0].toObject();
    QCOMPARE(choice[u"message"_s][u"role"_s].toString(), u"assistant"_s);
    QCOMPARE(choice[u"message"_s][u"content"_s].toString(), u"echo: hello there"_s);
    QCOMPARE(choice[u"finish_reason"_s].toString(), u"stop"_s);
    const QJsonObject usage = answer[u"usage"_s].toObject();
    QVERIFY(usage[u"prompt_tokens"_s].toInt() > 0);
    QVERIFY(usage[u"completion_tokens"_s].toInt() > 0);
    QCOMPARE(usage[u"total_tokens"_s].toInt(),
             usage[u"prompt_tokens"_s].toInt() + usage[u"completion_tokens"_s].toInt());
}

void tst_MockProvider::chat_differentPromptsGiveDifferentAnswers()
{
    const QJsonObject first = objectOf(post(kChat, chatBody(u"alpha"_s)).body);
    const QJsonObject second = objectOf(post(kChat, chatBody(u"beta"_s)).body);
    const QJsonObject again = objectOf(post(kChat, chatBody(u"alpha"_s)).body);
    const auto text = [](const QJsonObject &answer) {
        return answer[u"choices"_s][0][u"message"_s][u"content"_s].toString();
    };
    QCOMPARE(text(first), u"echo: alpha"_s);
    QCOMPARE(text(second), u"echo: beta"_s);
    QCOMPARE(text(again), text(first));
    // Same text, yet a fresh call: the id tells a new upstream answer from a replayed one.
    QVERIFY(again[u"id"_s].toString() != first[u"id"_s].toString());
}

void tst_MockProvider::completions_echoPromptAsTextCompletion()
{
    const QByteArray body = jsonOf({{u"model"_s, u"gpt-legacy"_s}, {u"prompt"_s, u"once upon"_s}});
    const LoopbackResponse response = post("/v1/completions", body);
    QCOMPARE(response.status, 200);
    const QJsonObject answer = objectOf(response.body);
    QCOMPARE(answer[u"object"_s].toString(), u"text_completion"_s);
    QCOMPARE(answer[u"model"_s].toString(), u"gpt-legacy"_s);
    QCOMPARE(answer[u"choices"_s][0][u"text"_s].toString(), u"echo: once upon"_s);
    QCOMPARE(answer[u"usage"_s][u"prompt_tokens"_s].toInt(), 2);
    QCOMPARE(answer[u"usage"_s][u"completion_tokens"_s].toInt(), 3);
    QCOMPARE(answer[u"usage"_s][u"total_tokens"_s].toInt(), 5);
}

void tst_MockProvider::embeddings_returnOneDeterministicVectorPerInput()
{
    const QByteArray body = jsonOf({{u"model"_s, u"embed-test"_s},
                                    {u"input"_s, QJsonArray{u"alpha"_s, u"beta"_s}}});
    const LoopbackResponse response = post("/v1/embeddings", body);
    QCOMPARE(response.status, 200);
    const QJsonObject answer = objectOf(response.body);
    QCOMPARE(answer[u"object"_s].toString(), u"list"_s);
    QCOMPARE(answer[u"model"_s].toString(), u"embed-test"_s);
    const QJsonArray data = answer[u"data"_s].toArray();
    QCOMPARE(data.size(), 2);
    QCOMPARE(data[1][u"index"_s].toInt(), 1);
    const QJsonArray alpha = data[0][u"embedding"_s].toArray();
    QVERIFY(!alpha.isEmpty());
    QVERIFY(alpha != data[1][u"embedding"_s].toArray());
    QVERIFY(answer[u"usage"_s][u"prompt_tokens"_s].toInt() > 0);

    const QByteArray single = jsonOf({{u"model"_s, u"embed-test"_s}, {u"input"_s, u"alpha"_s}});
    const QJsonObject again = objectOf(post("/v1/embeddings", single).body);
    QCOMPARE(again[u"data"_s][0][u"embedding"_s].toArray(), alpha);
}

void tst_MockProvider::messages_answersInAnthropicShapeWithUsage()
{
    const LoopbackResponse response = post(kMessages, messagesBody(u"bonjour le monde"_s));
    QCOMPARE(response.status, 200);
    QCOMPARE(response.header("Content-Type"), "application/json");
    const QJsonObject answer = objectOf(response.body);
    QCOMPARE(answer[u"type"_s].toString(), u"message"_s);
    QCOMPARE(answer[u"role"_s].toString(), u"assistant"_s);
    QVERIFY(answer[u"id"_s].toString().startsWith(u"msg_"_s));
    QCOMPARE(answer[u"model"_s].toString(), u"claude-test"_s);
    QCOMPARE(answer[u"content"_s][0][u"type"_s].toString(), u"text"_s);
    QCOMPARE(answer[u"content"_s][0][u"text"_s].toString(), u"echo: bonjour le monde"_s);
    QCOMPARE(answer[u"stop_reason"_s].toString(), u"end_turn"_s);
    QCOMPARE(answer[u"usage"_s][u"input_tokens"_s].toInt(), 3);
    QCOMPARE(answer[u"usage"_s][u"output_tokens"_s].toInt(), 4);
}

void tst_MockProvider::models_listsModels()
{
    const LoopbackResponse response = fetch(port(), "GET", "/v1/models");
    QCOMPARE(response.status, 200);
    const QJsonObject answer = objectOf(response.body);
    QCOMPARE(answer[u"object"_s].toString(), u"list"_s);
    const QJsonArray data = answer[u"data"_s].toArray();
    QVERIFY(!data.isEmpty());
    QCOMPARE(data[0][u"object"_s].toString(), u"model"_s);
    QVERIFY(!data[0][u"id"_s].toString().isEmpty());
}

void tst_MockProvider::unknownRoute_is404InOpenAIShape()
{
    const LoopbackResponse response = post("/v1/nothing-here", "{}");
    QCOMPARE(response.status, 404);
    const QJsonObject error = objectOf(response.body)[u"error"_s].toObject();
    QVERIFY(error.contains(u"message"_s) && error.contains(u"type"_s));
    QVERIFY(error.contains(u"param"_s) && error.contains(u"code"_s));
    // A known path with the wrong method is no route either.
    QCOMPARE(fetch(port(), "GET", kChat).status, 404);
}

void tst_MockProvider::invalidJson_is400InRouteShape_data()
{
    QTest::addColumn<QByteArray>("path");
    QTest::addColumn<bool>("anthropic");
    QTest::addColumn<QByteArray>("request");
    const QByteArray broken = "{\"model\": \"x\", oops";
    const QByteArray messagesNotAList = "{\"model\": \"x\", \"messages\": \"bad\"}";
    QTest::newRow("chat") << QByteArray(kChat) << false << broken;
    QTest::newRow("completions") << QByteArray("/v1/completions") << false << broken;
    QTest::newRow("embeddings") << QByteArray("/v1/embeddings") << false << broken;
    QTest::newRow("messages") << QByteArray(kMessages) << true << broken;
    QTest::newRow("chat, messages not a list") << QByteArray(kChat) << false << messagesNotAList;
    QTest::newRow("messages, messages not a list") << QByteArray(kMessages) << true << messagesNotAList;
}

void tst_MockProvider::invalidJson_is400InRouteShape()
{
    QFETCH(QByteArray, path);
    QFETCH(bool, anthropic);
    QFETCH(QByteArray, request);
    const LoopbackResponse response = post(path.constData(), request);
    QCOMPARE(response.status, 400);
    const QJsonObject body = objectOf(response.body);
    if (anthropic) {
        QCOMPARE(body[u"type"_s].toString(), u"error"_s);
        QCOMPARE(body[u"error"_s][u"type"_s].toString(), u"invalid_request_error"_s);
    } else {
        QCOMPARE(body[u"error"_s][u"type"_s].toString(), u"invalid_request_error"_s);
        QVERIFY(body[u"error"_s].toObject().contains(u"param"_s));
    }
}

void tst_MockProvider::openaiStream_sendsEachEventAsOwnChunkEndingWithDone()
{
    const LoopbackResponse response = post(kChat, chatBody(u"one two three"_s, /*stream=*/true));
    QCOMPARE(response.status, 200);
    QVERIFY(response.complete);
    QVERIFY(response.chunked);
    QCOMPARE(response.header("Content-Type"), "text/event-stream");
    QVERIFY(response.header("Content-Length").isEmpty());
    for (const QByteArray &chunk : response.chunks) {
        QVERIFY2(chunk.startsWith("data: ") && chunk.endsWith("\n\n"), chunk.constData());
        QCOMPARE(chunk.count("data: "), 1);   // one event per chunk
    }
    QCOMPARE(response.chunks.constLast(), "data: [DONE]\n\n");

    const QList<QJsonObject> events = dataEvents(response);
    QCOMPARE(events.size(), response.chunks.size() - 1);
    QCOMPARE(events.first()[u"choices"_s][0][u"delta"_s][u"role"_s].toString(), u"assistant"_s);
    QString text;
    int contentEvents = 0;
    for (const QJsonObject &event : events) {
        QCOMPARE(event[u"object"_s].toString(), u"chat.completion.chunk"_s);
        QCOMPARE(event[u"model"_s].toString(), u"gpt-test"_s);
        QCOMPARE(event[u"id"_s], events.first()[u"id"_s]);
        const QString piece = event[u"choices"_s][0][u"delta"_s][u"content"_s].toString();
        if (!piece.isEmpty())
            ++contentEvents;
        text += piece;
    }
    QCOMPARE(text, u"echo: one two three"_s);
    QVERIFY(contentEvents >= 3);
    QCOMPARE(events.constLast()[u"choices"_s][0][u"finish_reason"_s].toString(), u"stop"_s);
    QVERIFY(!events.constLast().contains(u"usage"_s));   // no usage chunk unless asked for
}

void tst_MockProvider::openaiStream_includeUsage_addsUsageChunkBeforeDone()
{
    const LoopbackResponse response = post(kChat, chatBody(u"hi"_s, true, /*includeUsage=*/true));
    QVERIFY(response.complete);
    QCOMPARE(response.chunks.constLast(), "data: [DONE]\n\n");
    const QList<QJsonObject> events = dataEvents(response);
    QVERIFY(events.size() >= 6);   // role, at least 3 pieces, finish, usage
    const QJsonObject usageChunk = events.constLast();
    QVERIFY(usageChunk[u"choices"_s].isArray());
    QVERIFY(usageChunk[u"choices"_s].toArray().isEmpty());
    QVERIFY(usageChunk[u"usage"_s][u"prompt_tokens"_s].toInt() > 0);
    QCOMPARE(usageChunk[u"usage"_s][u"completion_tokens"_s].toInt(), 2);
    QCOMPARE(events[events.size() - 2][u"choices"_s][0][u"finish_reason"_s].toString(), u"stop"_s);
    // Short replies are still split into at least three content events.
    QString text;
    for (const QJsonObject &event : events)
        text += event[u"choices"_s][0][u"delta"_s][u"content"_s].toString();
    QCOMPARE(text, u"echo: hi"_s);
}

void tst_MockProvider::completionsStream_sendsTextCompletionChunks()
{
    const QByteArray body = jsonOf({{u"model"_s, u"gpt-legacy"_s}, {u"prompt"_s, u"tell me more"_s},
                                    {u"stream"_s, true}});
    const LoopbackResponse response = post("/v1/completions", body);
    QVERIFY(response.complete);
    QCOMPARE(response.header("Content-Type"), "text/event-stream");
    QCOMPARE(response.chunks.constLast(), "data: [DONE]\n\n");
    QString text;
    const QList<QJsonObject> events = dataEvents(response);
    for (const QJsonObject &event : events) {
        QCOMPARE(event[u"object"_s].toString(), u"text_completion"_s);
        text += event[u"choices"_s][0][u"text"_s].toString();
    }
    QCOMPARE(text, u"echo: tell me more"_s);
    QCOMPARE(events.constLast()[u"choices"_s][0][u"finish_reason"_s].toString(), u"stop"_s);
}

void tst_MockProvider::anthropicStream_sendsNamedEventsInOrder()
{
    const LoopbackResponse response = post(kMessages, messagesBody(u"tell me a story"_s, true));
    QCOMPARE(response.status, 200);
    QVERIFY(response.complete);
    QCOMPARE(response.header("Content-Type"), "text/event-stream");
    const QList<NamedEvent> events = namedEvents(response);

    QList<QByteArray> names;
    QString text;
    for (const NamedEvent &event : events) {
        if (names.isEmpty() || names.constLast() != event.name)
            names += event.name;   // runs of deltas collapse to one name
        QCOMPARE(event.data[u"type"_s].toString(), QString::fromLatin1(event.name));
        if (event.name == "content_block_delta") {
            QCOMPARE(event.data[u"delta"_s][u"type"_s].toString(), u"text_delta"_s);
            text += event.data[u"delta"_s][u"text"_s].toString();
        }
    }
    const QList<QByteArray> expected{"message_start", "content_block_start", "ping",
                                     "content_block_delta", "content_block_stop",
                                     "message_delta", "message_stop"};
    QCOMPARE(names, expected);
    QVERIFY(events.size() >= expected.size() + 2);   // at least three deltas
    QCOMPARE(text, u"echo: tell me a story"_s);
    QCOMPARE(events.first().data[u"message"_s][u"usage"_s][u"input_tokens"_s].toInt(), 4);
    QCOMPARE(events.first().data[u"message"_s][u"model"_s].toString(), u"claude-test"_s);
    const NamedEvent &delta = events[events.size() - 2];
    QCOMPARE(delta.data[u"usage"_s][u"output_tokens"_s].toInt(), 5);
    QCOMPARE(delta.data[u"delta"_s][u"stop_reason"_s].toString(), u"end_turn"_s);
}

void tst_MockProvider::latency_delaysTheAnswer()
{
    mock()->setLatency(300ms);
    const LoopbackResponse response = post(kChat, chatBody(u"wait"_s));
    QCOMPARE(response.status, 200);
    const qint64 elapsedMs = response.elapsedNs / 1'000'000;
    QVERIFY2(elapsedMs >= 290, QByteArray::number(elapsedMs).constData());
}

void tst_MockProvider::chunkInterval_pacesStreamEvents()
{
    mock()->setChunkInterval(60ms);
    LoopbackClient call(port(), "POST", kChat, {}, chatBody(u"one two three"_s, true));
    call.start();
    QTRY_VERIFY_WITH_TIMEOUT(call.isFinished(), 10000);
    QVERIFY(call.response().complete);
    const qsizetype gaps = call.response().chunks.size() - 1;
    QVERIFY(gaps >= 4);
    const qint64 spanMs = call.response().firstToLastChunkMs();
    QVERIFY2(spanMs >= gaps * 60 * 9 / 10, QByteArray::number(spanMs).constData());
}

void tst_MockProvider::slowStream_spacesEventsBySlowGap()
{
    mock()->setMode(Mode::SlowStream);
    mock()->setSlowGap(150ms);
    LoopbackClient call(port(), "POST", kMessages, {}, messagesBody(u"slowly"_s, true));
    call.start();
    QTRY_VERIFY_WITH_TIMEOUT(call.isFinished(), 20000);
    QVERIFY(call.response().complete);
    const qsizetype gaps = call.response().chunks.size() - 1;
    const qint64 spanMs = call.response().firstToLastChunkMs();
    QVERIFY2(spanMs >= gaps * 150 * 9 / 10, QByteArray::number(spanMs).constData());
}

void tst_MockProvider::error503_answersInRouteShape_data()
{
    QTest::addColumn<QByteArray>("path");
    QTest::addColumn<QByteArray>("request");
    QTest::addColumn<bool>("anthropic");
    QTest::newRow("chat") << QByteArray(kChat) << chatBody(u"x"_s) << false;
    QTest::newRow("chat stream") << QByteArray(kChat) << chatBody(u"x"_s, true) << false;
    QTest::newRow("messages") << QByteArray(kMessages) << messagesBody(u"x"_s) << true;
}

void tst_MockProvider::error503_answersInRouteShape()
{
    QFETCH(QByteArray, path);
    QFETCH(QByteArray, request);
    QFETCH(bool, anthropic);
    mock()->setMode(Mode::Error503);
    const LoopbackResponse response = post(path.constData(), request);
    QCOMPARE(response.status, 503);
    QVERIFY(response.complete);
    QCOMPARE(response.header("Content-Type"), "application/json");
    const QJsonObject error = objectOf(response.body);
    if (anthropic) {
        QCOMPARE(error[u"type"_s].toString(), u"error"_s);
        QCOMPARE(error[u"error"_s][u"type"_s].toString(), u"overloaded_error"_s);
    } else {
        QCOMPARE(error[u"error"_s][u"type"_s].toString(), u"server_error"_s);
        QVERIFY(!error[u"error"_s][u"message"_s].toString().isEmpty());
    }
}

void tst_MockProvider::rateLimited429_carriesRetryAfter_data()
{
    QTest::addColumn<QByteArray>("path");
    QTest::addColumn<QByteArray>("request");
    QTest::addColumn<QString>("errorType");
    QTest::newRow("chat") << QByteArray(kChat) << chatBody(u"x"_s) << u"requests"_s;
    QTest::newRow("messages") << QByteArray(kMessages) << messagesBody(u"x"_s) << u"rate_limit_error"_s;
}

void tst_MockProvider::rateLimited429_carriesRetryAfter()
{
    QFETCH(QByteArray, path);
    QFETCH(QByteArray, request);
    QFETCH(QString, errorType);
    mock()->setMode(Mode::RateLimited429);
    const LoopbackResponse response = post(path.constData(), request);
    QCOMPARE(response.status, 429);
    QCOMPARE(response.header("retry-after"), "1");
    QCOMPARE(objectOf(response.body)[u"error"_s][u"type"_s].toString(), errorType);
}

void tst_MockProvider::garbage_is200WithNonJsonBody()
{
    mock()->setMode(Mode::Garbage);
    const LoopbackResponse response = post(kChat, chatBody(u"x"_s));
    QCOMPARE(response.status, 200);
    QVERIFY(response.complete);
    QCOMPARE(response.header("Content-Type"), "application/json");
    QCOMPARE(response.body, "<<garbage>>");
    QJsonParseError error;
    QJsonDocument::fromJson(response.body, &error);
    QVERIFY(error.error != QJsonParseError::NoError);
}

void tst_MockProvider::reset_closesConnectionWithoutStatus()
{
    mock()->setMode(Mode::Reset);
    const LoopbackResponse response = post(kChat, chatBody(u"x"_s));
    QVERIFY(response.connectionClosed);
    QCOMPARE(response.status, 0);
    QVERIFY(!response.complete);
    QCOMPARE(mock()->callCount(), 1);
    QTRY_COMPARE(mock()->inFlight(), 0);
}

void tst_MockProvider::reset_isATcpRst()
{
    const QByteArray body = chatBody(u"x"_s);
    const QByteArray request = "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: "
                               + QByteArray::number(body.size()) + "\r\n\r\n" + body;
    mock()->setMode(Mode::Reset);
    QCOMPARE(rawEnding(port(), request), ECONNRESET);
    // A cut stream, by contrast, ends with an ordinary close after its partial answer.
    mock()->setMode(Mode::CutStream);
    QCOMPARE(rawEnding(port(), request), 0);
}

void tst_MockProvider::cutStream_endsWithoutTerminatingChunk()
{
    const QByteArray body = chatBody(u"one two three four five"_s, true);
    const qsizetype fullChunks = post(kChat, body).chunks.size();
    mock()->setMode(Mode::CutStream);
    const LoopbackResponse response = post(kChat, body);
    QCOMPARE(response.status, 200);
    QVERIFY(response.chunked);
    QVERIFY(response.connectionClosed);
    QVERIFY(!response.complete);
    QVERIFY(!response.chunks.isEmpty());
    QVERIFY2(response.chunks.size() < fullChunks - 1, QByteArray::number(response.chunks.size()).constData());
    QVERIFY(!response.body.contains("[DONE]"));
    QTRY_COMPARE(mock()->inFlight(), 0);
}

void tst_MockProvider::cutStream_nonStreamBodyFallsShortOfContentLength()
{
    mock()->setMode(Mode::CutStream);
    const LoopbackResponse response = post(kMessages, messagesBody(u"x"_s));
    QCOMPARE(response.status, 200);
    QVERIFY(!response.chunked);
    QVERIFY(response.connectionClosed);
    QVERIFY(!response.complete);
    QVERIFY(!response.body.isEmpty());
    QVERIFY(response.body.size() < response.header("Content-Length").toLongLong());
}

void tst_MockProvider::hang_keepsRequestInFlightUntilClientHangsUp()
{
    mock()->setMode(Mode::Hang);
    LoopbackClient hung(port(), "POST", kChat, {}, chatBody(u"x"_s));
    hung.start();
    QTRY_COMPARE(mock()->inFlight(), 1);
    QCOMPARE(mock()->callCount(), 1);

    // The mock keeps serving others while the hung call waits.
    mock()->setMode(Mode::Ok);
    QCOMPARE(post(kChat, chatBody(u"y"_s)).status, 200);
    QVERIFY(!hung.isFinished());
    QCOMPARE(hung.response().status, 0);
    QTRY_COMPARE(mock()->inFlight(), 1);   // "y" ends on the mock's thread just after its answer left

    hung.hangUp();
    QTRY_COMPARE(mock()->inFlight(), 0);
    QCOMPARE(mock()->maxInFlight(), 2);
}

void tst_MockProvider::holdGate_holdsConcurrentCallsUntilReleased()
{
    mock()->setHoldAnswers(true);
    std::vector<std::unique_ptr<LoopbackClient>> calls;
    for (int i = 0; i < 20; ++i) {
        calls.push_back(std::make_unique<LoopbackClient>(port(), "POST", kChat, HeaderList{},
                                                   chatBody(u"prompt %1"_s.arg(i))));
        calls.back()->start();
    }
    QTRY_COMPARE(mock()->inFlight(), 20);
    QTRY_COMPARE(mock()->heldCount(), 20);
    QCOMPARE(mock()->maxInFlight(), 20);
    QCOMPARE(mock()->callCount(), 20);
    for (const auto &call : calls)
        QVERIFY(!call->isFinished());

    mock()->releaseHeld();
    QTRY_VERIFY(std::all_of(calls.cbegin(), calls.cend(), [](const auto &call) { return call->isFinished(); }));
    for (int i = 0; i < 20; ++i) {
        const LoopbackResponse &response = calls[i]->response();
        QCOMPARE(response.status, 200);
        QVERIFY(response.complete);
        QCOMPARE(objectOf(response.body)[u"choices"_s][0][u"message"_s][u"content"_s].toString(),
                 u"echo: prompt %1"_s.arg(i));
    }
    QTRY_COMPARE(mock()->inFlight(), 0);
    QCOMPARE(mock()->heldCount(), 0);
    QCOMPARE(mock()->maxInFlight(), 20);
}

void tst_MockProvider::holdGate_turningOffReleasesHeld()
{
    mock()->setHoldAnswers(true);
    LoopbackClient call(port(), "POST", kChat, {}, chatBody(u"x"_s));
    call.start();
    QTRY_COMPARE(mock()->heldCount(), 1);
    mock()->setHoldAnswers(false);
    QTRY_VERIFY(call.isFinished());
    QCOMPARE(call.response().status, 200);
    // With the gate off, the next call is answered straight away.
    QCOMPARE(post(kChat, chatBody(u"y"_s)).status, 200);
    QCOMPARE(mock()->heldCount(), 0);
}

void tst_MockProvider::holdGate_200ConcurrentConnectionsAllArriveAndComplete()
{
    constexpr int kCalls = 200;
    mock()->setHoldAnswers(true);
    std::vector<std::unique_ptr<LoopbackClient>> calls;
    for (int i = 0; i < kCalls; ++i) {
        calls.push_back(std::make_unique<LoopbackClient>(port(), "POST", kChat, HeaderList{},
                                                   chatBody(u"x"_s, true)));
        calls.back()->start();
    }
    QTRY_COMPARE_WITH_TIMEOUT(mock()->inFlight(), kCalls, 30000);
    QCOMPARE(mock()->maxInFlight(), kCalls);
    mock()->releaseHeld();
    QTRY_VERIFY_WITH_TIMEOUT(std::all_of(calls.cbegin(), calls.cend(),
                                         [](const auto &call) { return call->isFinished(); }), 30000);
    for (const auto &call : calls)
        QVERIFY(call->response().complete);
    QTRY_COMPARE(mock()->inFlight(), 0);
    QCOMPARE(mock()->callCount(QString::fromLatin1(kChat)), kCalls);
}

void tst_MockProvider::schedule_switchesModeWhenPhaseEnds()
{
    mock()->setSchedule({{500ms, Mode::Ok}, {1h, Mode::Error503}});
    QCOMPARE(post(kChat, chatBody(u"x"_s)).status, 200);
    QTRY_COMPARE_WITH_TIMEOUT(post(kChat, chatBody(u"x"_s)).status, 503, 10000);
    QCOMPARE(mock()->currentMode(), Mode::Error503);
}

void tst_MockProvider::schedule_lastPhaseModeContinues()
{
    QElapsedTimer clock;
    clock.start();
    mock()->setSchedule({{50ms, Mode::Error503}, {50ms, Mode::RateLimited429}});
    QTRY_VERIFY(clock.elapsed() > 200);   // well past the end of the schedule
    QCOMPARE(mock()->currentMode(), Mode::RateLimited429);
    QCOMPARE(post(kChat, chatBody(u"x"_s)).status, 429);
    QCOMPARE(post(kMessages, messagesBody(u"x"_s)).status, 429);
}

void tst_MockProvider::setMode_clearsSchedule()
{
    mock()->setSchedule({{1h, Mode::Error503}});
    QCOMPARE(post(kChat, chatBody(u"x"_s)).status, 503);
    mock()->setMode(Mode::Garbage);
    const LoopbackResponse response = post(kChat, chatBody(u"x"_s));
    QCOMPARE(response.status, 200);
    QCOMPARE(response.body, "<<garbage>>");
}

void tst_MockProvider::clientHangsUpMidStream_mockSurvivesAndInFlightReturnsToZero()
{
    mock()->setChunkInterval(50ms);
    LoopbackClient call(port(), "POST", kMessages, {}, messagesBody(u"a long story to tell"_s, true));
    connect(&call, &LoopbackClient::chunkReceived, &call, &LoopbackClient::hangUp);
    call.start();
    QTRY_VERIFY(call.isFinished());
    QCOMPARE(call.response().chunks.size(), 1);
    QVERIFY(!call.response().complete);
    QTRY_COMPARE(mock()->inFlight(), 0);

    // Still serving, streams included.
    mock()->setChunkInterval(0ms);
    const LoopbackResponse next = post(kMessages, messagesBody(u"again"_s, true));
    QVERIFY(next.complete);
    QCOMPARE(mock()->callCount(QString::fromLatin1(kMessages)), 2);
}

void tst_MockProvider::clientHangsUpWhileHeld_dropsOnlyThatCall()
{
    mock()->setHoldAnswers(true);
    std::vector<std::unique_ptr<LoopbackClient>> calls;
    for (int i = 0; i < 3; ++i) {
        calls.push_back(std::make_unique<LoopbackClient>(port(), "POST", kChat, HeaderList{},
                                                   chatBody(u"held %1"_s.arg(i), i == 2)));
        calls.back()->start();
    }
    QTRY_COMPARE(mock()->heldCount(), 3);
    calls[1]->hangUp();
    QTRY_COMPARE(mock()->heldCount(), 2);
    QTRY_COMPARE(mock()->inFlight(), 2);

    mock()->releaseHeld();
    QTRY_VERIFY(calls[0]->isFinished() && calls[2]->isFinished());
    QCOMPARE(calls[0]->response().status, 200);
    QVERIFY(calls[0]->response().complete);
    QVERIFY(calls[2]->response().complete);   // the stream too
    QTRY_COMPARE(mock()->inFlight(), 0);
    QCOMPARE(mock()->callCount(), 3);
}

void tst_MockProvider::clientHangsUpDuringLatency_endsInFlight()
{
    mock()->setLatency(10s);
    LoopbackClient call(port(), "POST", kChat, {}, chatBody(u"x"_s));
    call.start();
    QTRY_COMPARE(mock()->inFlight(), 1);
    call.hangUp();
    QTRY_COMPARE(mock()->inFlight(), 0);
    mock()->setLatency(0ms);
    QCOMPARE(post(kChat, chatBody(u"x"_s)).status, 200);
}

void tst_MockProvider::destroyingMock_withOpenCalls_closesThemCleanly()
{
    // One call streaming slowly, one held at the gate, one hung: then the mock goes away.
    mock()->setMode(Mode::SlowStream);
    mock()->setSlowGap(10s);
    LoopbackClient streaming(port(), "POST", kChat, {}, chatBody(u"x"_s, true));
    streaming.start();
    QTRY_COMPARE(streaming.response().chunks.size(), 1);
    mock()->setMode(Mode::Hang);   // a request's mode is fixed on arrival: the stream goes on
    LoopbackClient hung(port(), "POST", kChat, {}, chatBody(u"y"_s));
    hung.start();
    QTRY_COMPARE(mock()->inFlight(), 2);
    mock()->setHoldAnswers(true);
    LoopbackClient held(port(), "POST", kChat, {}, chatBody(u"z"_s));
    held.start();
    QTRY_COMPARE(mock()->heldCount(), 1);

    m_mock.reset();
    for (LoopbackClient *call : {&streaming, &hung, &held}) {
        QTRY_VERIFY(call->isFinished());
        QVERIFY(call->response().connectionClosed);
        QVERIFY(!call->response().complete);
    }
}

void tst_MockProvider::counters_countPerPathAndReset()
{
    post(kChat, chatBody(u"a"_s));
    post(kChat, chatBody(u"b"_s, true));
    post(kMessages, messagesBody(u"c"_s));
    fetch(port(), "GET", "/v1/models");
    post("/v1/unknown", "{}");
    QCOMPARE(mock()->callCount(), 5);
    QCOMPARE(mock()->callCount(QString::fromLatin1(kChat)), 2);
    QCOMPARE(mock()->callCount(QString::fromLatin1(kMessages)), 1);
    QCOMPARE(mock()->callCount(u"/v1/models"_s), 1);
    QCOMPARE(mock()->callCount(u"/v1/unknown"_s), 1);
    QCOMPARE(mock()->callCount(u"/v1/embeddings"_s), 0);
    QTRY_COMPARE(mock()->inFlight(), 0);
    QCOMPARE(mock()->maxInFlight(), 1);   // fetch() runs one call at a time

    mock()->resetCounters();
    QCOMPARE(mock()->callCount(), 0);
    QCOMPARE(mock()->callCount(QString::fromLatin1(kChat)), 0);
    QCOMPARE(mock()->maxInFlight(), 0);
}

void tst_MockProvider::lastRequest_recordsHeadersAndBody()
{
    const QByteArray body = messagesBody(u"remember me"_s);
    post(kMessages, body, {{"x-api-key", "sk-test-1"}, {"anthropic-version", "2023-06-01"}});
    QCOMPARE(mock()->lastRequestBody(), body);
    const HeaderList headers = mock()->lastRequestHeaders();
    const auto valueOf = [&headers](const QByteArray &name) {
        for (const auto &[key, value] : headers) {
            if (key.compare(name, Qt::CaseInsensitive) == 0)
                return value;
        }
        return QByteArray();
    };
    QCOMPARE(valueOf("x-api-key"), "sk-test-1");
    QCOMPARE(valueOf("anthropic-version"), "2023-06-01");
    QCOMPARE(valueOf("content-length"), QByteArray::number(body.size()));
}

QTEST_GUILESS_MAIN(tst_MockProvider)
#include "tst_mockprovider.moc"
