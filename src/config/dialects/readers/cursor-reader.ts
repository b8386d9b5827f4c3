/** Reads Cursor's `.cursor/mcp.json` (see ../cursor.ts). */
import { cursorGrammar } from '../grammars.js';
import { readMapDocument } from '../read-document.js';
import { readOAuthEntry } from '../server-entry.js';
import type { DialectDocument, DialectReader, DialectReadOptions } from '../types.js';

export const cursorReader: DialectReader = {
  dialect: 'cursor',
  format: 'jsonc',
  read(document: DialectDocument, file: string, options?: DialectReadOptions) {
    return readMapDocument(document, file, options, {
      dialect: 'cursor',
      serversKey: 'mcpServers',
      rules: {
        dialect: 'cursor',
        grammar: () => cursorGrammar,
        ownKeys: ['auth'],
        readOwnKey(_key, value, path, draft, name, ctx) {
          readOAuthEntry(value, path, draft, name, ctx, {
            key: 'auth',
            readKey(sub, item, at, oauth) {
              if ((sub === 'CLIENT_ID' || sub === 'CLIENT_SECRET') && typeof item === 'string') {
                const text = ctx.template(item, at, cursorGrammar, name);
                if (text !== undefined)
                  oauth[sub === 'CLIENT_ID' ? 'clientId' : 'clientSecret'] = text;
              } else if (sub === 'scopes' && Array.isArray(item)) {
                oauth.scopes = item.map(
                  (scope, i) => ctx.template(String(scope), [...at, i], cursorGrammar, name) ?? '',
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
