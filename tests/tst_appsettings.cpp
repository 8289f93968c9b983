// The desktop app's saved settings: a round trip through an ini file, clear messages for invalid
// values, the command line (and --config) winning over saved values, and the dialog refusing to
// close on an invalid value.

#include "appsettings.h"
#include "commandline.h"
#include "loginautostart.h"
#include "settingsdialog.h"

#include <QFile>
#include <QRegularExpression>
#include <QSettings>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;

class TestAppSettings final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void settings_roundTripThroughIniFile();
    void settings_invalidValuesGiveClearMessages();
    void settings_commandLineWinsOverSaved();
    void settingsDialog_staysOpenOnInvalidValues();
    void settingsDialog_savesOnlyWhatTheUserChanged();
    void precedence_eachLayerOverridesTheOneBelow_data();
    void precedence_eachLayerOverridesTheOneBelow();
    void loginAutostart_writesAndRemovesTheEntry();
};

void TestAppSettings::settings_roundTripThroughIniFile()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(u"breakwater.ini"_s);
    AppSettings saved = AppSettings::defaults();
    saved.listen = u"127.0.0.1:9090"_s;
    saved.openaiUpstream = u"http://127.0.0.1:11434/v1"_s;
    saved.timeoutSeconds = 5.5;
    saved.concurrency = 16;
    saved.dedupWindowSeconds = 0;
    saved.cacheSizeMb = 128;
    saved.breakerFailures = 3;
    saved.breakerCooldownSeconds = 30;
    saved.maxSpendUsd = 2.5;
    QVERIFY(saved.validate().isEmpty());
    {
        QSettings settings(path, QSettings::IniFormat);
        saved.save(settings);
    }
    QSettings settings(path, QSettings::IniFormat);
    const AppSettings loaded = AppSettings::load(settings);
    QCOMPARE(loaded.listen, saved.listen);
    QCOMPARE(loaded.timeoutSeconds, 5.5);
    QVERIFY(loaded == saved);

    ProxyConfig config;
    loaded.applyTo(config);
    QCOMPARE(config.listenPort, 9090);
    QCOMPARE(config.upstreamTimeout, std::chrono::milliseconds(5500));
    QCOMPARE(config.concurrency, 16);
    QCOMPARE(config.dedupWindow, std::chrono::milliseconds(0));
    QCOMPARE(config.cacheBytes, 128LL * 1024 * 1024);
    QCOMPARE(config.breakerFailures, 3);
    QCOMPARE(config.breakerCooldown, std::chrono::milliseconds(30000));
    QCOMPARE(config.maxSpendUsd, 2.5);
    QCOMPARE(AppSettings::fromConfig(config), loaded);

    // A hand-edited bad value is ignored; the others still load.
    settings.setValue(u"proxy/concurrency"_s, u"lots"_s);
    settings.setValue(u"proxy/listen"_s, u"nowhere"_s);
    settings.sync();
    QTest::ignoreMessage(QtWarningMsg, QRegularExpression(u"ignoring the saved value of \"?concurrency"_s));
    QTest::ignoreMessage(QtWarningMsg, QRegularExpression(u"ignoring the saved value of \"?listen"_s));
    const AppSettings partly = AppSettings::load(settings);
    QCOMPARE(partly.concurrency, AppSettings::defaults().concurrency);
    QCOMPARE(partly.listen, AppSettings::defaults().listen);
    QCOMPARE(partly.breakerFailures, 3);
}

void TestAppSettings::settings_invalidValuesGiveClearMessages()
{
    AppSettings s = AppSettings::defaults();
    s.listen = u"localhost"_s;
    s.openaiUpstream = u"ftp://example.com"_s;
    s.concurrency = 0;
    s.timeoutSeconds = 0;
    s.maxSpendUsd = -1;
    QStringList problems;
    for (const Message &problem : s.validate())
        problems << problem.english();
    QCOMPARE(problems.size(), 5);
    QVERIFY(problems.last().startsWith(u"Spend limit: -1 is not valid"_s));
    QVERIFY(problems[0].startsWith(u"Listen address: 'localhost' is not valid; expected HOST:PORT"_s));
    QVERIFY(problems[1].contains(u"expected an http(s) URL"_s));
    QVERIFY(problems.join(u' ').contains(u"Concurrency: 0 is not valid; expected a whole number from 1 to 4096"_s));
    QVERIFY(problems.join(u' ').contains(u"Timeout: 0 s is not valid; expected more than 0 seconds"_s));
    s = AppSettings::defaults();
    s.listen = u"0.0.0.0:8080"_s;
    QVERIFY(s.validate().value(0).english().contains(u"loopback only"_s));
    s.listen = u"[::1]:8080"_s;
    QVERIFY(s.validate().isEmpty());
}

