export { SecantusServer } from './secantus-server.js';
export type { SecantusServerOptions } from './secantus-server.js';
export type { TlsOptions, TlsMode } from '../server/tls.js';
