#pragma once

#include <memory>

#include "result.h"
#include "servicethread.h"

class Clock;
class MockProvider;
class ProxyServer;
struct ProxyConfig;

// The services `breakwater` and `breakwater exec` both start, each on a thread of its own.

// The proxy, built, listening and used on its own thread (the proxy thread, design.md). A proxy
// that cannot bind is deleted there: the service is then nullptr and `listening` says why.
std::unique_ptr<ServiceThread<ProxyServer>> startProxy(const ProxyConfig &config, const Clock &clock, Result *listening);

// --demo: the built-in mock provider stands in for both upstreams, answering as api.openai.com
// does (400 ms, a stream event every 40 ms, its real headers). Points `config`'s upstreams at it,
// and gives the field test's --timeout 5 unless one was chosen, so the Hang scenario shows the
// breaker opening while the provider hangs.
std::unique_ptr<ServiceThread<MockProvider>> startDemoProvider(ProxyConfig &config);
