/**
 * Runs MongoDB's unified spec suites (the unified test format) through the official driver against the
 * stand-in, or any deployment, and counts each test as passed, wrong, refused (the server said it does not
 * implement something) or skipped (by cause). The suites are not shipped here (their licence is not this
 * package's): point `--specs` at a checkout of the public mongodb/specifications repository.
 *
 *   npm run spec -w @bookstore/offline-mongo -- --specs ../specifications [--suite change-streams] [--uri URI] [--verbose]
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { EJSON } from "bson";
import { MongoClient, MongoServerError, type Document } from "mongodb";
import { startOfflineServer } from "../src/index";
import { ClientEntity, EntityMap, type ObservedEvent } from "./entities";
import { assertMatches, assertSameDocuments, MismatchError, UnsupportedError } from "./matching";
import { runEntityOperation, runSpecialOperation, type RunnerState } from "./operations";

const SUITES = ["change-streams", "transactions", "retryable-writes"] as const;
/** The schema versions this runner reads (the format's minor versions add fields it may not know: those tests refuse or skip). */
const SCHEMA_MAJOR = "1";

type Verdict = { kind: "passed" } | { kind: "wrong" | "refused" | "skipped"; cause: string };

interface Deployment {
  readonly uri: string;
  readonly version: number[];
  readonly topology: "single" | "replicaset" | "sharded";
  /** A replica set with secondaries, which a client reading from `secondary` needs. */
  readonly hasSecondaries: boolean;
}

/**
 * How a server says it does not implement something: mongod's CommandNotFound and NotImplemented, and any
 * error of the stand-in's that names itself ("offline server: ..."), such as an option it does not take.
 */
const REFUSAL_CODES = new Set([59, 238]);
const REFUSAL_PREFIX = "offline server:";

function versionOf(text: string): number[] {
  return text
    .split(/[.-]/)
    .slice(0, 3)
    .map((part) => Number.parseInt(part, 10) || 0);
}

function compareVersions(a: number[], b: number[]): number {
  for (let i = 0; i < 3; i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) - (b[i] ?? 0);
  return 0;
}

/** Why a requirement is not met, or undefined when it is. */
function unmet(requirement: Document, deployment: Deployment): string | undefined {
  if (requirement["minServerVersion"] && compareVersions(deployment.version, versionOf(requirement["minServerVersion"] as string)) < 0)
    return `needs server ${requirement["minServerVersion"]}+`;
  if (requirement["maxServerVersion"] && compareVersions(deployment.version, versionOf(requirement["maxServerVersion"] as string)) > 0)
    return `needs server ≤ ${requirement["maxServerVersion"]}`;
  const topologies = requirement["topologies"] as string[] | undefined;
  if (
    topologies &&
    !topologies.some(
      (topology) => topology === deployment.topology || (topology === "sharded-replicaset" && deployment.topology === "sharded"),
    )
  )
    return `needs topology ${topologies.join("/")}`;
  if (requirement["serverless"] === "require") return "needs serverless";
  if (requirement["auth"] === true) return "needs authentication";
  if (requirement["csfle"]) return "needs client-side encryption";
  if (requirement["serverParameters"]) return "checks server parameters";
  return undefined;
}

function firstUnmet(requirements: Document[] | undefined, deployment: Deployment): string | undefined {
  if (!requirements || requirements.length === 0) return undefined;
  const reasons = requirements.map((requirement) => unmet(requirement, deployment));
  return reasons.every((reason) => reason !== undefined) ? reasons[0] : undefined;
}

/** An error as a refusal's cause, when the server said it does not implement what was asked. */
function refusalOf(error: unknown): string | undefined {
  if (error instanceof MongoServerError && (REFUSAL_CODES.has(Number(error.code)) || error.message.startsWith(REFUSAL_PREFIX)))
    return `${error.code} ${error.codeName ?? ""}: ${error.message}`.slice(0, 160);
  return undefined;
}

