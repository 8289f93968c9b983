#pragma once

#include <QJsonObject>

struct CallRecord;

// A CallRecord as JSON and back, for whoever watches a Breakwater from elsewhere: the event
// stream of GET /breakwater/events writes records with it, and `breakwater --attach` reads them
// back into the same CallRecord the dashboard draws. Every field is written under its own name
// (camelCase, as in the struct), so callRecordFromJson(callRecordToJson(r)) gives r again; a
// field missing when read keeps its default, so an older or newer Breakwater on the other end
// still gives a record. Byte fields are written as UTF-8 text: they are names, ids and redacted
// headers (and with --log-bodies the bodies, which are JSON).
QJsonObject callRecordToJson(const CallRecord &record);
CallRecord callRecordFromJson(const QJsonObject &json);
