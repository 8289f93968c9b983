#include "proxyharness.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace Qt::StringLiterals;

ProxyHarness::ProxyHarness(const std::function<void(ProxyConfig &)> &configure, const Clock *clock)
{
    qRegisterMetaType<CallRecord>();
    qRegisterMetaType<BreakerTransition>();
    m_mock = std::make_unique<ServiceThread<MockProvider>>(u"mock"_s, [] { return new MockProvider; });
    m_config.listenPort = 0;
    m_config.openaiUpstream = mock()->openaiBaseUrl();
    m_config.anthropicUpstream = mock()->anthropicBaseUrl();
    m_config.controlToken = kTestControlToken;
    if (configure)
        configure(m_config);
    const Clock &useClock = clock ? *clock : m_systemClock;
    m_proxy = std::make_unique<ServiceThread<ProxyServer>>(u"proxy"_s, [this, &useClock] {
        auto *server = new ProxyServer(m_config, useClock);
        if (const Result listening = server->listen(); !listening.ok())
            qFatal("proxy cannot listen: %s", qPrintable(listening.error()));
        return server;
    });
    m_port = proxy()->port();
    connect(proxy(), &ProxyServer::callCompleted, this, [this](const CallRecord &r) { records.append(r); },
            Qt::QueuedConnection);
    connect(proxy(), &ProxyServer::breakerChanged, this,
            [this](const BreakerTransition &t) { transitions.append(t); }, Qt::QueuedConnection);
}

ProxyHarness::~ProxyHarness()
{
    m_proxy.reset();   // first: it calls the mock
    m_mock.reset();
}

LoopbackResponse ProxyHarness::post(const QByteArray &path, const QByteArray &body, const HeaderList &headers)
{
    return fetch(m_port, "POST", path, headers.isEmpty() ? kOpenAiAuth : headers, body);
}

LoopbackResponse ProxyHarness::get(const QByteArray &path)
{
    return fetch(m_port, "GET", path, kOpenAiAuth);
}

LoopbackResponse ProxyHarness::control(const QByteArray &method, const QByteArray &path, const QByteArray &body,
                                       const HeaderList &headers) const
{
    return fetch(m_port, method, path, controlAuth() + headers, body);
}

HeaderList ProxyHarness::controlAuth() const
{
    return {{"Authorization", "Bearer " + m_config.controlToken}};
}

LoopbackClient *ProxyHarness::start(const QByteArray &path, const QByteArray &body, const HeaderList &headers)
{
    auto *call = new LoopbackClient(m_port, "POST", path, headers.isEmpty() ? kOpenAiAuth : headers, body, this);
    call->start();
    return call;
}

int ProxyHarness::countOutcome(Outcome outcome) const
{
    return int(std::count_if(records.begin(), records.end(),
                             [outcome](const CallRecord &r) { return r.outcome == outcome; }));
}

QByteArray chatBody(const QString &prompt, bool stream, const QString &model)
{
    QJsonObject body{{u"model"_s, model},
                     {u"messages"_s, QJsonArray{QJsonObject{{u"role"_s, u"user"_s}, {u"content"_s, prompt}}}}};
    if (stream)
        body.insert(u"stream"_s, true);
    return QJsonDocument(body).toJson(QJsonDocument::Compact);
}

QByteArray messagesBody(const QString &prompt, bool stream)
{
    QJsonObject body{{u"model"_s, u"claude-3-5-haiku-latest"_s},
                     {u"max_tokens"_s, 256},
                     {u"messages"_s, QJsonArray{QJsonObject{{u"role"_s, u"user"_s}, {u"content"_s, prompt}}}}};
    if (stream)
        body.insert(u"stream"_s, true);
    return QJsonDocument(body).toJson(QJsonDocument::Compact);
}
