#pragma once

#include <QSslConfiguration>
#include <QString>

#include "result.h"

// The certificate and key Breakwater serves HTTPS with (--tls-cert FILE --tls-key FILE): PEM, the
// certificate file may hold the chain after the server's own certificate. Checked whole at start,
// so that a key that does not belong to the certificate is a clear error then, not a handshake that
// fails for every client later. Qt 6.4 serves HTTP/1.1 over it (QSslServer; QtHttpServer 6.4 has no
// HTTP/2).
Expected<QSslConfiguration> loadTlsIdentity(const QString &certFile, const QString &keyFile);

// Adds the PEM certificate authorities in `path` to those `ssl` trusts (--ca-file: a corporate TLS
// proxy's, a self-signed local server's), for Breakwater's own Qt clients (attaching, replaying).
// A file with no certificate in it is an error, said with its path.
Result trustCaFile(QSslConfiguration &ssl, const QString &path);
