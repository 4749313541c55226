/**
 * A small runner of MongoDB's unified test format (mongodb/specifications, `source/unified-test-format`), for
 * the change-streams, transactions, retryable-writes, sessions, collection-management, index-management and
 * run-command suites, run through the official driver against the
 * stand-in (started here as a one-member replica set with test commands) or the replica set at
 * `MONGODB_REPLICA_SET_URI`. It prints each suite's tests as passed, wrong, refused (the stand-in refused
 * something, loudly) or skipped, by cause. Not part of `npm test`: it takes minutes.
 *
 *   npm run spec-suites -- [SUITE...] [--verbose] [--grep TEXT] [--specs DIR]   (SUITE: one of SUITES, all by default)
 *
 * `--specs DIR` reads the suites from a checkout of mongodb/specifications instead of the copies in `tests/`.
 */
import { BSON, EJSON } from "bson";
import { MongoBulkWriteError, MongoClient, MongoNetworkError, MongoServerError, type ClientSession, type Document } from "mongodb";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { startOfflineServer } from "../src";
import { assertMatches, Mismatch, Unsupported, type MatchContext } from "./matching";
import { AssertionFailed, runOperation, type Entities, type Operation, type RunnerHooks } from "./operations";

const SUITES = [
  "change-streams",
  "transactions",
  "retryable-writes",
  "sessions",
  "collection-management",
  "index-management",
  "run-command",
] as const;
const SERVER_VERSION = [7, 0, 0];
const TEST_TIME_LIMIT_MS = 30_000;
/** How long a failed test's unfinished work may take to end once its sessions are killed. */
const SETTLE_TIME_LIMIT_MS = 10_000;
/** Commands the format says runners never observe, and the handshakes. */
const NEVER_OBSERVED = new Set([
  "configureFailPoint",
  "hello",
  "isMaster",
  "ismaster",
  "saslStart",
  "saslContinue",
  "authenticate",
  "getnonce",
]);

type Outcome = { kind: "passed" } | { kind: "wrong" | "refused" | "skipped"; cause: string };

interface ObservedEvent {
  type: "commandStartedEvent" | "commandSucceededEvent" | "commandFailedEvent";
  commandName: string;
  databaseName?: string;
  command?: Document;
  reply?: Document;
}

/** A command as the server receives it (driver classes such as WriteConcern and Map serialised). */
function asSent(command: Document): Document {
  return BSON.deserialize(BSON.serialize(command));
}

/**
 * Node's driver adds `wtimeout: 10000` to every majority commit or abort, where the suites expect it on retries
 * only (a driver's rule, not the server's): left out of the command when the expectation has none.
 */
function withoutDriverTimeout(expected: Document, command: Document): Document {
  const wanted: unknown = expected["writeConcern"];
  const sent: unknown = command["writeConcern"];
  if (!("commitTransaction" in command || "abortTransaction" in command) || typeof sent !== "object" || sent === null) return command;
  if (typeof wanted === "object" && wanted !== null && "wtimeout" in wanted) return command;
  const { wtimeout: _driver, ...concern } = sent as Document;
  return { ...command, writeConcern: concern };
}

function versionOf(text: string): number[] {
  return text.split(".").map(Number);
}

function compareVersions(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < 3; i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) - (b[i] ?? 0);
  return 0;
}

/** Why a runOnRequirements list rules this server out, or undefined when one of its entries fits. */
function unmetRequirements(requirements: Document[] | undefined): string | undefined {
  if (requirements === undefined || requirements.length === 0) return undefined;
  const reasons = requirements.map((requirement): string | undefined => {
    if (
      requirement["minServerVersion"] !== undefined &&
      compareVersions(SERVER_VERSION, versionOf(String(requirement["minServerVersion"]))) < 0
    )
      return "needs a newer server";
    if (
      requirement["maxServerVersion"] !== undefined &&
      compareVersions(SERVER_VERSION, versionOf(String(requirement["maxServerVersion"]))) > 0
    )
      return "needs an older server";
    const topologies = requirement["topologies"] as string[] | undefined;
    if (topologies !== undefined && !topologies.includes("replicaset")) return `needs a ${topologies.join("/")} topology`;
    if (requirement["serverless"] === "require") return "needs serverless";
    if (requirement["auth"] === true) return "needs authentication";
    if (requirement["csfle"] !== undefined) return "needs client-side encryption";
    if (requirement["serverParameters"] !== undefined) return "needs server parameters";
    return undefined;
  });
  return reasons.includes(undefined) ? undefined : reasons[0];
}

