#pragma once

#include <QByteArray>
#include <QString>

#include <memory>

#include <curl/curl.h>

// What every transfer of one engine shares: the hosts never reached through a proxy, and the
// extra certificate authorities trusted besides the system's (--ca-file).
//
// Proxies: curl reads https_proxy, http_proxy, all_proxy and no_proxy (upper case as a fallback,
// except HTTP_PROXY, never read: lib/url.c, curl 7.88). CURLOPT_NOPROXY replaces no_proxy rather
// than extending it, so `noProxy` is the environment's list plus loopback, which is never proxied.
struct CurlSettings
{
    class Authorities;

    // Loopback: names, the IPv4 block and the IPv6 address (curl 7.86+ matches CIDR ranges).
    static constexpr const char *kLoopback = "localhost,127.0.0.0/8,::1";

    QByteArray noProxy = kLoopback;
    std::shared_ptr<const Authorities> extraAuthorities;   // none: the system's only

    // From the environment's no_proxy and the PEM certificates in `caPem` (may be empty). A
    // `caPem` with no certificate in it leaves `extraAuthorities` empty.
    static CurlSettings make(const QByteArray &caPem);
    // Whether `pem` holds at least one certificate: for the option's own error message.
    static int countCertificates(const QByteArray &pem);

    void applyTls(CURL *easy) const;
};
