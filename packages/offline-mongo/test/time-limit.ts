// A per-file setting rather than jest's testTimeout, which is global and so refused in a project the root's jest runs:
// what the large-message and racing tests take on a busy 2-core machine, several times over.
jest.setTimeout(180_000);
