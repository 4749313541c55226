/**
 * Unit tests (test/unit) never touch a database; everything else runs against the one database
 * chosen once for the whole run by test/support/global-setup.ts.
 * @type {import('jest').Config}
 */
module.exports = {
  testEnvironment: "node",
  roots: ["<rootDir>/test", "<rootDir>/packages/offline-mongo/test"],
  // CommonJS for jest, so the lazy import() of a development-only package compiles to require().
  transform: { "^.+\\.ts$": ["ts-jest", { tsconfig: { module: "commonjs", moduleResolution: "node10" } }] },
  globalSetup: "<rootDir>/test/support/global-setup.ts",
  globalTeardown: "<rootDir>/test/support/global-teardown.ts",
  testTimeout: 30_000,
  reporters: ["default", "<rootDir>/test/support/summary-reporter.js"],
};