function assertExpectedError(expected: Document, error: unknown, state: RunnerState): void {
  if (!(error instanceof Error)) throw new Error(`expected an error, got ${String(error)}`);
  const server = error instanceof MongoServerError ? error : undefined;
  const mongoError = error as Error & {
    hasErrorLabel?: (label: string) => boolean;
    code?: unknown;
    codeName?: unknown;
    errorResponse?: Document;
    result?: unknown;
  };
  if (expected["isClientError"] === true && server)
    throw new Error(`expected a client error, got server error ${server.code}: ${server.message}`);
  if (expected["isClientError"] === false && !server) throw new Error(`expected a server error, got ${error.message}`);
  if (expected["errorContains"] && !error.message.toLowerCase().includes(String(expected["errorContains"]).toLowerCase()))
    throw new Error(`error "${error.message}" lacks "${expected["errorContains"]}"`);
  if (expected["errorCode"] !== undefined && Number(mongoError.code) !== Number(expected["errorCode"]))
    throw new Error(`expected error code ${expected["errorCode"]}, got ${String(mongoError.code)} (${error.message})`);
  if (
    expected["errorCodeName"] !== undefined &&
    String(mongoError.codeName ?? "").toLowerCase() !== String(expected["errorCodeName"]).toLowerCase()
  )
    throw new Error(`expected codeName ${expected["errorCodeName"]}, got ${String(mongoError.codeName)} (${error.message})`);
  for (const label of (expected["errorLabelsContain"] as string[] | undefined) ?? [])
    if (!mongoError.hasErrorLabel?.(label)) throw new Error(`error lacks label ${label} (${error.message})`);
  for (const label of (expected["errorLabelsOmit"] as string[] | undefined) ?? [])
    if (mongoError.hasErrorLabel?.(label)) throw new Error(`error has label ${label}`);
  if (expected["errorResponse"] !== undefined) assertMatches(expected["errorResponse"], mongoError.errorResponse, state.entities);
  if (expected["expectResult"] !== undefined) assertMatches(expected["expectResult"], resultAsDocument(mongoError.result), state.entities);
}

function resultAsDocument(result: unknown): unknown {
  // The driver exports BulkWriteResult as a type only: its results are told apart by their fields.
  if (result !== null && typeof result === "object" && "upsertedIds" in result && "deletedCount" in result) {
    const { insertedCount, matchedCount, modifiedCount, deletedCount, upsertedCount, upsertedIds, insertedIds } = result as Document;
    return { insertedCount, matchedCount, modifiedCount, deletedCount, upsertedCount, upsertedIds, insertedIds };
  }
  return result;
}

class TestRun implements RunnerState {
  readonly failPoints = new Set<string>();
  readonly entities: EntityMap;
  /** The first refusal any operation met, which explains a failure better than the assertion it caused. */
  refusal: string | undefined;

  constructor(
    readonly internal: MongoClient,
    deployment: Deployment,
  ) {
    this.entities = new EntityMap(deployment.uri);
  }

  async runOperations(operations: Document[]): Promise<void> {
    for (const operation of operations) await this.runOperation(operation);
  }

  /** Lets an error through, noting it first when it is the server's refusal. */
  private async noteRefusal<T>(operation: Promise<T>): Promise<T> {
    return operation.catch((error: unknown) => {
      this.refusal ??= refusalOf(error);
      throw error;
    });
  }

  private async runOperation(operation: Document): Promise<void> {
    const name = operation["name"] as string;
    const object = operation["object"] as string;
    const args = (operation["arguments"] as Document | undefined) ?? {};
    if (object === "testRunner") return this.noteRefusal(runSpecialOperation(this, name, args));
    let result: unknown;
    let error: unknown;
    try {
      result = await runEntityOperation(this, object, name, args);
    } catch (caught) {
      if (caught instanceof UnsupportedError) throw caught;
      error = caught;
      this.refusal ??= refusalOf(caught);
    }
    if (operation["ignoreResultAndError"]) return;
    const expectError = operation["expectError"] as Document | undefined;
    if (expectError) return assertExpectedError(expectError, error ?? new NoErrorRaised(result), this);
    if (error !== undefined) throw error;
    if (operation["expectResult"] !== undefined) assertMatches(operation["expectResult"], resultAsDocument(result), this.entities);
    if (operation["saveResultAsEntity"]) this.entities.set(operation["saveResultAsEntity"] as string, result);
  }
}

