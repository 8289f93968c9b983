#pragma once

#include <QJsonObject>

#include "proxysnapshot.h"
#include "upstream/circuitbreaker.h"

// The other values of GET /breakwater/events besides call records (accounting/callrecordjson.h),
// read back by `breakwater --attach`:
//   - a breaker transition, both ways;
//   - the live figures: written as /breakwater/stats writes them (Metrics::statsJson), and read
//     back here into the ProxySnapshot the dashboard takes. One form on the wire for both, so the
//     stream says no more and no less than the stats route does.
// What the JSON lacks keeps its default, so an older Breakwater on the other end still gives a snapshot.
QJsonObject transitionToJson(const BreakerTransition &transition);
BreakerTransition transitionFromJson(const QJsonObject &json);

ProxySnapshot snapshotFromStats(const QJsonObject &stats);
