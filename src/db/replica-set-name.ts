import { MongoClient, MongoServerSelectionError, type Document } from "mongodb";
import { ConnectionString } from "mongodb-connection-string-url";

/** How long each host may take to answer the diagnosis's `hello`: it runs after a failure, and only delays its message. */
const PROBE_TIMEOUT_MS = 2_000;

/**
 * Why server selection failed, when MONGODB_URI names a `replicaSet` its hosts are not members of: the driver
 * drops such a server from its view without a word, and reports only "Server selection timed out after 5000 ms".
 * Asks each host directly for the name of its set and answers with the cause and the fix, or undefined when the
 * failure is not that one (no `replicaSet` in the URI, a mongodb+srv URI whose hosts DNS gives, every name right).
 */
export async function explainReplicaSetMismatch(uri: string, error: unknown): Promise<string | undefined> {
  if (!(error instanceof MongoServerSelectionError)) return undefined;
  const parsed = parse(uri);
  const wanted = parsed?.searchParams.get("replicaSet");
  if (!parsed || !wanted || parsed.isSRV) return undefined;
  for (const host of parsed.hosts) {
    const setName = await setNameAt(parsed, host);
    if (setName === undefined || setName === wanted) continue;
    return setName === null
      ? `the server at ${host} is no replica set member (a standalone mongod or a mongos), but MONGODB_URI asks for replicaSet=${wanted}: remove replicaSet from MONGODB_URI, or run that server as a replica set`
      : `the server at ${host} belongs to the replica set "${setName}", but MONGODB_URI asks for replicaSet=${wanted}: compare the replicaSet in MONGODB_URI with the set's name (rs.conf()._id) and make them equal, e.g. replicaSet=${setName}`;
  }
  return undefined;
}

function parse(uri: string): ConnectionString | undefined {
  try {
    return new ConnectionString(uri);
  } catch {
    return undefined;
  }
}

/**
 * The `setName` one host answers when asked on its own (null: it is in no set), or undefined when it does not
 * answer either: then the cause is elsewhere. The same URI minus the set's name, so credentials and TLS still apply.
 */
async function setNameAt(parsed: ConnectionString, host: string): Promise<string | null | undefined> {
  const single = parsed.clone();
  single.hosts = [host];
  single.searchParams.delete("replicaSet");
  single.searchParams.set("directConnection", "true");
  const client = new MongoClient(single.toString(), { serverSelectionTimeoutMS: PROBE_TIMEOUT_MS, monitorCommands: false });
  try {
    const hello: Document = await client.db("admin").command({ hello: 1 });
    return typeof hello.setName === "string" ? hello.setName : null;
  } catch {
    return undefined;
  } finally {
    await client.close().catch(() => undefined);
  }
}