/** A refusal of the stand-in: its own 238/72 "offline server:" errors, or a command it does not have. */
function refusalOf(error: unknown): string | undefined {
  if (!(error instanceof MongoServerError)) return undefined;
  if (error.message.startsWith("offline server:")) return error.message;
  if (error.code === 59) return error.message;
  return undefined;
}

/** A bulk write error whose cause is a network error: no reply from the server reached the driver. */
function neverAnswered(error: unknown): boolean {
  return error instanceof MongoBulkWriteError && error.errorResponse instanceof MongoNetworkError;
}

class TestRun implements Entities, RunnerHooks {
  private readonly entities = new Map<string, unknown>();
  private readonly events = new Map<string, ObservedEvent[]>();
  private readonly clients: MongoClient[] = [];
  private readonly failPointClients: MongoClient[] = [];
  refusal: string | undefined;

  constructor(
    private readonly uri: string,
    private readonly internal: MongoClient,
  ) {}

  get(id: string): unknown {
    return this.entities.get(id);
  }

  set(id: string, value: unknown): void {
    this.entities.set(id, value);
  }

  readonly matchContext: MatchContext = { entity: (id) => this.entities.get(id) };

  async createEntities(list: Document[]): Promise<void> {
    for (const item of list) {
      const [kind, spec] = Object.entries(item)[0] as [string, Document];
      const id = String(spec["id"]);
      if (kind === "client") await this.createClient(id, spec);
      else if (kind === "database")
        this.set(
          id,
          (this.get(String(spec["client"])) as MongoClient).db(String(spec["databaseName"]), spec["databaseOptions"] as Document),
        );
      else if (kind === "collection")
        this.set(
          id,
          (this.get(String(spec["database"])) as ReturnType<MongoClient["db"]>).collection(
            String(spec["collectionName"]),
            spec["collectionOptions"] as Document,
          ),
        );
      else if (kind === "session") this.set(id, this.createSession(spec));
      else throw new Unsupported(`the entity type ${kind}`);
    }
  }

  /**
   * A session entity. `snapshotTime` names a saved entity (`getSnapshotTime`'s result); Node's driver takes no such
   * option (7.9), so the time is set where the driver keeps the one its first snapshot read learns.
   */
  private createSession(spec: Document): ClientSession {
    const { snapshotTime, ...options } = (spec["sessionOptions"] as Document | undefined) ?? {};
    const session = (this.get(String(spec["client"])) as MongoClient).startSession(options);
    if (snapshotTime !== undefined) (session as unknown as { snapshotTime: unknown }).snapshotTime = this.get(String(snapshotTime));
    return session;
  }

