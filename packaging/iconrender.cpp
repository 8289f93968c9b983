// breakwater_iconrender SVG SIZE PNG: renders the app icon at one size for the hicolor theme.
// A build-time tool (never installed), so the PNG sizes always match the SVG without a second
// source of truth or an extra converter package.

#include <QGuiApplication>
#include <QImage>
#include <QPainter>
#include <QSvgRenderer>

#include <cstdio>

int main(int argc, char *argv[])
{
    QGuiApplication app(argc, argv);   // run with QT_QPA_PLATFORM=offscreen: no display needed
    const QStringList args = QCoreApplication::arguments();
    bool ok = false;
    const int size = args.value(2).toInt(&ok);
    if (args.size() != 4 || !ok || size <= 0) {
        std::fputs("usage: breakwater_iconrender SVG SIZE PNG\n", stderr);
        return 2;
    }
    QSvgRenderer svg(args[1]);
    if (!svg.isValid()) {
        std::fprintf(stderr, "breakwater_iconrender: cannot read %s\n", qPrintable(args[1]));
        return 1;
    }
    QImage image(size, size, QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::transparent);
    QPainter painter(&image);
    painter.setRenderHint(QPainter::Antialiasing);
    svg.render(&painter);
    painter.end();
    if (!image.save(args[3], "PNG")) {
        std::fprintf(stderr, "breakwater_iconrender: cannot write %s\n", qPrintable(args[3]));
        return 1;
    }
    return 0;
}
