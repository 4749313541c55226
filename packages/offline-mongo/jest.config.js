/**
 * The stand-in's own tests: `npm test` in this folder, or the root's jest, which runs this file as one
 * of its projects. Each test file starts its own server (or uses MONGODB_URI), so no global set-up.
 * @type {import('jest').Config}
 */
module.exports = {
  displayName: "offline-mongo",
  testEnvironment: "node",
  roots: ["<rootDir>/test"],
  setupFilesAfterEnv: ["<rootDir>/test/time-limit.ts"],
  // Compiled file by file without type checking, as the root's projects are (see its jest.config.js); `npm run typecheck` checks the types.
  transform: { "^.+\\.ts$": ["@swc/jest", { jsc: { parser: { syntax: "typescript" }, target: "es2022" } }] },
};
