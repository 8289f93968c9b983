#pragma once

#include <QDataStream>

#include "http/apierror.h"   // HeaderList

// How the fleet writes a header list into the values it keeps in Redis (a shared answer, a flight's
// head): a count, then name and value pairs. Another instance's bytes are input like any other, so
// reading is bounded: a count past kMaxHeaders, or bytes that run out, fail the stream.
namespace HeaderCodec {
constexpr qint32 kMaxHeaders = 1000;

void write(QDataStream &out, const HeaderList &headers);
// False (and the stream set to ReadCorruptData) for a count out of bounds or short bytes.
bool read(QDataStream &in, HeaderList &headers);
} // namespace HeaderCodec
