#pragma once

#include "accounting/callrecord.h"
#include "loopbackclient.h"
#include "mockprovider.h"
#include "proxyconfig.h"
#include "proxyserver.h"
#include "servicethread.h"
#include "upstream/circuitbreaker.h"

#include <QList>
#include <QObject>

#include <memory>

// A real Breakwater in the test process: the mock provider on its own thread, the proxy on its own
// thread (as in the app), both on loopback port 0. Records and breaker transitions published by
// the proxy are collected on the test thread.
class ProxyHarness final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ProxyHarness)
public:
    // `configure` may change the config after the mock's URLs were filled in.
    explicit ProxyHarness(const std::function<void(ProxyConfig &)> &configure = {},
                          const Clock *clock = nullptr);
    ~ProxyHarness() override;

    MockProvider *mock() const { return m_mock->service(); }
    ProxyServer *proxy() const { return m_proxy->service(); }
    quint16 port() const { return m_port; }
    const ProxyConfig &config() const { return m_config; }

    LoopbackResponse post(const QByteArray &path, const QByteArray &body, const HeaderList &headers = {});
    LoopbackResponse get(const QByteArray &path);
    // A call to Breakwater's own routes (/breakwater/...) as their owner: `headers` (JSON by
    // default) with the harness's control token (kTestControlToken unless `configure` set another).
    LoopbackResponse control(const QByteArray &method, const QByteArray &path, const QByteArray &body = {},
                             const HeaderList &headers = {{"Content-Type", "application/json"}}) const;
    // `Authorization: Bearer TOKEN` with the proxy's control token.
    HeaderList controlAuth() const;
    // A call that is started now and completes asynchronously (owned by the harness).
    LoopbackClient *start(const QByteArray &path, const QByteArray &body, const HeaderList &headers = {});

    QList<CallRecord> records;
    QList<BreakerTransition> transitions;
    int countOutcome(Outcome outcome) const;
    // Callers attached to upstream calls in progress, counted on the proxy thread.
    int ridersWaiting() const
    {
        return onProxyThread<int>([](ProxyServer *proxy) { return proxy->ridersInFlight(); });
    }

    // Runs `call` on the proxy thread and returns its result.
    template <typename R>
    R onProxyThread(std::function<R(ProxyServer *)> call) const { return m_proxy->template blocking<R>(call); }

private:
    SystemClock m_systemClock;
    ProxyConfig m_config;
    std::unique_ptr<ServiceThread<MockProvider>> m_mock;
    std::unique_ptr<ServiceThread<ProxyServer>> m_proxy;
    quint16 m_port = 0;
};

// The control token every harness gives its proxy (ProxyConfig::controlToken), unless told otherwise.
inline const QByteArray kTestControlToken = "test-control-token-0123456789abcdefghijklmnopqrstuvwxyz";

// A chat request body with one user message.
QByteArray chatBody(const QString &prompt, bool stream = false, const QString &model = QStringLiteral("gpt-4o-mini"));
QByteArray messagesBody(const QString &prompt, bool stream = false);
inline const HeaderList kOpenAiAuth{{"Authorization", "Bearer sk-test-1"}, {"Content-Type", "application/json"}};
inline const HeaderList kAnthropicAuth{{"x-api-key", "sk-ant-test-1"}, {"anthropic-version", "2023-06-01"},
                                       {"Content-Type", "application/json"}};
