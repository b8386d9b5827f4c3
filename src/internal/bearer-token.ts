import { createHash } from 'node:crypto';

/**
 * The SHA-256 digest of a bearer token: tokens are kept and compared as digests, all of one
 * length, so `timingSafeEqual` takes the same time whatever was sent.
 */
export function tokenDigest(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}

/** The digest of the token of an `Authorization: Bearer <token>` value; undefined without one. */
export function bearerDigest(header: string | undefined): Buffer | undefined {
  const match = header === undefined ? null : /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
  return match === null ? undefined : tokenDigest(match[1]!);
}
