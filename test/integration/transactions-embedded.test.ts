// The transactions suite (transactions.test.ts) once more through the secantusdb/embedded client.

await import('./transactions.test.js?client=embedded');