  private async createClient(id: string, spec: Document): Promise<void> {
    if (spec["observeSensitiveCommands"] === true) throw new Unsupported("observeSensitiveCommands");
    const uriOptions = { ...((spec["uriOptions"] as Document | undefined) ?? {}) };
    if ("appname" in uriOptions) {
      uriOptions["appName"] = uriOptions["appname"];
      delete uriOptions["appname"];
    }
    const serverApi = spec["serverApi"] as Document | undefined;
    const client = new MongoClient(this.uri, {
      serverSelectionTimeoutMS: 5000,
      ...uriOptions,
      ...(serverApi === undefined ? {} : { serverApi: serverApi as never }),
      monitorCommands: true,
    });
    const observed = new Set((spec["observeEvents"] as string[] | undefined) ?? []);
    const ignored = new Set((spec["ignoreCommandMonitoringEvents"] as string[] | undefined) ?? []);
    const events: ObservedEvent[] = [];
    const keep = (name: string): boolean => !NEVER_OBSERVED.has(name) && !ignored.has(name);
    client.on("commandStarted", (event) => {
      if (observed.has("commandStartedEvent") && keep(event.commandName))
        events.push({
          type: "commandStartedEvent",
          commandName: event.commandName,
          databaseName: event.databaseName,
          command: asSent(event.command),
        });
    });
    client.on("commandSucceeded", (event) => {
      if (observed.has("commandSucceededEvent") && keep(event.commandName))
        events.push({ type: "commandSucceededEvent", commandName: event.commandName, reply: event.reply as Document });
    });
    client.on("commandFailed", (event) => {
      if (observed.has("commandFailedEvent") && keep(event.commandName))
        events.push({ type: "commandFailedEvent", commandName: event.commandName });
    });
    this.events.set(id, events);
    this.clients.push(client);
    this.set(id, client);
  }

  async failPoint(client: MongoClient, failPoint: Document): Promise<void> {
    await client.db("admin").command(failPoint);
    this.failPointClients.push(client);
    this.turnOff.push(String(failPoint["configureFailPoint"]));
  }

  private readonly turnOff: string[] = [];

  startedCommands(clientId: string): Document[] {
    return (this.events.get(clientId) ?? []).filter((event) => event.type === "commandStartedEvent").map((event) => event.command ?? {});
  }

  async collectionNames(database: string): Promise<string[]> {
    return (await this.internal.db(database).listCollections({}, { nameOnly: true }).toArray()).map((entry) => entry.name);
  }

  async indexNames(database: string, collection: string): Promise<string[]> {
    const indexes = await this.internal
      .db(database)
      .collection(collection)
      .listIndexes()
      .toArray()
      .catch(() => []);
    return indexes.map((index) => String(index["name"]));
  }

  async runOperations(operations: Document[]): Promise<void> {
    for (const operation of operations) await this.runOne(operation);
  }

  /** Runs one operation and checks its result or error as the test expects. */
  async runOne(operation: Document): Promise<void> {
    let result: unknown;
    let error: unknown;
    try {
      result = await runOperation(operation as unknown as Operation, this, this);
    } catch (caught) {
      if (caught instanceof Unsupported || caught instanceof AssertionFailed) throw caught;
      error = caught;
      this.refusal ??= refusalOf(caught);
    }
    const expected = operation["expectError"] as Document | undefined;
    if (expected !== undefined) {
      if (error === undefined)
        throw new Mismatch(`${String(operation["name"])}: expected an error, got ${JSON.stringify(result)?.slice(0, 200)}`);
      this.checkError(expected, error, String(operation["name"]));
      return;
    }
    if (error !== undefined) {
      if (operation["ignoreResultAndError"] === true) return;
      throw new Mismatch(
        `${String(operation["name"])}: unexpected error ${error instanceof Error ? `${error.constructor.name}: ${error.message}` : String(error)}`,
      );
    }
    if (operation["expectResult"] !== undefined)
      assertMatches(operation["expectResult"], result, this.matchContext, true, String(operation["name"]));
    if (operation["saveResultAsEntity"] !== undefined) this.set(String(operation["saveResultAsEntity"]), result);
  }

