import type { StorageEngine } from '../engine.js';
import type { Logger } from '../../log.js';
export interface JsonFileEngineOptions {
  readonly path: string;
  readonly noSync?: boolean;
  readonly logger?: Logger;
}
export const JsonFileEngine = {
  open(_o: JsonFileEngineOptions): Promise<StorageEngine> {
    return Promise.reject(new Error('todo'));
  },
};
