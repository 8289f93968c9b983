// The canonical request key: any JSON object body, parsed from text as the proxy gets it. Its
// canonical form is a fixed point (parsing the canonical text and writing it again gives the same
// text), and a body parsed back from its canonical or indented text gets the same key as the body
// itself. Only the plain-value functions of sharing/requestkey.h are called.
//
// Qt's JSON parser is not instrumented, so libFuzzer cannot steer raw text far into it: an input
// that is not a JSON object is instead read as a recipe for one (nested objects and arrays,
// strings, integers near the edges of qint64 and of a double's exact range, any double), written
// as text and parsed. (Parsed, not used as built: Qt 6.4 orders keys with characters beyond U+FFFF
// differently in an object built with insert(), which the proxy never keys.)

#include "sharing/requestkey.h"

#include <fuzzer/FuzzedDataProvider.h>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include "fuzzsupport.h"

namespace {

QJsonValue makeValue(FuzzedDataProvider &provider, int depth);

QJsonObject makeObject(FuzzedDataProvider &provider, int depth)
{
    QJsonObject object;
    const int size = provider.ConsumeIntegralInRange(0, depth > 0 ? 6 : 0);
    for (int i = 0; i < size && provider.remaining_bytes() > 0; ++i)
        object.insert(QString::fromStdString(provider.ConsumeRandomLengthString(16)), makeValue(provider, depth - 1));
    return object;
}

QJsonValue makeValue(FuzzedDataProvider &provider, int depth)
{
    switch (provider.ConsumeIntegralInRange(0, 7)) {
    case 0: return QJsonValue::Null;
    case 1: return provider.ConsumeBool();
    case 2: return provider.ConsumeIntegral<qint64>();
    case 3: return qint64(1LL << 53) + provider.ConsumeIntegralInRange<qint64>(-2, 2);
    case 4: return provider.ConsumeFloatingPoint<double>();
    case 5: return QString::fromStdString(provider.ConsumeRandomLengthString(64));
    case 6: {
        QJsonArray array;
        const int size = provider.ConsumeIntegralInRange(0, depth > 0 ? 6 : 0);
        for (int i = 0; i < size; ++i)
            array.append(makeValue(provider, depth - 1));
        return array;
    }
    default: return makeObject(provider, depth);
    }
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***)
{
    fuzz::quietQt();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QJsonDocument document = QJsonDocument::fromJson(fuzz::bytesOf(data, size));
    QJsonObject body;
    if (document.isObject()) {
        body = document.object();
    } else {
        FuzzedDataProvider provider(data, size);
        body = QJsonDocument::fromJson(QJsonDocument(makeObject(provider, 4)).toJson()).object();
    }
    RequestKeyInput input{"/v1/chat/completions", "", "https://api.openai.com/v1", {{"authorization", "Bearer sk-fuzz"}},
                          {}, body};
    const QByteArray canonical = canonicalJson(input.body);
    const QByteArray key = requestKey(input);
    FUZZ_CHECK(key.size() == 32);

    QJsonParseError error;
    const QJsonDocument again = QJsonDocument::fromJson(canonical, &error);
    FUZZ_CHECK(error.error == QJsonParseError::NoError && again.isObject());
    FUZZ_CHECK(canonicalJson(again.object()) == canonical);
    RequestKeyInput reparsed = input;
    reparsed.body = again.object();
    FUZZ_CHECK(requestKey(reparsed) == key);

    // Indented text is the same JSON value, so the same key.
    reparsed.body = QJsonDocument::fromJson(QJsonDocument(body).toJson(QJsonDocument::Indented)).object();
    FUZZ_CHECK(requestKey(reparsed) == key);

    FUZZ_CHECK(fingerprint(key).size() == 12);
    return 0;
}
