/**
 * The read side of each foreign dialect, without the writers: what loading a config needs
 * (`registry.ts` holds the whole dialect modules, readers and writers, for the library's API and
 * for the commands that write). All five are imported together: a dynamic `import()` per dialect
 * would load less code but three more files, which cost more CPU than the code they leave out
 * (bench/README.md, issue 12).
 */
import type { ForeignDialect } from '../registry.js';
import type { DialectReader } from '../types.js';
import { claudeCodeReader } from './claude-code-reader.js';
import { claudeDesktopReader } from './claude-desktop-reader.js';
import { crewaiReader } from './crewai-reader.js';
import { cursorReader } from './cursor-reader.js';
import { vscodeReader } from './vscode-reader.js';

export const foreignReaders: Readonly<Record<ForeignDialect, DialectReader>> = {
  'claude-desktop': claudeDesktopReader,
  'claude-code': claudeCodeReader,
  vscode: vscodeReader,
  cursor: cursorReader,
  crewai: crewaiReader,
};
