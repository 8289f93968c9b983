#pragma once

class QCoreApplication;
class QLocale;

// The dashboard's language: the first of the user's languages (LANGUAGE, then LANG / LC_ALL /
// LC_MESSAGES, as QLocale::system() reads them) that Breakwater has a translation for, with Qt's
// own translation of its dialogs and buttons (qtbase_*.qm from Qt's translations folder) in the
// same language. Breakwater's .qm files are built from resources/translations/*.ts and carried in
// the binary (:/translations); English needs none.
namespace apptranslation {

// Installs the translators on `app` (they live as long as it); false when none was found, English.
bool install(QCoreApplication *app, const QLocale &locale);

} // namespace apptranslation
