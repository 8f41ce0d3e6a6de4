// @shelf/jest-mongodb's config file, as its users have it: the preset reads it. binary and
// autoStart mean nothing without a mongod download; they are accepted as they are.
module.exports = {
  mongodbMemoryServerOptions: {
    binary: { version: '7.0.14', skipMD5: true },
    autoStart: false,
    instance: {},
  },
};
