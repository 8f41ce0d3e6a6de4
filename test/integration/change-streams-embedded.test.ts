// The change stream suite (change-streams.test.ts) once more through the secantusdb/embedded
// client.

await import('./change-streams.test.js?client=embedded');
