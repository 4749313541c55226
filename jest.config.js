const { availableParallelism } = require("node:os");

// TypeScript to CommonJS for jest (so the lazy import() of a development-only package compiles to require()), file by file,
// without type checking: `npm run typecheck` checks the types. swc does it in a fraction of ts-jest's time, which a run on a
// fresh clone (CI's, every file compiled cold) spent on each of the ~1,100 files of the three projects (docs/testing.md).
const transform = { "^.+\\.ts$": ["@swc/jest", { jsc: { parser: { syntax: "typescript" }, target: "es2022" } }] };
// The stand-in by its package name, from its source: its exports map's "@bookstore/source" condition (no build step before a test run).
const testEnvironmentOptions = { customExportConditions: ["node", "node-addons", "@bookstore/source"] };

/**
 * Three projects, one `jest` command. Unit tests (test/unit) never touch a database and start at once,
 * with no global set-up. Integration tests run against the one database chosen for the whole run by
 * test/support/global-setup.ts; their time limit is what their heaviest work (hundreds of racing
 * purchases, building and starting the server) takes on a busy 2-core machine, several times over,
 * and no test starts while the previous one's operations are still in flight (settle-in-flight.ts).
 * The tests of a Redis-shared response cache (test/redis) run when TEST_REDIS_URL names a Redis, as
 * .ci/run sets it, and then fail if it does not answer; without it they are left out of the run. Its
 * outage tests start, stop and freeze redis-servers of their own from PATH, and fail without one.
 * @type {import('jest').Config}
 */
module.exports = {
  // Files run side by side, each worker with databases of its own (test/support/global-setup.ts). Most of an integration
  // file's time is waiting (on timers, on API processes it started, on its database processes), so on a 2-core machine three
  // workers keep both cores busy where jest's default (one fewer than the cores: one, in band) left most of them idle.
  // `--maxWorkers=1` (or `-i`) runs them one after another again.
  maxWorkers: Math.max(3, availableParallelism()),
  // A global option in jest, so a hung test fails within a minute: the unit tests take milliseconds, and the integration
  // tests' heaviest cases take up to about 20 s on a busy 2-core machine. The few that wait out real time for longer
  // (chaos cuts, process starts under load, a subscriber reading nothing for 30 s) give their own limit beside the test,
  // and say why. The stand-in's project sets the same limit in its own set-up (packages/offline-mongo/test/time-limit.ts).
  testTimeout: 60_000,
  reporters: ["default", "<rootDir>/test/support/summary-reporter.js"],
  projects: [
    {
      displayName: "unit",
      testEnvironment: "node",
      roots: ["<rootDir>/test/unit"],
      transform,
      testEnvironmentOptions,
    },
    {
      displayName: "integration",
      testEnvironment: "node",
      roots: ["<rootDir>/test"],
      testPathIgnorePatterns: ["/node_modules/", "<rootDir>/test/unit/", ...(process.env.TEST_REDIS_URL ? [] : ["<rootDir>/test/redis/"])],
      transform,
      testEnvironmentOptions,
      globalSetup: "<rootDir>/test/support/global-setup.ts",
      globalTeardown: "<rootDir>/test/support/global-teardown.ts",
      setupFiles: ["<rootDir>/test/support/worker-database.ts"],
      setupFilesAfterEnv: ["<rootDir>/test/support/settle-in-flight.ts"],
    },
    // The stand-in's tests, under its own configuration (packages/offline-mongo/jest.config.js).
    "<rootDir>/packages/offline-mongo",
  ],
};