void TestAppSettings::settings_commandLineWinsOverSaved()
{
    QTemporaryDir dir;
    QSettings settings(dir.filePath(u"s.ini"_s), QSettings::IniFormat);
    AppSettings saved = AppSettings::defaults();
    saved.concurrency = 8;
    saved.timeoutSeconds = 7;
    saved.save(settings);

    QFile configFile(dir.filePath(u"c.json"_s));
    QVERIFY(configFile.open(QIODevice::WriteOnly));
    configFile.write(R"({"timeout": 3})");
    configFile.close();

    ProxyConfig fromCommandLine;
    fromCommandLine.concurrency = 2;
    fromCommandLine.upstreamTimeout = std::chrono::milliseconds(3000);
    const QStringList arguments{u"breakwater"_s, u"--concurrency=2"_s, u"--config"_s, configFile.fileName()};
    const Expected<CommandLine> line = parseCommandLine(arguments);
    QVERIFY2(line.ok(), qPrintable(line.error()));
    QCOMPARE(line->given, QStringList({u"--concurrency"_s, u"--config"_s, u"--timeout"_s}));
    ProxyConfig merged = withSavedSettings(fromCommandLine, line->given, settings);
    QCOMPARE(merged.concurrency, 2);                                     // command line
    QCOMPARE(merged.upstreamTimeout, std::chrono::milliseconds(3000));   // --config file
    merged = withSavedSettings(ProxyConfig{}, parseCommandLine({u"breakwater"_s})->given, settings);
    QCOMPARE(merged.concurrency, 8);                                     // saved
    QCOMPARE(merged.upstreamTimeout, std::chrono::milliseconds(7000));

    const QString message = SettingsDialog::restartMessage(saved, AppSettings::defaults(), {u"--timeout"_s});
    QVERIFY2(message.contains(u"Restart Breakwater to apply: concurrency"_s), qPrintable(message));
    QVERIFY(message.contains(u"timeout (--timeout)"_s));
    QVERIFY(SettingsDialog::restartMessage(saved, saved, {}).contains(u"Nothing the running proxy uses has changed"_s));
}

void TestAppSettings::settingsDialog_staysOpenOnInvalidValues()
{
    AppSettings values = AppSettings::defaults();
    SettingsDialog dialog(values, {}, false);
    QCOMPARE(dialog.values(), values);
    values.listen = u"127.0.0.1"_s;
    dialog.setValues(values);
    dialog.open();
    dialog.accept();
    QVERIFY(dialog.isVisible());                  // refused: still open
    QCOMPARE(dialog.problems().size(), 1);
    values.listen = u"127.0.0.1:0"_s;
    dialog.setValues(values);
    dialog.accept();
    QCOMPARE(dialog.result(), int(QDialog::Accepted));
}

// Saving once in --demo with a --listen on the command line must not write the mock's temporary
// URLs or the command line's address: the next normal start would call a mock that is gone.
void TestAppSettings::settingsDialog_savesOnlyWhatTheUserChanged()
{
    QTemporaryDir dir;
    QSettings settings(dir.filePath(u"s.ini"_s), QSettings::IniFormat);
    ProxyConfig demoRun;   // as main() builds it for `breakwater --demo --listen 127.0.0.1:0`
    demoRun.listenPort = 0;
    demoRun.openaiUpstream = QUrl(u"http://127.0.0.1:34029/v1"_s);
    demoRun.anthropicUpstream = QUrl(u"http://127.0.0.1:34029"_s);
    const QStringList overridden{u"--listen"_s};

    SettingsDialog dialog(SettingsDialog::initialValues(demoRun, settings, true), overridden, true);
    QCOMPARE(dialog.values().openaiUpstream, AppSettings::defaults().openaiUpstream);   // not the mock's
    auto *concurrency = dialog.findChild<QSpinBox *>(u"concurrency"_s);
    QVERIFY(concurrency);
    const int chosen = concurrency->value() + 4;
    concurrency->setValue(chosen);
    QCOMPARE(dialog.changedOptions(), QStringList{u"--concurrency"_s});
    dialog.open();
    dialog.accept();
    QCOMPARE(dialog.result(), int(QDialog::Accepted));
    dialog.saveChanges(settings);
    QCOMPARE(settings.allKeys(), QStringList{u"proxy/concurrency"_s});
    QCOMPARE(settings.value(u"proxy/concurrency"_s).toInt(), chosen);

    // Opened again and accepted unchanged, it writes nothing more.
    SettingsDialog again(SettingsDialog::initialValues(demoRun, settings, true), overridden, true);
    QCOMPARE(again.values().concurrency, chosen);
    QVERIFY(again.changedOptions().isEmpty());
    again.saveChanges(settings);
    QCOMPARE(settings.allKeys(), QStringList{u"proxy/concurrency"_s});

    // The next start without --demo and --listen uses the real upstreams and the default address.
    const ProxyConfig next = withSavedSettings(ProxyConfig{}, {}, settings);
    QCOMPARE(next.openaiUpstream, ProxyConfig{}.openaiUpstream);
    QCOMPARE(next.anthropicUpstream, ProxyConfig{}.anthropicUpstream);
    QCOMPARE(next.listenPort, ProxyConfig{}.listenPort);
    QCOMPARE(next.concurrency, chosen);
}

