// The CRUD suite (crud.test.ts) once more through the secantusdb/embedded client: the same
// tests, with no socket between them and the server.

const client = 'embedded';
await import(`./crud.test.js?client=${client}`);
