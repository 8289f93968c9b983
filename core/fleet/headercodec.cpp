#include "fleet/headercodec.h"

namespace HeaderCodec {

void write(QDataStream &out, const HeaderList &headers)
{
    out << qint32(headers.size());
    for (const auto &[name, value] : headers)
        out << name << value;
}

bool read(QDataStream &in, HeaderList &headers)
{
    qint32 count = 0;
    in >> count;
    if (count < 0 || count > kMaxHeaders) {
        in.setStatus(QDataStream::ReadCorruptData);
        return false;
    }
    headers.clear();
    headers.reserve(count);
    for (qint32 i = 0; i < count && in.status() == QDataStream::Ok; ++i) {
        QByteArray name;
        QByteArray value;
        in >> name >> value;
        headers.append({name, value});
    }
    return in.status() == QDataStream::Ok;
}

} // namespace HeaderCodec
