/**
 * A fresh private signing key as a JWK, for the authorization servers the tests start.
 *
 * Made through PEM on purpose: `generateKeyPairSync(...).privateKey.export({ format: 'jwk' })`
 * can deadlock Node 20. The export holds the new key's mutex and allocates; a garbage collection
 * then runs the finished key generation job's weak callback, whose destructor takes the same
 * mutex (seen in CI: the test worker's main thread parked in `~KeyGenJob` under `ExportJWK`,
 * gdb). A key read back from PEM shares nothing with the job.
 */
import { createPrivateKey, generateKeyPairSync, type JsonWebKey } from 'node:crypto';

export function signingJwk(kind: 'rsa' | 'ec' = 'rsa'): JsonWebKey {
  const publicKeyEncoding = { type: 'spki', format: 'pem' } as const;
  const privateKeyEncoding = { type: 'pkcs8', format: 'pem' } as const;
  const pem =
    kind === 'rsa'
      ? generateKeyPairSync('rsa', { modulusLength: 2048, publicKeyEncoding, privateKeyEncoding })
      : generateKeyPairSync('ec', { namedCurve: 'P-256', publicKeyEncoding, privateKeyEncoding });
  return createPrivateKey(pem.privateKey).export({ format: 'jwk' });
}
