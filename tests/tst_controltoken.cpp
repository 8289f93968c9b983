// The owner's control token on disk: made at the first start in a file only its owner may read
// (0600 in a 0700 folder, whatever the umask), read back unchanged at every later start, never
// replaced, and refused when group or others may read it, or when it holds no token.

#include "controltoken.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

using namespace Qt::StringLiterals;

namespace {

// The mode bits as ls shows them, 0600 and so on.
int modeOf(const QString &path)
{
    struct stat info {};
    if (::stat(QFile::encodeName(path).constData(), &info) != 0)
        return -1;
    return int(info.st_mode & 07777);
}

void writeFile(const QString &path, const QByteArray &content, int mode)
{
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(content);
    file.close();
    QVERIFY(::chmod(QFile::encodeName(path).constData(), mode_t(mode)) == 0);
}

const QByteArray kChosen = "a-token-the-owner-chose-herself-0123456789";

// While alive, files are made with this umask (0 makes everything as open as the code asks).
class Umask
{
public:
    explicit Umask(mode_t mask) : m_before(::umask(mask)) {}
    ~Umask() { ::umask(m_before); }
    Q_DISABLE_COPY_MOVE(Umask)

private:
    mode_t m_before;
};

} // namespace

class TestControlToken final : public QObject
{
    Q_OBJECT
private slots:
    void firstStart_makesA43CharacterTokenOnlyItsOwnerMayRead_data();
    void firstStart_makesA43CharacterTokenOnlyItsOwnerMayRead();
    void laterStarts_readTheSameToken_neverReplaceIt();
    void tokenFiles_ofTwoUsersOrStarts_differ();
    void looseFile_isRefused_andLeftAsItWas_data();
    void looseFile_isRefused_andLeftAsItWas();
    void fileWithoutAToken_isRefused_data();
    void fileWithoutAToken_isRefused();
    void clientRead_neverMakesOne();
    void ownFolder_isTightened_aChosenOneKeepsItsMode();
};

void TestControlToken::firstStart_makesA43CharacterTokenOnlyItsOwnerMayRead_data()
{
    QTest::addColumn<int>("umask");
    QTest::newRow("umask 022") << 022;
    QTest::newRow("umask 0 (the code alone decides the modes)") << 0;
}

void TestControlToken::firstStart_makesA43CharacterTokenOnlyItsOwnerMayRead()
{
    QFETCH(int, umask);
    const Umask mask(mode_t(umask & 0777));
    QTemporaryDir home;
    const QString folder = home.filePath(u"config/breakwater"_s);
    const QString path = folder + u"/control-token"_s;
    const Expected<QByteArray> token = loadOrCreateControlToken(path, true);
    QVERIFY2(token.ok(), qPrintable(token.error()));
    QCOMPARE(token->size(), 43);   // 32 random bytes, base64url without padding
    for (const char c : token.value())
        QVERIFY2(QByteArrayView("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_").contains(c),
                 token->constData());
    QCOMPARE(modeOf(path), 0600);
    QCOMPARE(modeOf(folder), 0700);
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(file.readAll(), token.value() + '\n');
    // Nothing else was left beside it (the temporary name it was written under).
    QCOMPARE(QDir(folder).entryList(QDir::Files | QDir::Hidden), QStringList{u"control-token"_s});
}

void TestControlToken::laterStarts_readTheSameToken_neverReplaceIt()
{
    QTemporaryDir home;
    const QString path = home.filePath(u"control-token"_s);
    const Expected<QByteArray> first = loadOrCreateControlToken(path, false);
    QVERIFY(first.ok());
    const Expected<QByteArray> second = loadOrCreateControlToken(path, false);
    QVERIFY(second.ok());
    QCOMPARE(second.value(), first.value());
    // A token the owner wrote herself is kept as it is (whitespace around it aside).
    writeFile(path, "  " + kChosen + "\n\n", 0600);
    const Expected<QByteArray> chosen = loadOrCreateControlToken(path, false);
    QVERIFY2(chosen.ok(), qPrintable(chosen.error()));
    QCOMPARE(chosen.value(), kChosen);
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(file.readAll(), "  " + kChosen + "\n\n");
}

