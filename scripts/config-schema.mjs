// Writes schema/mcp-config.schema.json from its one source of truth, src/config/native/native-schema.ts.
// Run with `npm run schema:config` after changing the native format; a test fails while the two
// differ.
import { writeFile, mkdir } from 'node:fs/promises';
import { format, resolveConfig } from 'prettier';
import { nativeSchema } from '../src/config/native/native-schema.ts';

const target = new URL('../schema/mcp-config.schema.json', import.meta.url);
await mkdir(new URL('.', target), { recursive: true });
const options = (await resolveConfig(target)) ?? {};
const text = await format(JSON.stringify(nativeSchema, null, 2), {
  ...options,
  parser: 'json',
});
await writeFile(target, text);
console.log(`wrote ${target.pathname}`);
