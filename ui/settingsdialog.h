#pragma once

#include <functional>

#include <QDialog>

#include "appsettings.h"
#include "result.h"

class QCheckBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QSettings;
class QSpinBox;

// Edits the saved proxy settings. OK checks every value and, if any is invalid, lists what is wrong
// and stays open. The values the proxy can change live (LiveSettings: timeout, concurrency, de-dup
// window, cache size, breaker failures and cool-down, spend limit) are handed at OK to the live
// apply function, which sends the changed ones to the running proxy (ui/livecontrol.h); the caller
// saves the values and tells the user which other changes need a restart. Only what the
// user changed is saved and applied: the values a run got from the command line or from --demo (the mock
// provider's temporary URLs) are shown but never written, so they cannot break the next start.
class SettingsDialog final : public QDialog
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(SettingsDialog)
public:
    // `overridden`: options given on the command line, which win over saved values this run.
    SettingsDialog(const AppSettings &values, const QStringList &overridden, bool demo, QWidget *parent = nullptr);

    // What the dialog opens with: the saved values over the running configuration, except in demo
    // mode the upstreams, which are the mock's for this run only (saved or default ones instead).
    static AppSettings initialValues(const ProxyConfig &running, QSettings &settings, bool demo);

    AppSettings values() const;
    void setValues(const AppSettings &values);
    // The options whose values the user changed, compared with what the dialog opened with.
    QStringList changedOptions() const { return values().differences(m_opened); }
    // Writes the changed values, and only those, to `settings`.
    void saveChanges(QSettings &settings) const;
    QList<Message> problems() const { return values().validate(); }
    // "Start Breakwater when I log in": not a proxy setting; the caller applies it at once
    // (LoginAutostart::setEnabled) and tells the user `changed` with startAtLoginMessage.
    bool startAtLogin() const;
    void setStartAtLogin(bool start);
    static QString startAtLoginMessage(bool start, const Result &changed);
    // In demo mode the fields hold the saved upstreams (used without --demo); this line under them
    // says where calls go now, so the dialog does not show api.openai.com while the mock answers.
    void setUpstreamsInUse(const QString &openai, const QString &anthropic);
    QString upstreamsInUseText() const;
    // `breakwater --attach`: the dialog edits the live settings of the remote Breakwater at
    // `remote`; its listen address and upstreams are shown but set where it runs, and starting at
    // login is not offered (it is this laptop's, not the remote's).
    void setRemote(const QString &remote);

    // Called at OK with the values and the changed options; returns the options it applied to the
    // running proxy at once (appliedLive()).
    using LiveApply = std::function<QStringList(const AppSettings &values, const QStringList &changed)>;
    void setLiveApply(LiveApply apply) { m_liveApply = std::move(apply); }
    QStringList appliedLive() const { return m_appliedLive; }

    // What to tell the user after saving `saved` while the proxy runs with `running`; the options
    // in `appliedLive` were applied to the running proxy and need no restart.
    static QString restartMessage(const AppSettings &saved, const AppSettings &running, const QStringList &overridden,
                                  const QStringList &appliedLive = {});

public Q_SLOTS:
    void accept() override;

private:
    AppSettings m_opened;
    LiveApply m_liveApply;
    QStringList m_appliedLive;
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
    QLabel *m_inUse = nullptr;
    QLabel *m_note = nullptr;
    bool m_remote = false;
};
