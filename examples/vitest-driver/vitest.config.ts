import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // One server for the whole run; tests get its URI with inject('MONGO_URI').
    globalSetup: ['secantusdb/vitest'],
  },
});
