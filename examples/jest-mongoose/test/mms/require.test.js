// The package from a CommonJS test file: require('secantusdb') and its types' entry points.
const { SecantusServer } = require('secantusdb');
const { MongoClient } = require('mongoose').mongo; // the driver mongoose brings

test('require("secantusdb") gives a server the driver talks to', async () => {
  const server = await SecantusServer.start();
  const client = new MongoClient(server.getUri('cjs'));
  try {
    await client.db().collection('c').insertOne({ via: 'require' });
    expect(await client.db('cjs').collection('c').countDocuments()).toBe(1);
    expect(server.uri).toMatch(/^mongodb:\/\/127\.0\.0\.1:\d+\/$/);
  } finally {
    await client.close();
    await server.stop();
  }
});