/** An operation that was to fail succeeded. */
class NoErrorRaised extends Error {
  constructor(result: unknown) {
    super(`expected an error; the operation succeeded with ${EJSON.stringify(resultAsDocument(result) as Document)?.slice(0, 200)}`);
  }
}

/**
 * The event without what the Node driver adds where the spec's tests expect nothing: mongodb 7.9 gives every
 * commitTransaction and abortTransaction that has a write concern `wtimeout: 10000` (its sessions.js), which no server sends.
 * The runner judges the server, so it forgives the driver this.
 */
function withoutDriverAdditions(event: ObservedEvent, expected: Document): ObservedEvent {
  const writeConcern = event.command?.["writeConcern"] as Document | undefined;
  const expectedWriteConcern = (expected["command"] as Document | undefined)?.["writeConcern"] as Document | undefined;
  if (
    !["commitTransaction", "abortTransaction"].includes(event.commandName ?? "") ||
    writeConcern === undefined ||
    expectedWriteConcern?.["wtimeout"] !== undefined
  )
    return event;
  const { wtimeout, ...rest } = writeConcern;
  return Number(wtimeout) === 10_000 ? { ...event, command: { ...event.command, writeConcern: rest } } : event;
}

function assertEvents(run: TestRun, expectations: Document[]): void {
  for (const expectation of expectations) {
    const eventType = (expectation["eventType"] as string | undefined) ?? "command";
    const observed = run.entities
      .of(expectation["client"] as string, ClientEntity)
      .events.filter((event) =>
        eventType === "cmap" ? event.type.startsWith("connection") || event.type.startsWith("pool") : event.type.startsWith("command"),
      );
    const expected = expectation["events"] as Document[];
    const compared = expectation["ignoreExtraEvents"] ? observed.slice(0, expected.length) : observed;
    if (compared.length !== expected.length)
      throw new MismatchError(
        "events",
        `expected ${expected.length} ${eventType} events, got ${compared.length}: ${compared.map((event) => `${event.type}:${event.commandName ?? ""}`).join(", ")}`,
      );
    expected.forEach((expectedEvent, index) => {
      const [type, detail] = Object.entries(expectedEvent)[0] as [string, Document];
      const event = compared[index]!;
      if (event.type !== type)
        throw new MismatchError(`events[${index}]`, `expected ${type}, got ${event.type}:${event.commandName ?? ""}`);
      const observedEvent = withoutDriverAdditions(event, detail);
      for (const field of ["command", "reply", "commandName", "databaseName"]) {
        if (detail[field] !== undefined)
          assertMatches(detail[field], observedEvent[field as keyof ObservedEvent], run.entities, true, `events[${index}].${field}`);
      }
    });
  }
}

async function prepareData(internal: MongoClient, initialData: Document[] | undefined): Promise<void> {
  for (const data of initialData ?? []) {
    const db = internal.db(data["databaseName"] as string);
    const name = data["collectionName"] as string;
    await db
      .collection(name)
      .drop({ writeConcern: { w: "majority" } })
      .catch(() => undefined);
    const documents = data["documents"] as Document[];
    if (documents.length > 0) await db.collection(name).insertMany(documents, { writeConcern: { w: "majority" } });
    else await db.createCollection(name, { writeConcern: { w: "majority" }, ...((data["createOptions"] as Document | undefined) ?? {}) });
  }
}

