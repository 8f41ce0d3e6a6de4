// The transactions suite (transactions.test.ts) once more through the secantusdb/embedded client.

const client = 'embedded';
await import(`./transactions.test.js?client=${client}`);
