#include "upstream/curlsettings.h"

#include <vector>

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

// Certificates parsed once and added to every new TLS connection's store, after curl has loaded
// the system bundle (so they extend it; CURLOPT_CAINFO would replace it).
class CurlSettings::Authorities
{
public:
    explicit Authorities(const QByteArray &pem)
    {
        BIO *bio = BIO_new_mem_buf(pem.constData(), int(pem.size()));
        while (X509 *certificate = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr))
            m_certificates.push_back(certificate);
        BIO_free(bio);
        ERR_clear_error();   // the end of the input is reported as an error (no start line)
    }
    ~Authorities()
    {
        for (X509 *certificate : m_certificates)
            X509_free(certificate);
    }
    Authorities(const Authorities &) = delete;
    Authorities &operator=(const Authorities &) = delete;

    int count() const { return int(m_certificates.size()); }

    // CURLOPT_SSL_CTX_FUNCTION: called on the loop thread for each new TLS connection.
    static CURLcode addTo(CURL *, void *sslContext, void *self)
    {
        X509_STORE *store = SSL_CTX_get_cert_store(static_cast<SSL_CTX *>(sslContext));
        for (X509 *certificate : static_cast<const Authorities *>(self)->m_certificates)
            X509_STORE_add_cert(store, certificate);   // takes its own reference
        return CURLE_OK;
    }

private:
    std::vector<X509 *> m_certificates;
};

CurlSettings CurlSettings::make(const QByteArray &caPem)
{
    CurlSettings settings;
    QByteArray fromEnvironment = qgetenv("no_proxy");
    if (fromEnvironment.isEmpty())
        fromEnvironment = qgetenv("NO_PROXY");
    fromEnvironment = fromEnvironment.trimmed();
    if (fromEnvironment == "*")
        settings.noProxy = "*";
    else if (!fromEnvironment.isEmpty())
        settings.noProxy = fromEnvironment + ',' + kLoopback;
    if (!caPem.isEmpty()) {
        auto authorities = std::make_shared<const Authorities>(caPem);
        if (authorities->count() > 0)
            settings.extraAuthorities = std::move(authorities);
    }
    return settings;
}

int CurlSettings::countCertificates(const QByteArray &pem)
{
    return Authorities(pem).count();
}

void CurlSettings::applyTls(CURL *easy) const
{
    if (!extraAuthorities)
        return;
    curl_easy_setopt(easy, CURLOPT_SSL_CTX_FUNCTION, &Authorities::addTo);
    curl_easy_setopt(easy, CURLOPT_SSL_CTX_DATA, const_cast<Authorities *>(extraAuthorities.get()));
}
