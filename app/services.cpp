#include "services.h"

#include "clock.h"
#include "mockprovider.h"
#include "proxyconfig.h"
#include "proxyserver.h"

std::unique_ptr<ServiceThread<ProxyServer>> startProxy(const ProxyConfig &config, const Clock &clock, Result *listening)
{
    return std::make_unique<ServiceThread<ProxyServer>>(QStringLiteral("proxy"), [&] {
        auto *server = new ProxyServer(config, clock);
        *listening = server->listen();
        if (!listening->ok()) {
            delete server;
            return static_cast<ProxyServer *>(nullptr);
        }
        return server;
    });
}

std::unique_ptr<ServiceThread<MockProvider>> startDemoProvider(ProxyConfig &config)
{
    auto mock = std::make_unique<ServiceThread<MockProvider>>(QStringLiteral("mock-provider"), [] {
        auto *provider = new MockProvider;
        provider->setLatency(std::chrono::milliseconds(400));
        provider->setChunkInterval(std::chrono::milliseconds(40));
        // Answer with api.openai.com's own extra headers (two Set-Cookie lines among them), so the
        // demo shows what Breakwater does with a real provider's wire.
        provider->setExtraHeaders(MockProvider::realProviderHeaders());
        return provider;
    });
    config.openaiUpstream = mock->service()->openaiBaseUrl();
    config.anthropicUpstream = mock->service()->anthropicBaseUrl();
    config.geminiUpstream = mock->service()->anthropicBaseUrl();   // Gemini's base has no path either
    // The mock answers within a second, so the demo uses the field test's --timeout 5 unless one
    // was chosen: its Hang scenario then shows the breaker opening while the provider hangs,
    // instead of timeouts that end after the provider has recovered.
    if (config.upstreamTimeout == defaults::kUpstreamTimeout)
        config.upstreamTimeout = std::chrono::seconds(5);
    return mock;
}