  private checkError(expected: Document, error: unknown, name: string): void {
    const server = error instanceof MongoServerError ? error : undefined;
    const fail = (what: string): never => {
      throw new Mismatch(
        `${name}: ${what} (got ${error instanceof Error ? `${error.constructor.name} ${(error as { code?: unknown }).code ?? ""}: ${error.message}` : String(error)})`,
      );
    };
    if (expected["isTimeoutError"] !== undefined) throw new Unsupported("isTimeoutError");
    if (expected["isClientError"] === true && server !== undefined) fail("expected a client error");
    if (expected["isClientError"] === false && server === undefined) fail("expected a server error");
    const contains = expected["errorContains"];
    if (typeof contains === "string" && !(error instanceof Error && error.message.toLowerCase().includes(contains.toLowerCase())))
      fail(`expected the message to contain '${contains}'`);
    if (expected["errorCode"] !== undefined && server?.code !== expected["errorCode"])
      fail(`expected code ${String(expected["errorCode"])}`);
    if (expected["errorCodeName"] !== undefined && server?.codeName !== expected["errorCodeName"])
      fail(`expected codeName ${String(expected["errorCodeName"])}`);
    const hasLabel = (label: string): boolean => (error as { hasErrorLabel?: (label: string) => boolean }).hasErrorLabel?.(label) ?? false;
    for (const label of (expected["errorLabelsContain"] as string[] | undefined) ?? [])
      if (!hasLabel(label)) fail(`expected the label ${label}`);
    for (const label of (expected["errorLabelsOmit"] as string[] | undefined) ?? [])
      if (hasLabel(label)) fail(`expected no label ${label}`);
    if (expected["errorResponse"] !== undefined)
      assertMatches(expected["errorResponse"], server?.errorResponse, this.matchContext, true, `${name}.errorResponse`);
    if (expected["expectResult"] !== undefined) {
      const result = { ...((error as { result?: Document }).result ?? {}) };
      // When the server never answered (the connection closed), Node's BulkWriteResult reports every id it queued
      // as inserted (no writeError tells it otherwise), on mongod as here: the driver's, not the server's, answer.
      if (neverAnswered(error)) delete result["insertedIds"];
      assertMatches(expected["expectResult"], result, this.matchContext, true, `${name}.result`);
    }
  }

  checkEvents(expectations: Document[]): void {
    for (const expectation of expectations) {
      if ((expectation["eventType"] ?? "command") !== "command") throw new Unsupported(`${String(expectation["eventType"])} events`);
      const clientId = String(expectation["client"]);
      const actual = this.events.get(clientId) ?? [];
      const expected = expectation["events"] as Document[];
      const ignoreExtra = expectation["ignoreExtraEvents"] === true;
      if (ignoreExtra ? actual.length < expected.length : actual.length !== expected.length)
        throw new Mismatch(
          `${clientId}: expected ${expected.length} events, got ${actual.length}: ${actual.map((event) => event.commandName).join(", ")}`,
        );
      expected.forEach((wanted, i) => {
        const [type, spec] = Object.entries(wanted)[0] as [string, Document];
        const event = actual[i] as ObservedEvent;
        const where = `${clientId} event ${i} (${event.commandName})`;
        if (event.type !== type) throw new Mismatch(`${where}: expected ${type}, got ${event.type}`);
        if (spec["commandName"] !== undefined && spec["commandName"] !== event.commandName)
          throw new Mismatch(`${where}: expected ${String(spec["commandName"])}`);
        if (spec["databaseName"] !== undefined && spec["databaseName"] !== event.databaseName)
          throw new Mismatch(`${where}: expected database ${String(spec["databaseName"])}`);
        if (spec["command"] !== undefined)
          assertMatches(
            spec["command"],
            withoutDriverTimeout(spec["command"] as Document, event.command ?? {}),
            this.matchContext,
            true,
            where,
          );
        if (spec["reply"] !== undefined) assertMatches(spec["reply"], event.reply, this.matchContext, true, where);
      });
    }
  }

  async checkOutcome(outcome: Document[]): Promise<void> {
    for (const { collectionName, databaseName, documents } of outcome as {
      collectionName: string;
      databaseName: string;
      documents: Document[];
    }[]) {
      const actual = await this.internal
        .db(databaseName)
        .collection(collectionName)
        .find({}, { readConcern: { level: "local" } })
        .sort({ _id: 1 })
        .toArray();
      assertMatches(documents, actual, this.matchContext, false, `outcome ${databaseName}.${collectionName}`);
    }
  }

