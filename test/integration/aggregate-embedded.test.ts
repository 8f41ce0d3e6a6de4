// The aggregate suite (aggregate.test.ts) once more through the secantusdb/embedded client.

await import('./aggregate.test.js?client=embedded');
