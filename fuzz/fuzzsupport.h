#pragma once

// What every fuzz target shares: Qt's messages silenced (a parser's warning for each input would
// drown libFuzzer's output and slow it down; a qFatal still aborts, so libFuzzer reports it), an
// invariant check that aborts with the broken condition named, a scratch file for the parsers
// that only read files, and the cutting of a byte stream into the reads a parser is fed.

#include <cstdio>
#include <cstdlib>

#include <fuzzer/FuzzedDataProvider.h>

#include <QByteArray>
#include <QByteArrayView>
#include <QList>
#include <QFile>
#include <QString>
#include <QTemporaryDir>

#define FUZZ_CHECK(condition) ((condition) ? void() : fuzz::fail(#condition, __FILE__, __LINE__))

namespace fuzz {

[[noreturn]] inline void fail(const char *condition, const char *file, int line)
{
    std::fprintf(stderr, "%s:%d: invariant broken: %s\n", file, line, condition);
    std::abort();
}

// The input as bytes, without a copy: valid only during LLVMFuzzerTestOneInput.
inline QByteArray bytesOf(const uint8_t *data, size_t size)
{
    return QByteArray::fromRawData(reinterpret_cast<const char *>(data), qsizetype(size));
}

inline void quietQt()
{
    qInstallMessageHandler([](QtMsgType type, const QMessageLogContext &, const QString &message) {
        if (type == QtFatalMsg) {
            std::fprintf(stderr, "qFatal: %s\n", qPrintable(message));
            std::abort();
        }
    });
}

// One file in a private temporary folder, overwritten by each input; it lives as long as the
// process (a fuzz target runs millions of inputs, so it is made once, never per input).
class ScratchFile
{
public:
    explicit ScratchFile(const QString &name) : m_path(m_dir.filePath(name))
    {
        if (!m_dir.isValid())
            fail("the scratch folder could be made", __FILE__, __LINE__);
    }
    const QString &path() const { return m_path; }
    void write(const uint8_t *data, size_t size) const
    {
        QFile file(m_path);
        if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate)
            || file.write(reinterpret_cast<const char *>(data), qint64(size)) != qint64(size))
            fail("the scratch file could be written", __FILE__, __LINE__);
    }

private:
    QTemporaryDir m_dir;
    QString m_path;
};

// How a stream is cut into reads: 1 to 8 lengths of 1 to `maxPiece` bytes, used in turn. Consumed
// first, so they come from the input's last bytes and the rest is the stream.
inline QList<qsizetype> consumeCuts(FuzzedDataProvider &provider, qsizetype maxPiece)
{
    QList<qsizetype> cuts(provider.ConsumeIntegralInRange<int>(1, 8));
    for (qsizetype &cut : cuts)
        cut = provider.ConsumeIntegralInRange<qsizetype>(1, maxPiece);
    return cuts;
}

// Calls feed(piece) for consecutive pieces of `stream`, their lengths taken from `cuts` in turn.
template <typename Feed>
void feedInCuts(QByteArrayView stream, const QList<qsizetype> &cuts, Feed &&feed)
{
    qsizetype pos = 0;
    for (qsizetype i = 0; pos < stream.size(); ++i) {
        const qsizetype length = qMin(cuts.at(i % cuts.size()), stream.size() - pos);
        feed(stream.sliced(pos, length));
        pos += length;
    }
}

} // namespace fuzz