  async close(): Promise<void> {
    for (const name of new Set(this.turnOff))
      await this.internal
        .db("admin")
        .command({ configureFailPoint: name, mode: "off" })
        .catch(() => undefined);
    for (const value of this.entities.values()) {
      const session = value as ClientSession;
      if (typeof session.endSession === "function" && typeof session.startTransaction === "function")
        await session.endSession().catch(() => undefined);
    }
    for (const client of this.clients) await client.close(true).catch(() => undefined);
  }
}

/**
 * Ends whatever transaction, operation or cursor a test left behind. The format asks for it at a suite's start and
 * after each failed test; Node's driver runs it before every test as well (its unified runner's
 * `terminateOpenTransactions`), which the suites need on mongod too: a commit or abort the fail point refused
 * leaves its transaction open (mongod evaluates `failCommand` before it checks the session out), and the next
 * test's majority `drop` would wait for it until `transactionLifetimeLimitSeconds` (60 s). Interrupted (11601)
 * is ignored, as the format allows (SERVER-38335).
 */
async function killAllSessions(internal: MongoClient): Promise<void> {
  await internal
    .db("admin")
    .command({ killAllSessions: [] })
    .catch(() => undefined);
}

async function prepare(internal: MongoClient, initialData: Document[] | undefined): Promise<void> {
  for (const { collectionName, databaseName, documents, createOptions } of (initialData ?? []) as Document[]) {
    const db = internal.db(String(databaseName));
    await db
      .collection(String(collectionName))
      .drop({ writeConcern: { w: "majority" } })
      .catch(() => undefined);
    await db.createCollection(String(collectionName), {
      ...((createOptions as Document | undefined) ?? {}),
      writeConcern: { w: "majority" },
    });
    const docs = documents as Document[];
    if (docs.length > 0) await db.collection(String(collectionName)).insertMany(docs, { writeConcern: { w: "majority" } });
  }
}

/**
 * After a failed test: kills the sessions, then waits (bounded) for what the test was still doing, so that a
 * late write of a test that ran out of time cannot land in the next one.
 */
async function settle(internal: MongoClient, work: Promise<void> | undefined): Promise<void> {
  await killAllSessions(internal);
  await withTimeLimit(work ?? Promise.resolve(), SETTLE_TIME_LIMIT_MS).catch(() => undefined);
}

async function withTimeLimit<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Mismatch(`no answer within ${ms / 1000} s`)), ms);
  });
  try {
    return await Promise.race([work, limit]);
  } finally {
    clearTimeout(timer);
  }
}

async function runTest(uri: string, internal: MongoClient, file: Document, test: Document): Promise<Outcome> {
  if (test["skipReason"] !== undefined) return { kind: "skipped", cause: `the suite skips it: ${String(test["skipReason"])}` };
  const unmet = unmetRequirements(test["runOnRequirements"] as Document[] | undefined);
  if (unmet !== undefined) return { kind: "skipped", cause: unmet };
  const run = new TestRun(uri, internal);
  let work: Promise<void> | undefined;
  try {
    await killAllSessions(internal);
    work = (async () => {
      await prepare(internal, file["initialData"] as Document[] | undefined);
      await run.createEntities((file["createEntities"] as Document[] | undefined) ?? []);
      await run.runOperations(test["operations"] as Document[]);
      if (test["expectEvents"] !== undefined) run.checkEvents(test["expectEvents"] as Document[]);
      if (test["outcome"] !== undefined) await run.checkOutcome(test["outcome"] as Document[]);
    })();
    await withTimeLimit(work, TEST_TIME_LIMIT_MS);
    return run.refusal === undefined ? { kind: "passed" } : { kind: "refused", cause: run.refusal };
  } catch (error) {
    if (error instanceof Unsupported) return { kind: "skipped", cause: `the runner lacks ${error.message}` };
    // A read preference naming secondaries selects no server in a set of one member (the suites run on three).
    if (
      error instanceof Error &&
      error.message.includes("MongoServerSelectionError") &&
      JSON.stringify([file, test]).includes('"secondary"')
    )
      return { kind: "skipped", cause: "needs a secondary: a one-member replica set has none" };
    await settle(internal, work);
    if (run.refusal !== undefined) return { kind: "refused", cause: run.refusal };
    return { kind: "wrong", cause: error instanceof Error ? error.message : String(error) };
  } finally {
    await run.close();
  }
}

