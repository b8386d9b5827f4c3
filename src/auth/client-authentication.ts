import { readFile } from 'node:fs/promises';
import { createPrivateKey, type JsonWebKey as NodeJsonWebKey, type webcrypto } from 'node:crypto';
import * as oauth from 'oauth4webapi';
import { McpHostError } from '../errors/mcp-host-error.js';
import type { ClientRegistration } from './token-store.js';

/**
 * A private key for `private_key_jwt`, given by reference: a PEM file's path, PEM text, or a JWK.
 * `alg` is the JWS algorithm (default: RS256 for RSA keys, ES256/ES384/ES512 by curve, EdDSA).
 */
export type PrivateKeyRef =
  | { pemFile: string; alg?: string; kid?: string }
  | { pem: string; alg?: string; kid?: string }
  | { jwk: webcrypto.JsonWebKey; alg?: string; kid?: string };

/** WebCrypto import parameters for each JWS algorithm oauth4webapi can sign with. */
function importAlgorithm(
  alg: string,
): webcrypto.RsaHashedImportParams | webcrypto.EcKeyImportParams | webcrypto.Algorithm {
  switch (alg) {
    case 'RS256':
    case 'RS384':
    case 'RS512':
      return { name: 'RSASSA-PKCS1-v1_5', hash: `SHA-${alg.slice(2)}` };
    case 'PS256':
    case 'PS384':
    case 'PS512':
      return { name: 'RSA-PSS', hash: `SHA-${alg.slice(2)}` };
    case 'ES256':
      return { name: 'ECDSA', namedCurve: 'P-256' };
    case 'ES384':
      return { name: 'ECDSA', namedCurve: 'P-384' };
    case 'ES512':
      return { name: 'ECDSA', namedCurve: 'P-521' };
    case 'EdDSA':
    case 'Ed25519':
      return { name: 'Ed25519' };
    default:
      throw new McpHostError('INVALID_ARGUMENT', `private key algorithm '${alg}' is not supported`);
  }
}

function defaultAlgorithm(jwk: NodeJsonWebKey): string {
  if (jwk.kty === 'RSA') return 'RS256';
  if (jwk.kty === 'OKP') return 'EdDSA';
  if (jwk.crv === 'P-384') return 'ES384';
  if (jwk.crv === 'P-521') return 'ES512';
  return 'ES256';
}

/**
 * Loads a private key reference as the non-extractable signing key oauth4webapi's
 * `PrivateKeyJwt` takes. Nothing about the key appears in errors: only the file path.
 */
export async function loadPrivateKey(ref: PrivateKeyRef): Promise<oauth.PrivateKey> {
  let jwk: NodeJsonWebKey;
  try {
    if ('jwk' in ref) {
      jwk = ref.jwk as NodeJsonWebKey;
    } else {
      const pem = 'pem' in ref ? ref.pem : await readFile(ref.pemFile, 'utf8');
      jwk = createPrivateKey({ key: pem, format: 'pem' }).export({ format: 'jwk' });
    }
  } catch (error) {
    const where = 'pemFile' in ref ? ` from ${ref.pemFile}` : '';
    throw new McpHostError('INVALID_ARGUMENT', `the private key${where} could not be read`, {
      cause: error instanceof Error ? new Error(error.message.slice(0, 200)) : undefined,
    });
  }
  const alg = ref.alg ?? defaultAlgorithm(jwk);
  const {
    alg: _alg,
    key_ops: _ops,
    use: _use,
    ...keyData
  } = jwk as NodeJsonWebKey & {
    alg?: string;
    key_ops?: string[];
    use?: string;
  };
  const key = await crypto.subtle.importKey(
    'jwk',
    keyData as webcrypto.JsonWebKey,
    importAlgorithm(alg),
    false,
    ['sign'],
  );
  return ref.kid === undefined ? { key } : { key, kid: ref.kid };
}

/** A token endpoint authentication method mcp-host can use. */
export type TokenEndpointAuthMethod =
  'none' | 'client_secret_basic' | 'client_secret_post' | 'private_key_jwt';

/**
 * The method to authenticate `registration` at the token endpoint: the registered one, else
 * `private_key_jwt` with a key, else with a secret `client_secret_basic` or `client_secret_post` as
 * the metadata allows (basic when it says nothing, as RFC 8414 defaults), else `none`.
 */
export function chooseAuthMethod(
  registration: Pick<ClientRegistration, 'clientSecret' | 'tokenEndpointAuthMethod'>,
  as: oauth.AuthorizationServer,
  hasPrivateKey: boolean,
): TokenEndpointAuthMethod {
  const registered = registration.tokenEndpointAuthMethod;
  if (
    registered === 'none' ||
    registered === 'client_secret_basic' ||
    registered === 'client_secret_post' ||
    registered === 'private_key_jwt'
  ) {
    return registered;
  }
  const supported = as.token_endpoint_auth_methods_supported ?? ['client_secret_basic'];
  if (hasPrivateKey) return 'private_key_jwt';
  if (registration.clientSecret === undefined) return 'none';
  if (supported.includes('client_secret_basic')) return 'client_secret_basic';
  if (supported.includes('client_secret_post')) return 'client_secret_post';
  return 'client_secret_basic';
}

/**
 * `client_secret_basic` with the id and secret percent-encoded only where they must be
 * (`encodeURIComponent`): oauth4webapi's form-encoding also escapes `-`, `.`, `_`, `~`, which
 * many authorization servers (the conformance suite's among them) do not decode, so a client id
 * like `my-client` would be refused.
 */
function clientSecretBasic(secret: string): oauth.ClientAuth {
  return (_as, client, _body, headers) => {
    const credentials = `${encodeURIComponent(client.client_id)}:${encodeURIComponent(secret)}`;
    headers.set('authorization', `Basic ${Buffer.from(credentials).toString('base64')}`);
  };
}

/** oauth4webapi's client authentication for `method`. */
export function clientAuthFor(
  method: TokenEndpointAuthMethod,
  secret: string | undefined,
  privateKey: oauth.PrivateKey | undefined,
): oauth.ClientAuth {
  switch (method) {
    case 'none':
      return oauth.None();
    case 'client_secret_basic':
    case 'client_secret_post':
      if (secret === undefined) {
        throw new McpHostError('INVALID_ARGUMENT', `${method} needs a client secret`);
      }
      return method === 'client_secret_basic'
        ? clientSecretBasic(secret)
        : oauth.ClientSecretPost(secret);
    case 'private_key_jwt':
      if (privateKey === undefined) {
        throw new McpHostError('INVALID_ARGUMENT', 'private_key_jwt needs a private key');
      }
      return oauth.PrivateKeyJwt(privateKey);
  }
}
