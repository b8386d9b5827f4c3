/** Node-only helpers: the state store in a file, where it lives by default, the debug logger. */
export {
  FileStateStore,
  DEFAULT_LOCK_TIMEOUT_MS,
  DEFAULT_STALE_LOCK_MS,
  STATE_FILE_VERSION,
  type FileStateStoreOptions,
} from './state/file-state-store.js';
export {
  defaultStateDir,
  defaultStatePath,
  STATE_DIR_ENV,
  STATE_FILE_NAME,
} from './state/default-state-dir.js';
export { debugLogger } from './internal/debug-logger.js';
