/**
 * `mcp-host auth client-metadata <server> [--check]`: the Client ID Metadata Document a server's
 * `oauth.clientMetadataUrl` must serve (printed, to be hosted there), or, with `--check`, what
 * is wrong with the one hosted there: a table of findings (`--format json`: `{url, findings}`),
 * exit 1 when there is any.
 */
import {
  checkClientMetadataDocument,
  clientMetadataDocument,
} from '../../auth/client-metadata-document.js';
import { CliError, ExitCode } from '../exit-codes.js';
import type { CliRuntime } from '../runtime.js';

export interface ClientMetadataCommandOptions {
  /** `--check`: fetch the hosted document and report its findings. */
  check?: boolean;
}

export async function authClientMetadata(
  cli: CliRuntime,
  server: string,
  options: ClientMetadataCommandOptions = {},
): Promise<ExitCode> {
  const opened = await cli.openHost({ servers: [server], start: false });
  const oauth = opened.resolved.host.servers.find((d) => d.name === server)?.oauth;
  if (oauth === undefined)
    throw new CliError('INVALID_ARGUMENT', 'has no `oauth:` section in its config', {
      serverName: server,
    });
  const url = oauth.clientMetadataUrl;
  if (url === undefined)
    throw new CliError(
      'INVALID_ARGUMENT',
      'has no `oauth.clientMetadataUrl`: set it to the https URL where the document will be hosted',
      { serverName: server },
    );
  const grant = oauth.grant ?? 'authorization_code';
  if (options.check !== true) {
    let document;
    try {
      document = clientMetadataDocument({
        clientMetadataUrl: url,
        grant,
        ...(oauth.redirectUri === undefined ? {} : { redirectUris: [oauth.redirectUri] }),
      });
    } catch (error) {
      throw new CliError(
        'INVALID_ARGUMENT',
        error instanceof Error ? error.message : String(error),
        { serverName: server },
      );
    }
    cli.output.result(document, () => cli.output.line(JSON.stringify(document, null, 2)));
    return ExitCode.ok;
  }
  const check = await checkClientMetadataDocument(url, {
    grant,
    ...(oauth.redirectUri === undefined ? {} : { redirectUri: oauth.redirectUri }),
  });
  const result = { server, url, findings: check.findings };
  cli.output.result(result, () => {
    if (check.findings.length === 0) {
      cli.output.line(`the document at ${url} is fine for '${server}'`);
      return;
    }
    cli.output.table(check.findings, [
      { header: 'FINDING', value: (f) => f.code },
      { header: 'FIELD', value: (f) => f.field ?? null },
      { header: 'WHAT', value: (f) => f.message },
    ]);
  });
  return check.findings.length === 0 ? ExitCode.ok : ExitCode.usage;
}
