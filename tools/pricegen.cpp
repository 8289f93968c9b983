// breakwater_pricegen SNAPSHOT OUTPUT PROVIDER...: converts the vendored genai-prices snapshot into
// the built-in price table (see genaiprices.h for what is kept and what is dropped). A build-time
// tool, never installed: the build needs no Node or Python, only this and the vendored JSON.

#include <cstdio>

#include <QCoreApplication>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSaveFile>

#include "genaiprices.h"

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    const QStringList args = QCoreApplication::arguments();
    if (args.size() < 4) {
        std::fputs("usage: breakwater_pricegen SNAPSHOT OUTPUT PROVIDER...\n", stderr);
        return 2;
    }
    QFile in(args[1]);
    if (!in.open(QIODevice::ReadOnly)) {
        std::fprintf(stderr, "breakwater_pricegen: cannot read %s\n", qPrintable(args[1]));
        return 1;
    }
    QJsonParseError parseError;
    const QJsonDocument snapshot = QJsonDocument::fromJson(in.readAll(), &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        std::fprintf(stderr, "breakwater_pricegen: %s: %s at byte %d\n", qPrintable(args[1]),
                     qPrintable(parseError.errorString()), int(parseError.offset));
        return 1;
    }
    const GenaiConversion conversion = convertGenaiPrices(snapshot.object(), args.mid(3));
    if (!conversion.error.isEmpty()) {
        std::fprintf(stderr, "breakwater_pricegen: %s: %s\n", qPrintable(args[1]), qPrintable(conversion.error));
        return 1;
    }
    QSaveFile out(args[2]);
    if (!out.open(QIODevice::WriteOnly) || out.write(QJsonDocument(conversion.table).toJson()) < 0 || !out.commit()) {
        std::fprintf(stderr, "breakwater_pricegen: cannot write %s\n", qPrintable(args[2]));
        return 1;
    }
    std::printf("breakwater_pricegen: %d models with %d rules; %d skipped (%s)\n",
                int(conversion.table.value(u"models").toObject().size()),
                int(conversion.table.value(u"rules").toArray().size()), int(conversion.skipped.size()),
                qPrintable(conversion.skipped.join(u"; ")));
    return 0;
}
