#pragma once

class ProxyServer;
class ResponseWriter;
struct IncomingRequest;

// The live control API, Breakwater's own routes under /breakwater/ that change a running proxy
// (proxyroutes.cpp, Kind::Control; the README's "Live control"):
//   GET /breakwater/settings               the live values (LiveSettings::toJson)
//   PUT|PATCH /breakwater/settings         any subset of them; every value checked as the command
//                                          line checks it, a bad one a 400 naming it, nothing changed
//   POST /breakwater/breaker/{openai|anthropic}/{open|close|probe}
//   POST /breakwater/admission/{pause|resume}
// Who may call them (the owner's token, no change from a web page) is the control gate's to decide
// (controlgate.h), before this is called. Answers are JSON; errors are in OpenAI's shape with
// x-should-retry: false. Runs on the proxy thread, like the rest of the proxy.
void answerControl(ProxyServer &proxy, const IncomingRequest &request, ResponseWriter writer);
