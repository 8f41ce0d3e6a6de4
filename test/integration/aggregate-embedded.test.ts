// The aggregate suite (aggregate.test.ts) once more through the secantusdb/embedded client.

const client = 'embedded';
await import(`./aggregate.test.js?client=${client}`);