void TestControlToken::tokenFiles_ofTwoUsersOrStarts_differ()
{
    QTemporaryDir one;
    QTemporaryDir two;
    const Expected<QByteArray> a = loadOrCreateControlToken(one.filePath(u"t"_s), false);
    const Expected<QByteArray> b = loadOrCreateControlToken(two.filePath(u"t"_s), false);
    QVERIFY(a.ok() && b.ok());
    QVERIFY(a.value() != b.value());
}

void TestControlToken::looseFile_isRefused_andLeftAsItWas_data()
{
    QTest::addColumn<int>("mode");
    QTest::newRow("0644: everyone may read it") << 0644;
    QTest::newRow("0640: the group may read it") << 0640;
    QTest::newRow("0604: others may read it") << 0604;
    QTest::newRow("0620: the group may write it") << 0620;
}

void TestControlToken::looseFile_isRefused_andLeftAsItWas()
{
    QFETCH(int, mode);
    QTemporaryDir home;
    const QString path = home.filePath(u"control-token"_s);
    writeFile(path, kChosen + '\n', mode);
    for (const bool start : {true, false}) {
        const Expected<QByteArray> token = start ? loadOrCreateControlToken(path, false) : readControlToken(path);
        QVERIFY(!token.ok());
        QVERIFY2(token.error().contains(path) && token.error().contains(u"0%1"_s.arg(mode, 0, 8))
                     && token.error().contains(u"chmod 600"_s),
                 qPrintable(token.error()));
    }
    // Refused, not quietly tightened nor replaced: the owner sees it and decides.
    QCOMPARE(modeOf(path), mode);
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(file.readAll(), kChosen + '\n');
}

void TestControlToken::fileWithoutAToken_isRefused_data()
{
    QTest::addColumn<QByteArray>("content");
    QTest::newRow("empty") << QByteArray();
    QTest::newRow("too short to be safe") << "hunter2"_ba;
    QTest::newRow("a space inside") << "a token with spaces in it 0123456789abcdef"_ba;
    QTest::newRow("a control character") << QByteArray("0123456789abcdef0123456789abcdef\x01x", 34);
}

void TestControlToken::fileWithoutAToken_isRefused()
{
    QFETCH(QByteArray, content);
    QTemporaryDir home;
    const QString path = home.filePath(u"control-token"_s);
    writeFile(path, content, 0600);
    const Expected<QByteArray> token = loadOrCreateControlToken(path, false);
    QVERIFY(!token.ok());
    QVERIFY2(token.error().contains(u"holds no control token"_s), qPrintable(token.error()));
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(file.readAll(), content);   // never replaced
}

void TestControlToken::clientRead_neverMakesOne()
{
    QTemporaryDir home;
    const QString path = home.filePath(u"breakwater/control-token"_s);
    const Expected<QByteArray> token = readControlToken(path);
    QVERIFY(!token.ok());
    QVERIFY2(token.error().contains(u"no control token at"_s), qPrintable(token.error()));
    QVERIFY(!QFileInfo::exists(path));
    QVERIFY(!QFileInfo::exists(home.filePath(u"breakwater"_s)));
}

void TestControlToken::ownFolder_isTightened_aChosenOneKeepsItsMode()
{
    QTemporaryDir home;
    const QString own = home.filePath(u"own"_s);
    const QString chosen = home.filePath(u"chosen"_s);
    for (const QString &folder : {own, chosen}) {
        QVERIFY(QDir().mkdir(folder));
        QVERIFY(::chmod(QFile::encodeName(folder).constData(), 0755) == 0);
    }
    QVERIFY(loadOrCreateControlToken(own + u"/control-token"_s, true).ok());
    QVERIFY(loadOrCreateControlToken(chosen + u"/control-token"_s, false).ok());
    QCOMPARE(modeOf(own), 0700);
    QCOMPARE(modeOf(chosen), 0755);
    QCOMPARE(modeOf(chosen + u"/control-token"_s), 0600);
}

QTEST_GUILESS_MAIN(TestControlToken)
#include "tst_controltoken.moc"