function suiteFiles(suite: string, specs: string | undefined): string[] {
  // The sessions, collection-management and index-management suites keep their unified files in `tests/` itself.
  const unified = specs === undefined ? undefined : path.join(specs, "source", suite, "tests", "unified");
  const folder = unified === undefined ? path.join(__dirname, "tests", suite) : existsSync(unified) ? unified : path.dirname(unified);
  return readdirSync(folder)
    .filter((name) => name.endsWith(".json"))
    .sort()
    .map((name) => path.join(folder, name));
}

function summarise(outcomes: { name: string; outcome: Outcome }[], verbose: boolean): void {
  for (const kind of ["passed", "wrong", "refused", "skipped"] as const) {
    const matching = outcomes.filter(({ outcome }) => outcome.kind === kind);
    process.stdout.write(`  ${kind}: ${matching.length}\n`);
    if (kind === "passed") continue;
    const byCause = new Map<string, string[]>();
    for (const { name, outcome } of matching) {
      const cause = "cause" in outcome ? outcome.cause : "";
      const key = kind === "wrong" ? `${name}: ${cause}` : cause;
      byCause.set(key, [...(byCause.get(key) ?? []), name]);
    }
    for (const [cause, names] of [...byCause].sort((a, b) => b[1].length - a[1].length))
      process.stdout.write(`    ${names.length} × ${cause}${verbose && kind !== "wrong" ? `\n      ${names.join("\n      ")}` : ""}\n`);
  }
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    options: { verbose: { type: "boolean", default: false }, grep: { type: "string" }, specs: { type: "string" } },
    allowPositionals: true,
  });
  const suites = positionals.length === 0 ? [...SUITES] : positionals;
  for (const suite of suites)
    if (!(SUITES as readonly string[]).includes(suite)) throw new Error(`unknown suite '${suite}': one of ${SUITES.join(", ")}`);
  const fromEnvironment = process.env["MONGODB_REPLICA_SET_URI"];
  const server = fromEnvironment === undefined ? await startOfflineServer({ replicaSet: "rs0", enableTestCommands: true }) : undefined;
  const uri = fromEnvironment ?? (server?.uri as string);
  const internal = new MongoClient(uri, { serverSelectionTimeoutMS: 5000 });
  try {
    for (const suite of suites) {
      const outcomes: { name: string; outcome: Outcome }[] = [];
      await killAllSessions(internal);
      for (const file of suiteFiles(suite, values.specs)) {
        const spec = EJSON.parse(readFileSync(file, "utf8"), { relaxed: true }) as Document;
        const fileUnmet = unmetRequirements(spec["runOnRequirements"] as Document[] | undefined);
        for (const test of spec["tests"] as Document[]) {
          const name = `${path.basename(file, ".json")}: ${String(test["description"])}`;
          if (values.grep !== undefined && !name.includes(values.grep)) continue;
          const outcome: Outcome =
            fileUnmet !== undefined ? { kind: "skipped", cause: fileUnmet } : await runTest(uri, internal, spec, test);
          outcomes.push({ name, outcome });
          process.stderr.write(
            `${outcome.kind.padEnd(8)} ${name}${"cause" in outcome && outcome.kind !== "skipped" ? ` — ${outcome.cause.slice(0, 300)}` : ""}\n`,
          );
        }
      }
      process.stdout.write(`${suite} (${outcomes.length} tests)\n`);
      summarise(outcomes, values.verbose);
    }
  } finally {
    await internal.close();
    await server?.stop();
  }
}

void main().catch((error: unknown) => {
  process.stderr.write(`spec-suites: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
