#include "http/tlsidentity.h"

#include <QFile>
#include <QSslCertificate>
#include <QSslKey>

#include <memory>

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

using namespace Qt::StringLiterals;

namespace {

Expected<QByteArray> readFile(const QString &path, const QString &label)
{
    QFile file(path);
    if (path.isEmpty() || !file.open(QIODevice::ReadOnly))
        return Failure{u"cannot read %1 '%2': %3"_s.arg(label, path, path.isEmpty() ? u"no path"_s : file.errorString())};
    return file.read(1024 * 1024);
}

// Qt 6.4 has no way to ask whether a private key belongs to a certificate; OpenSSL (Qt's own TLS
// backend here, and libcurl's) does.
bool keyMatchesCertificate(const QByteArray &certPem, const QByteArray &keyPem)
{
    const std::unique_ptr<BIO, decltype(&BIO_free)> certBio(BIO_new_mem_buf(certPem.constData(), int(certPem.size())), BIO_free);
    const std::unique_ptr<BIO, decltype(&BIO_free)> keyBio(BIO_new_mem_buf(keyPem.constData(), int(keyPem.size())), BIO_free);
    const std::unique_ptr<X509, decltype(&X509_free)> cert(PEM_read_bio_X509(certBio.get(), nullptr, nullptr, nullptr), X509_free);
    const std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(
        PEM_read_bio_PrivateKey(keyBio.get(), nullptr, nullptr, nullptr), EVP_PKEY_free);
    return cert && key && X509_check_private_key(cert.get(), key.get()) == 1;
}

} // namespace

Expected<QSslConfiguration> loadTlsIdentity(const QString &certFile, const QString &keyFile)
{
    if (certFile.isEmpty() != keyFile.isEmpty())
        return Failure{u"--tls-cert and --tls-key go together: give both files, or neither"_s};
    const Expected<QByteArray> certPem = readFile(certFile, u"--tls-cert"_s);
    if (!certPem.ok())
        return Failure{certPem.error()};
    const Expected<QByteArray> keyPem = readFile(keyFile, u"--tls-key"_s);
    if (!keyPem.ok())
        return Failure{keyPem.error()};
    const QList<QSslCertificate> chain = QSslCertificate::fromData(certPem.value(), QSsl::Pem);
    if (chain.isEmpty() || chain.first().isNull())
        return Failure{u"--tls-cert '%1' holds no PEM certificate (-----BEGIN CERTIFICATE-----)"_s.arg(certFile)};
    QSslKey key;
    for (const QSsl::KeyAlgorithm algorithm : {QSsl::Rsa, QSsl::Ec, QSsl::Dsa}) {
        key = QSslKey(keyPem.value(), algorithm, QSsl::Pem, QSsl::PrivateKey);
        if (!key.isNull())
            break;
    }
    if (key.isNull())
        return Failure{u"--tls-key '%1' holds no unencrypted PEM private key (RSA, EC or DSA)"_s.arg(keyFile)};
    if (!keyMatchesCertificate(certPem.value(), keyPem.value()))
        return Failure{u"--tls-key '%1' does not belong to the certificate in --tls-cert '%2' (its public key is "
                       "another's)"_s.arg(keyFile, certFile)};
    QSslConfiguration configuration = QSslConfiguration::defaultConfiguration();
    configuration.setLocalCertificateChain(chain);
    configuration.setPrivateKey(key);
    configuration.setPeerVerifyMode(QSslSocket::VerifyNone);   // clients prove themselves by token, not certificate
    return configuration;
}

Result trustCaFile(QSslConfiguration &ssl, const QString &path)
{
    const QList<QSslCertificate> authorities = QSslCertificate::fromPath(path, QSsl::Pem);
    if (authorities.isEmpty())
        return Failure{Message(QT_TRANSLATE_NOOP("Message", "no PEM certificate could be read from %1")).arg(path)};
    ssl.addCaCertificates(authorities);
    return {};
}
