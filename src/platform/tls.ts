// The server speaks HTTPS only. Without EVMON_TLS_CERT/KEY it makes a self-signed certificate
// for localhost and 127.0.0.1 on first start and keeps it in the data folder.
import { X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import selfsigned from 'selfsigned';
import type { Config } from '../config.js';

export interface TlsMaterial {
  cert: string;
  key: string;
  certPath: string;
  fingerprint256: string;
  generated: boolean;
}

export async function loadTls(config: Config): Promise<TlsMaterial> {
  if (config.tls) {
    const cert = fs.readFileSync(config.tls.certFile, 'utf8');
    const key = fs.readFileSync(config.tls.keyFile, 'utf8');
    return { cert, key, certPath: config.tls.certFile, fingerprint256: new X509Certificate(cert).fingerprint256, generated: false };
  }
  const dir = path.join(config.dataDir, 'tls');
  const certPath = path.join(dir, 'cert.pem');
  const keyPath = path.join(dir, 'key.pem');
  let generated = false;
  if (!fs.existsSync(certPath) || !fs.existsSync(keyPath)) {
    // Written to a folder of its own and renamed into place in one step, so two processes
    // starting together on one data folder never pair one's key with the other's certificate.
    fs.mkdirSync(config.dataDir, { recursive: true });
    const staging = fs.mkdtempSync(path.join(config.dataDir, 'tls-'));
    const pems = await selfsigned.generate([{ name: 'commonName', value: 'localhost' }], {
      keyType: 'ec',
      curve: 'P-256',
      algorithm: 'sha256',
      notAfterDate: new Date(Date.UTC(2036, 0, 1)),
      extensions: [
        { name: 'basicConstraints', cA: false },
        { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
        { name: 'extKeyUsage', serverAuth: true },
        {
          name: 'subjectAltName',
          altNames: [
            { type: 2, value: 'localhost' },
            { type: 7, ip: '127.0.0.1' },
            { type: 7, ip: '::1' },
          ],
        },
      ],
    });
    fs.writeFileSync(path.join(staging, 'key.pem'), pems.private, { mode: 0o600 });
    fs.writeFileSync(path.join(staging, 'cert.pem'), pems.cert);
    try {
      fs.renameSync(staging, dir);
      generated = true;
    } catch (error) {
      fs.rmSync(staging, { recursive: true, force: true });
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOTEMPTY' && code !== 'EEXIST') throw error; // another process won: use its pair
    }
  }
  const cert = fs.readFileSync(certPath, 'utf8');
  return {
    cert,
    key: fs.readFileSync(keyPath, 'utf8'),
    certPath,
    fingerprint256: new X509Certificate(cert).fingerprint256,
    generated,
  };
}
