/** Reads Claude Code's `.mcp.json` (see ../claude-code.ts). */
import { aboutServer } from '../../../errors/mcp-host-error.js';
import { claudeCodeGrammar } from '../grammars.js';
import { readMapDocument } from '../read-document.js';
import { readOAuthEntry, type TemplateField } from '../server-entry.js';
import type { DialectDocument, DialectReader, DialectReadOptions } from '../types.js';

const EXPANDED: readonly TemplateField[] = ['command', 'args', 'env', 'url', 'headers'];
/** The fields where Claude Code expands variables, with its grammar; literal text elsewhere. */
export const claudeCodeFieldGrammar = (field: TemplateField) =>
  EXPANDED.includes(field) ? claudeCodeGrammar : undefined;

export const claudeCodeReader: DialectReader = {
  dialect: 'claude-code',
  format: 'json',
  read(document: DialectDocument, file: string, options?: DialectReadOptions) {
    return readMapDocument(document, file, options, {
      dialect: 'claude-code',
      serversKey: 'mcpServers',
      rules: {
        dialect: 'claude-code',
        grammar: claudeCodeFieldGrammar,
        ownKeys: ['oauth', 'headersHelper'],
        readOwnKey(key, value, path, draft, name, ctx) {
          if (key === 'headersHelper') {
            draft.extra[key] = value;
            ctx.report(
              'warning',
              'unsupported-key',
              aboutServer(name, `"headersHelper" is not run by mcp-host; kept as it is`),
              path,
              name,
            );
            return;
          }
          readOAuthEntry(value, path, draft, name, ctx, {
            key: 'oauth',
            quietKeys: ['callbackPort'],
            readKey(sub, item, at, oauth) {
              if (sub === 'clientId' && typeof item === 'string') {
                const text = ctx.template(item, at, undefined, name);
                if (text !== undefined) oauth.clientId = text;
              } else if (sub === 'authServerMetadataUrl' && typeof item === 'string') {
                const text = ctx.template(item, at, undefined, name);
                if (text !== undefined) oauth.authorizationServer = text;
              } else if (sub === 'scopes' && (typeof item === 'string' || Array.isArray(item))) {
                const scopes =
                  typeof item === 'string' ? item.split(/\s+/).filter(Boolean) : item.map(String);
                oauth.scopes = scopes.map(
                  (scope) => ctx.template(scope, at, undefined, name) ?? scope,
                );
              } else return false;
              return true;
            },
          });
        },
      },
    });
  },
};
