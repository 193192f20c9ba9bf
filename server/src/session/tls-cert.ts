/**
 * The session's TLS certificate for `mpiscope run --tls`: self-signed, made fresh for each session (an EC P-256
 * key that never leaves this process and a temporary folder), and pinned in the ranks by its SHA-256
 * fingerprint (MPISCOPE_TLS_FINGERPRINT; native-shim/src/msc_tls.c). No CA is involved, so nothing to
 * install on the hosts. Made with the `openssl` command: Node can make the key but not a certificate.
 */
import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UsageError } from './session-api';

export interface SessionCert {
  readonly key: string;
  readonly cert: string;
  /** SHA-256 of the certificate's DER, 64 hex digits. */
  readonly fingerprint: string;
}

export function makeSessionCert(): SessionCert {
  const dir = mkdtempSync(join(tmpdir(), 'mpiscope-tls-'));
  try {
    const key = join(dir, 'key.pem');
    const cert = join(dir, 'cert.pem');
    try {
      execFileSync(
        'openssl',
        [
          'req',
          '-x509',
          '-newkey',
          'ec',
          '-pkeyopt',
          'ec_paramgen_curve:P-256',
          '-nodes',
          '-days',
          '7',
          '-subj',
          '/CN=mpiscope session',
          '-keyout',
          key,
          '-out',
          cert,
        ],
        { stdio: ['ignore', 'ignore', 'pipe'], timeout: 30_000 },
      );
    } catch (err) {
      const e = err as NodeJS.ErrnoException & { stderr?: Buffer };
      throw new UsageError(
        e.code === 'ENOENT'
          ? '--tls needs the openssl command to make the session certificate; install it (apt-get install openssl) or run without --tls'
          : `--tls could not make the session certificate: ${(e.stderr?.toString() ?? e.message).trim().split('\n')[0] ?? ''}`,
      );
    }
    const pem = readFileSync(cert, 'utf8');
    return {
      key: readFileSync(key, 'utf8'),
      cert: pem,
      fingerprint: new X509Certificate(pem).fingerprint256.replace(/:/g, '').toLowerCase(),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
