/** The state store on PostgreSQL, shared by many hosts and gateway replicas (Node only; needs `pg`). */
export {
  PostgresStateStore,
  DEFAULT_POSTGRES_CONNECT_TIMEOUT_MS,
  DEFAULT_POSTGRES_MAX_CONNECTIONS,
  DEFAULT_POSTGRES_SCHEMA,
  type PostgresStateStoreOptions,
} from './postgres/postgres-state-store.js';
export { POSTGRES_SCHEMA_VERSION } from './postgres/migrations.js';
