// Public API of the secantusdb package.
export { SecantusServer } from './embed/index.js';
export type { SecantusServerOptions, ResetResult, ServerSnapshot } from './embed/index.js';
export { Server } from './server/server.js';
export type { ServerOptions } from './server/server.js';
export { Logger, streamSink, silentLogger } from './log.js';
export type { TlsOptions, TlsMode } from './server/tls.js';
