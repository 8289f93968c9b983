#pragma once

#include <QJsonObject>

class FaultInjector;
class FleetFaults;
class ResponseWriter;
struct IncomingRequest;

// The fault-injection control API (route Kind::Faults) and what /healthz says of armed rules.
//   GET    /breakwater/faults        the armed rules: {"armed": N, "faults": [rule, ...]}
//   POST   /breakwater/faults        arms {"rule": "TEXT"} or the rule's fields; 201 with the rule;
//                                    with "fleet": true on every instance of the fleet (`fleet`)
//   DELETE /breakwater/faults        disarms every rule: {"cleared": N}
//   GET    /breakwater/faults/{id}   one rule
//   DELETE /breakwater/faults/{id}   disarms it: {"deleted": rule}
// Answers are JSON; errors are OpenAI's shape with x-should-retry: false (400 for a bad rule, 404
// for an unknown id, 405). Who may call it is the control gate's to decide (controlgate.h), before
// this is called. Runs on the proxy thread, as every handler does. `fleet` (null without
// --shared-state) arms fleet rules (disarmed by hand, one leaves every instance: FleetFaults).
void answerFaults(FaultInjector &faults, const IncomingRequest &request, ResponseWriter &writer,
                  FleetFaults *fleet = nullptr);

// GET /healthz: {"status":"ok", "faults_armed": N, "faults": [label, ...]}, always 200, so that
// an armed rule is never forgotten; "paused": true while admission is paused (live control).
// `extra` adds keys (the fleet's shared_state).
void answerHealth(FaultInjector &faults, bool admissionPaused, ResponseWriter &writer, const QJsonObject &extra = {});