// The whole order, table-driven: command line over configuration file over saved settings over
// defaults, for the default configuration file as for --config.
void TestAppSettings::precedence_eachLayerOverridesTheOneBelow_data()
{
    QTest::addColumn<QString>("commandLine");   // --concurrency value, or empty
    QTest::addColumn<QString>("configFile");    // "concurrency" in the file, or empty
    QTest::addColumn<int>("saved");             // saved concurrency, or 0
    QTest::addColumn<bool>("explicitConfig");   // --config FILE rather than the default location
    QTest::addColumn<int>("expected");
    QTest::newRow("defaults") << QString() << QString() << 0 << false << 64;
    QTest::newRow("saved over defaults") << QString() << QString() << 8 << false << 8;
    QTest::newRow("default config file over saved") << QString() << u"12"_s << 8 << false << 12;
    QTest::newRow("--config over saved") << QString() << u"12"_s << 8 << true << 12;
    QTest::newRow("command line over config file") << u"3"_s << u"12"_s << 8 << false << 3;
    QTest::newRow("command line over --config") << u"3"_s << u"12"_s << 8 << true << 3;
    QTest::newRow("command line over saved") << u"3"_s << QString() << 8 << false << 3;
    QTest::newRow("config file over defaults") << QString() << u"12"_s << 0 << false << 12;
}

void TestAppSettings::precedence_eachLayerOverridesTheOneBelow()
{
    QFETCH(QString, commandLine);
    QFETCH(QString, configFile);
    QFETCH(int, saved);
    QFETCH(bool, explicitConfig);
    QFETCH(int, expected);
    QTemporaryDir dir;
    const QString configPath = dir.filePath(u"config.json"_s);
    if (!configFile.isEmpty()) {
        QFile file(configPath);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("{\"concurrency\": " + configFile.toUtf8() + ", \"timeout\": 9}");
    }
    QSettings settings(dir.filePath(u"saved.ini"_s), QSettings::IniFormat);
    if (saved) {
        AppSettings values = AppSettings::defaults();
        values.concurrency = saved;
        values.save(settings);
    }
    QStringList arguments{u"breakwater"_s};
    if (!commandLine.isEmpty())
        arguments << u"--concurrency"_s << commandLine;
    if (explicitConfig && !configFile.isEmpty())
        arguments << u"--config"_s << configPath;
    // The default location is read only when --config is not given, and only when it exists.
    const Expected<CommandLine> line =
        parseCommandLine(arguments, explicitConfig ? dir.filePath(u"absent.json"_s) : configPath);
    QVERIFY2(line.ok(), qPrintable(line.error()));
    QCOMPARE(line->configFile, configFile.isEmpty() ? QString() : configPath);
    const ProxyConfig merged = withSavedSettings(line->config, line->given, settings);
    QCOMPARE(merged.concurrency, expected);
    QCOMPARE(merged.upstreamTimeout, std::chrono::milliseconds(configFile.isEmpty() ? 60000 : 9000));
}

void TestAppSettings::loginAutostart_writesAndRemovesTheEntry()
{
    QTemporaryDir home;
    const QByteArray previous = qgetenv("XDG_CONFIG_HOME");
    qputenv("XDG_CONFIG_HOME", home.path().toLocal8Bit());
    const auto restore = qScopeGuard([&] { qputenv("XDG_CONFIG_HOME", previous); });
    QCOMPARE(LoginAutostart::entryPath(), home.filePath(u"autostart/io.github.breakwater.Breakwater.desktop"_s));
    QVERIFY(!LoginAutostart::isEnabled());

    const Result enabled = LoginAutostart::setEnabled(true, u"/opt/My Tools/breakwater"_s);
    QVERIFY2(enabled.ok(), qPrintable(enabled.error()));
    QVERIFY(LoginAutostart::isEnabled());
    QFile entry(LoginAutostart::entryPath());
    QVERIFY(entry.open(QIODevice::ReadOnly));
    const QByteArray text = entry.readAll();
    QVERIFY2(text.contains("\nExec=\"/opt/My Tools/breakwater\" --minimized\n"), text.constData());
    QVERIFY(text.startsWith("[Desktop Entry]\nType=Application\n"));
    QCOMPARE(LoginAutostart::entryText(u"/usr/bin/breakwater"_s).count("Exec=/usr/bin/breakwater --minimized\n"), 1);
    entry.close();

    // A desktop's own "off" switch for an entry is respected.
    QVERIFY(entry.open(QIODevice::Append));
    entry.write("Hidden=true\n");
    entry.close();
    QVERIFY(!LoginAutostart::isEnabled());

    QVERIFY(LoginAutostart::setEnabled(false, {}).ok());
    QVERIFY(!QFile::exists(LoginAutostart::entryPath()));
    QVERIFY(LoginAutostart::setEnabled(false, {}).ok());   // removing what is not there is fine
}

QTEST_MAIN(TestAppSettings)
#include "tst_appsettings.moc"
