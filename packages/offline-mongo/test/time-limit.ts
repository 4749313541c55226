// A per-file setting rather than jest's testTimeout, which is global and so refused in a project the root's jest runs:
// the root's limit (jest.config.js), so that a hung test fails within a minute. The heaviest cases here (the held
// getMore's 12 s of measured waits, the large-message and racing tests) take seconds on a busy 2-core machine.
jest.setTimeout(60_000);
