export * from './versions.js';
export * from './methods.js';
export * from './types.js';
export * from './guards.js';
export { mcpPeerConventions } from './conventions.js';
export * from './http-headers.js';
