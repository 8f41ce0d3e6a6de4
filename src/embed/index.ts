export { SecantusServer } from './secantus-server.js';
export type { SecantusServerOptions } from './secantus-server.js';
export type { ResetResult, ServerSnapshot } from '../server/fixtures.js';

export type { TlsOptions, TlsMode } from '../server/tls.js';