async function assertOutcome(run: TestRun, outcome: Document[] | undefined): Promise<void> {
  for (const data of outcome ?? []) {
    const documents = await run.internal
      .db(data["databaseName"] as string)
      .collection(data["collectionName"] as string)
      .find({}, { sort: { _id: 1 }, readPreference: "primary", readConcern: { level: "local" } })
      .toArray();
    assertSameDocuments(data["documents"] as Document[], documents, run.entities);
  }
}

let killAllSessionsRefused = false;

/**
 * Ends every open transaction, as the format asks before a suite and after a failed test. A server that
 * lacks the command is said once: a transaction a failed test left open may then block the next tests.
 */
async function killAllSessions(internal: MongoClient): Promise<void> {
  await internal
    .db("admin")
    .command({ killAllSessions: [] })
    .catch((error: unknown) => {
      if (error instanceof MongoServerError && [11601, 13].includes(Number(error.code))) return;
      if (error instanceof MongoServerError && Number(error.code) === 59 && !killAllSessionsRefused) {
        killAllSessionsRefused = true;
        process.stdout.write(
          `note: the server refuses killAllSessions (${error.message}); a failed test's open transaction may block the next\n`,
        );
        return;
      }
      if (!killAllSessionsRefused) throw error;
    });
}

async function disableFailPoints(run: TestRun): Promise<void> {
  for (const name of run.failPoints) await run.internal.db("admin").command({ configureFailPoint: name, mode: "off" });
}

/** A test whose client reads from `secondary` cannot select a server on a one-member replica set. */
function needsSecondary(test: Document, deployment: Deployment): string | undefined {
  if (deployment.hasSecondaries) return undefined;
  return /"readPreference":"secondary"/.test(JSON.stringify(test["operations"]))
    ? "needs a secondary (the deployment has one member)"
    : undefined;
}

async function runTest(file: Document, test: Document, internal: MongoClient, deployment: Deployment): Promise<Verdict> {
  const skip = test["skipReason"]
    ? String(test["skipReason"])
    : (firstUnmet(test["runOnRequirements"] as Document[] | undefined, deployment) ?? needsSecondary(test, deployment));
  if (skip) return { kind: "skipped", cause: skip };
  const run = new TestRun(internal, deployment);
  let verdict: Verdict = { kind: "passed" };
  try {
    await prepareData(internal, file["initialData"] as Document[] | undefined);
    run.entities.create((file["createEntities"] as Document[] | undefined) ?? []);
    await run.runOperations(test["operations"] as Document[]);
    for (const client of run.entities.clients()) client.observing = false;
    await disableFailPoints(run);
    assertEvents(run, (test["expectEvents"] as Document[] | undefined) ?? []);
    await assertOutcome(run, test["outcome"] as Document[] | undefined);
  } catch (error) {
    if (error instanceof UnsupportedError) verdict = { kind: "skipped", cause: error.message };
    else if (run.refusal) verdict = { kind: "refused", cause: run.refusal };
    else verdict = { kind: "wrong", cause: error instanceof Error ? error.message : String(error) };
  } finally {
    await disableFailPoints(run).catch(() => undefined);
    await run.entities.close();
  }
  if (verdict.kind !== "passed") await killAllSessions(internal).catch(() => undefined);
  return verdict;
}

function loadSuite(specs: string, suite: string): { name: string; file: Document }[] {
  const folder = [join(specs, "source", suite, "tests", "unified"), join(specs, suite, "tests", "unified")].find((candidate) => {
    try {
      return readdirSync(candidate).length > 0;
    } catch {
      return false;
    }
  });
  if (!folder) throw new Error(`no unified tests of ${suite} under ${specs}: give --specs a checkout of mongodb/specifications`);
  return readdirSync(folder)
    .filter((name) => name.endsWith(".json"))
    .sort()
    .map((name) => ({ name, file: EJSON.parse(readFileSync(join(folder, name), "utf8"), { relaxed: true }) as Document }));
}

