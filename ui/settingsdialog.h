#pragma once

#include <QDialog>

#include "appsettings.h"

class QCheckBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QSpinBox;

// Edits the saved proxy settings. OK checks every value and, if any is invalid, lists what is wrong
// and stays open. The proxy's settings are fixed while it runs (it has no live reconfiguration),
// so the caller saves the values and tells the user which changes need a restart.
class SettingsDialog final : public QDialog
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(SettingsDialog)
public:
    // `overridden`: options given on the command line, which win over saved values this run.
    SettingsDialog(const AppSettings &values, const QStringList &overridden, bool demo, QWidget *parent = nullptr);

    AppSettings values() const;
    void setValues(const AppSettings &values);
    QStringList problems() const { return values().validate(); }
    // "Start Breakwater when I log in": not a proxy setting; the caller applies it at once.
    bool startAtLogin() const;
    void setStartAtLogin(bool start);

    // What to tell the user after saving `saved` while the proxy runs with `running`.
    static QString restartMessage(const AppSettings &saved, const AppSettings &running, const QStringList &overridden);

public Q_SLOTS:
    void accept() override;

private:
    QLineEdit *m_listen = nullptr;
    QLineEdit *m_openai = nullptr;
    QLineEdit *m_anthropic = nullptr;
    QDoubleSpinBox *m_timeout = nullptr;
    QSpinBox *m_concurrency = nullptr;
    QDoubleSpinBox *m_dedupWindow = nullptr;
    QSpinBox *m_cacheSize = nullptr;
    QSpinBox *m_breakerFailures = nullptr;
    QDoubleSpinBox *m_breakerCooldown = nullptr;
    QDoubleSpinBox *m_maxSpend = nullptr;
    QCheckBox *m_startAtLogin = nullptr;
    QLabel *m_problems = nullptr;
};
