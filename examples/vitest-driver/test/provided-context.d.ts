// The type of inject('MONGO_URI') (Vitest's ProvidedContext).
declare module 'vitest' {
  export interface ProvidedContext {
    MONGO_URI: string;
  }
}
export {};
