// The change stream suite (change-streams.test.ts) once more through the secantusdb/embedded
// client.

const client = 'embedded';
await import(`./change-streams.test.js?client=${client}`);
