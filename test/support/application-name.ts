import * as os from "node:os";
import type { MongoClientOptions } from "mongodb";

/**
 * A client's options that name its application to the server (`client.application.name` in its handshake), as
 * `failCommand`'s `appName` matches it. Under jest the driver would send an empty handshake `client` document:
 * it loads `os` through a dynamic `import()`, which jest's CommonJS sandbox rejects (without
 * --experimental-vm-modules), and then drops the whole metadata, the application's name with it. Handed the
 * module as its `os` runtime adapter, it imports nothing.
 */
export function namedApplication(appName: string): MongoClientOptions {
  return { appName, runtimeAdapters: { os } };
}
