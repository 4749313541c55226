/**
 * The stand-in's own tests: `npm test` in this folder, or the root's jest, which runs this file as one
 * of its projects. Each test file starts its own server (or uses MONGODB_URI), so no global set-up.
 * The time limit is for the large-message and racing tests on a busy 2-core machine, several times over.
 * @type {import('jest').Config}
 */
module.exports = {
  displayName: "offline-mongo",
  testEnvironment: "node",
  roots: ["<rootDir>/test"],
  testTimeout: 180_000,
  transform: { "^.+\\.ts$": ["ts-jest", { tsconfig: "<rootDir>/tsconfig.json" }] },
};
