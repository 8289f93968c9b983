// The canonical request key: any JSON object body. Its canonical form is a fixed point (parsing the
// canonical text and writing it again gives the same text), a body parsed back from its canonical
// text gets the same key as the body itself, and the key never depends on how the body was spelled
// beyond its JSON value. Only the plain-value functions of sharing/requestkey.h are called.

#include "sharing/requestkey.h"

#include <QJsonDocument>
#include <QJsonObject>

#include "fuzzsupport.h"

extern "C" int LLVMFuzzerInitialize(int *, char ***)
{
    fuzz::quietQt();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QJsonDocument document = QJsonDocument::fromJson(
        QByteArray::fromRawData(reinterpret_cast<const char *>(data), qsizetype(size)));
    if (!document.isObject())
        return 0;
    RequestKeyInput input{"/v1/chat/completions", "https://api.openai.com/v1", "Bearer sk-fuzz", "", "", "", "",
                          document.object()};
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
    reparsed.body = QJsonDocument::fromJson(document.toJson(QJsonDocument::Indented)).object();
    FUZZ_CHECK(requestKey(reparsed) == key);

    const QByteArray print = fingerprint(key);
    FUZZ_CHECK(print.size() == 12);
    return 0;
}