async function describeDeployment(uri: string): Promise<Deployment> {
  const client = new MongoClient(uri, { serverSelectionTimeoutMS: 10_000 });
  try {
    const admin = client.db("admin");
    const [hello, buildInfo] = await Promise.all([admin.command({ hello: 1 }), admin.command({ buildInfo: 1 })]);
    const topology = hello["msg"] === "isdbgrid" ? "sharded" : hello["setName"] ? "replicaset" : "single";
    const hasSecondaries =
      ((hello["hosts"] as string[] | undefined) ?? []).length + ((hello["passives"] as string[] | undefined) ?? []).length > 1;
    return { uri, version: versionOf(String(buildInfo["version"])), topology, hasSecondaries };
  } finally {
    await client.close();
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      specs: { type: "string" },
      suite: { type: "string", multiple: true },
      uri: { type: "string" },
      verbose: { type: "boolean", default: false },
      only: { type: "string" },
    },
  });
  if (!values.specs) throw new Error("--specs is required: the path of a checkout of the public mongodb/specifications repository");
  const offline = values.uri ? undefined : await startOfflineServer({ replicaSet: "rs0", enableTestCommands: true });
  const uri = values.uri ?? `${offline!.uri}?replicaSet=rs0`;
  const deployment = await describeDeployment(uri);
  process.stdout.write(`unified spec suites against ${uri} (${deployment.topology}, server ${deployment.version.join(".")})\n`);
  const internal = new MongoClient(uri, { serverSelectionTimeoutMS: 10_000 });
  const totals: Record<string, Record<string, number>> = {};
  const causes = new Map<string, number>();
  try {
    await killAllSessions(internal);
    for (const suite of values.suite ?? SUITES) {
      const counts: Record<string, number> = { passed: 0, wrong: 0, refused: 0, skipped: 0 };
      for (const { name, file } of loadSuite(values.specs, suite)) {
        const fileSkip =
          String(file["schemaVersion"]).split(".")[0] !== SCHEMA_MAJOR
            ? `schema ${file["schemaVersion"]}`
            : firstUnmet(file["runOnRequirements"] as Document[] | undefined, deployment);
        const chosen = (file["tests"] as Document[]).filter(
          (test) => !values.only || `${name}: ${String(test["description"])}`.includes(values.only),
        );
        for (const test of chosen) {
          const verdict: Verdict = fileSkip ? { kind: "skipped", cause: fileSkip } : await runTest(file, test, internal, deployment);
          counts[verdict.kind] = (counts[verdict.kind] ?? 0) + 1;
          if (verdict.kind !== "passed") {
            const key = `${suite} ${verdict.kind}: ${verdict.cause.split("\n")[0]!.slice(0, 140)}`;
            causes.set(key, (causes.get(key) ?? 0) + 1);
          }
          if (values.verbose || verdict.kind === "wrong")
            process.stdout.write(
              `${verdict.kind.padEnd(7)} ${suite}/${name}: ${String(test["description"])}${verdict.kind === "passed" ? "" : ` — ${verdict.cause.split("\n")[0]}`}\n`,
            );
        }
      }
      totals[suite] = counts;
      process.stdout.write(
        `${suite}: ${counts["passed"]} passed, ${counts["wrong"]} wrong, ${counts["refused"]} refused, ${counts["skipped"]} skipped\n`,
      );
    }
  } finally {
    await internal.close();
    await offline?.stop();
  }
  process.stdout.write("\nCauses (tests that did not pass), most first:\n");
  for (const [cause, count] of [...causes].sort((a, b) => b[1] - a[1])) process.stdout.write(`${String(count).padStart(4)}  ${cause}\n`);
  const wrong = Object.values(totals).reduce((sum, counts) => sum + (counts["wrong"] ?? 0), 0);
  process.exitCode = wrong > 0 ? 1 : 0;
}

void main().catch((error: unknown) => {
  process.stderr.write(`spec runner: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(2);
});
