#pragma once

#include <QString>
#include <QStringList>

#include "accounting/callrecord.h"

class QSqlQuery;

// The columns of the call log's `calls` table, in one list: each column's name and SQL type as on
// disk, how a CallRecord field is written to it and how it is read back. The CREATE TABLE, the
// INSERT and the SELECT that reads rows back are all generated from that list, so they cannot fall
// out of step. Its order is the order on disk, which users' databases depend on: columns are never
// renamed, retyped or reordered, only appended (each with a migration in calllog.cpp that adds it).
namespace CallColumns {

// Schema 1 has the first 27 columns; schema 2 adds `ended`, schema 3 `injected`.
constexpr qsizetype kSchema1Columns = 27;
constexpr qsizetype kSchema2Columns = 28;
constexpr qsizetype kSchema3Columns = 29;
// Schema 4 adds what was inside the call: method, target, both header blocks, the key's inputs,
// the retry attempt, the upstream's error body and the stream's timing and verdict (all there are so far).
constexpr qsizetype kSchema4Columns = kSchema3Columns + 11;
// Schema 5 adds the team member who made the call (team/membergate.h).
constexpr qsizetype kSchema5Columns = kSchema4Columns + 1;
// Schema 6 adds the upstream a fallback answered for (routing/upstreamroutes.h).
constexpr qsizetype kSchema6Columns = kSchema5Columns + 1;
// Schema 7 adds the fallback a refused attempt's callers went to (Outcome::FellBack).
constexpr qsizetype kSchema7Columns = kSchema6Columns + 1;

// CREATE TABLE calls with the id and the first `columns` columns, byte for byte as it was shipped.
QString createTable(qsizetype columns);

// ALTER TABLE calls ADD COLUMN ..., one statement for each column from `from` up to `to`: a
// migration's columns, as they are listed here.
QStringList addColumns(qsizetype from, qsizetype to);

// INSERT INTO calls (every column) VALUES (?, ...), for bind().
QString insertStatement();
// Binds one record to a prepared insertStatement(). Bodies are written only when `storeBodies`,
// with credentials redacted.
void bind(QSqlQuery &insert, const CallRecord &record, bool storeBodies);

// SELECT every column FROM calls, followed by `clauses` ("ORDER BY id DESC LIMIT ?"), for read().
QString selectStatement(const QString &clauses);
// The record in the current row of a selectStatement() query. Columns derived from the times
// (upstream_ms, ttfb_ms, total_ms) and from the outcome (ended) are for people querying the file
// and are not read back.
CallRecord read(const QSqlQuery &query);

} // namespace CallColumns
