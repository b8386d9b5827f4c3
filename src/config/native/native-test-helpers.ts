/** What the native-format tests share: the fixture folder, reading a fixture, a config without positions. */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { McpConfig } from '../model.js';
import { readNativeText } from './native.js';

export const fixtures = fileURLToPath(
  new URL('../../../test/fixtures/config/native/', import.meta.url),
);
export const read = (name: string) => {
  const file = `${fixtures}${name}`;
  return readNativeText(readFileSync(file, 'utf8'), file);
};
export const withoutPositions = (config: McpConfig): unknown =>
  JSON.parse(
    JSON.stringify(config, (key, value: unknown) => (key === 'source' ? undefined : value)),
  );
