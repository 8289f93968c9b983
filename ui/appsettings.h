#pragma once

#include <QString>
#include <QStringList>

#include "message.h"
#include "proxyconfig.h"

class QSettings;

// The proxy settings the desktop app saves between runs (QSettings), as the user typed them.
// Each value is checked with a message that says what is wrong and what is expected; invalid
// saved values are ignored with a warning. Options given on the command line or in the
// configuration file override the saved ones for that run (commandline.h has the whole order). Widget-free, so tests can round-trip it through an ini file.
struct AppSettings
{
    QString listen;               // HOST:PORT
    QString openaiUpstream;
    QString anthropicUpstream;
    double timeoutSeconds = 0;
    int concurrency = 0;
    double dedupWindowSeconds = 0;
    int cacheSizeMb = 0;
    int breakerFailures = 0;
    double breakerCooldownSeconds = 0;
    double maxSpendUsd = 0;       // per day; 0 = no limit

    static AppSettings fromConfig(const ProxyConfig &config);
    static AppSettings defaults() { return fromConfig(ProxyConfig{}); }

    // One message per invalid value, in the order of the fields; empty when everything is valid.
    QList<Message> validate() const;
    // Copies the values into `config`, except the options named in `keep` ("--listen", ...).
    // Call only with valid settings.
    void applyTo(ProxyConfig &config, const QStringList &keep = {}) const;

    // Reads what was saved; a missing or invalid value keeps `fallback`'s (with a warning).
    static AppSettings load(QSettings &settings, const AppSettings &fallback = defaults());
    void save(QSettings &settings) const;
    // Saves only the values of the options in `which` ("--concurrency", ...), leaving every other key as it was:
    // the dialog saves what the user changed, never a value that only holds for this run.
    void save(QSettings &settings, const QStringList &which) const;

    // The command-line option names of these settings, in the order of the fields.
    static QStringList options();
    // The command-line option names ("--concurrency", ...) whose values differ from `other`'s.
    QStringList differences(const AppSettings &other) const;
    bool operator==(const AppSettings &other) const = default;
};

// The saved settings' layer: applied to `config` for every option not in `given` (the options the
// command line or the configuration file set, CommandLine::given), which win.
ProxyConfig withSavedSettings(const ProxyConfig &config, const QStringList &given, QSettings &settings);
