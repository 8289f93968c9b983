#include "apptranslation.h"

#include <QCoreApplication>
#include <QLibraryInfo>
#include <QLocale>
#include <QLoggingCategory>
#include <QTranslator>

using namespace Qt::StringLiterals;

namespace {
Q_LOGGING_CATEGORY(lcTranslation, "breakwater.ui.translation", QtInfoMsg)
} // namespace

namespace apptranslation {

bool install(QCoreApplication *app, const QLocale &locale)
{
    // Owned by the application: a translator must outlive every string it is asked for.
    auto *ours = new QTranslator(app);
    if (!ours->load(locale, u"breakwater"_s, u"_"_s, u":/translations"_s)) {
        delete ours;
        return false;
    }
    QCoreApplication::installTranslator(ours);
    qCDebug(lcTranslation) << "dashboard in" << ours->language();
    // Qt's own (QMessageBox's buttons, the file dialogs), in the language ours was found for.
    auto *qt = new QTranslator(app);
    if (qt->load(QLocale(ours->language()), u"qtbase"_s, u"_"_s, QLibraryInfo::path(QLibraryInfo::TranslationsPath)))
        QCoreApplication::installTranslator(qt);
    else
        delete qt;
    return true;
}

} // namespace apptranslation
