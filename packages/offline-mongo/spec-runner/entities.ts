import { deserialize, serialize } from "bson";
import {
  ChangeStream,
  ClientSession,
  Collection,
  Db,
  MongoClient,
  ReadPreference,
  type ReadPreferenceMode,
  type TagSet,
  type CommandFailedEvent,
  type CommandStartedEvent,
  type CommandSucceededEvent,
  type Document,
  type MongoClientOptions,
} from "mongodb";
import { UnsupportedError, type MatchEntities } from "./matching";

/** An event a client observed, in the format's own names. */
export interface ObservedEvent {
  readonly type: string;
  readonly commandName?: string;
  readonly databaseName?: string;
  readonly command?: Document;
  readonly reply?: Document;
}

/** A client entity and what it observed. */
export class ClientEntity {
  readonly events: ObservedEvent[] = [];
  observing = true;

  constructor(
    readonly client: MongoClient,
    private readonly observe: ReadonlySet<string>,
    private readonly ignored: ReadonlySet<string>,
  ) {
    client.on("commandStarted", (event: CommandStartedEvent) =>
      this.record("commandStartedEvent", event.commandName, { databaseName: event.databaseName, command: event.command }),
    );
    client.on("commandSucceeded", (event: CommandSucceededEvent) =>
      this.record("commandSucceededEvent", event.commandName, { databaseName: event.databaseName, reply: event.reply as Document }),
    );
    client.on("commandFailed", (event: CommandFailedEvent) =>
      this.record("commandFailedEvent", event.commandName, { databaseName: event.databaseName }),
    );
    client.on("connectionCheckOutStarted", () => this.record("connectionCheckOutStartedEvent"));
  }

  private record(type: string, commandName?: string, detail: Omit<ObservedEvent, "type" | "commandName"> = {}): void {
    if (!this.observing || !this.observe.has(type)) return;
    if (commandName !== undefined && (this.ignored.has(commandName) || SENSITIVE.has(commandName) || commandName === "configureFailPoint"))
      return;
    this.events.push({ type, ...(commandName === undefined ? {} : { commandName }), ...snapshot(detail) });
  }
}

/** A copy of an event's documents as they were sent: the driver goes on changing some of them (a read concern gains afterClusterTime). */
function snapshot(detail: Omit<ObservedEvent, "type" | "commandName">): Omit<ObservedEvent, "type" | "commandName"> {
  const copy = (document: Document | undefined): Document | undefined =>
    document === undefined ? undefined : deserialize(serialize(document, { ignoreUndefined: true }), { promoteValues: false });
  return {
    ...detail,
    ...(detail.command === undefined ? {} : { command: copy(detail.command) }),
    ...(detail.reply === undefined ? {} : { reply: copy(detail.reply) }),
  };
}

/** Commands whose events the format ignores unless asked (the Command Logging and Monitoring spec's list). */
const SENSITIVE = new Set([
  "authenticate",
  "saslStart",
  "saslContinue",
  "getnonce",
  "createUser",
  "updateUser",
  "copydbgetnonce",
  "copydbsaslstart",
  "copydb",
]);

export type Entity = ClientEntity | Db | Collection | ClientSession | ChangeStream | Document | unknown;

/** The entities of one test, by name. */
export class EntityMap implements MatchEntities {
  private readonly entities = new Map<string, Entity>();

  constructor(private readonly uri: string) {}

  set(name: string, entity: Entity): void {
    if (this.entities.has(name)) throw new Error(`entity ${name} is defined twice`);
    this.entities.set(name, entity);
  }

  get(name: string): Entity {
    if (!this.entities.has(name)) throw new Error(`no entity named ${name}`);
    return this.entities.get(name);
  }

  of<T>(name: string, kind: abstract new (...args: never[]) => T): T {
    const entity = this.get(name);
    if (!(entity instanceof kind)) throw new Error(`entity ${name} is not a ${kind.name}`);
    return entity;
  }

  lsidOf(sessionName: string): Document {
    const id = this.of(sessionName, ClientSession).id;
    if (id === undefined) throw new Error(`session ${sessionName} has no id`);
    return id;
  }

  valueOf(entityName: string): unknown {
    return this.get(entityName);
  }

  clients(): ClientEntity[] {
    return [...this.entities.values()].filter((entity): entity is ClientEntity => entity instanceof ClientEntity);
  }

  /** Creates the entities a `createEntities` list describes, in order. */
  create(definitions: Document[]): void {
    for (const definition of definitions) {
      const [kind, spec] = Object.entries(definition)[0] as [string, Document];
      this.set(spec["id"] as string, this.build(kind, spec));
    }
  }

  private build(kind: string, spec: Document): Entity {
    switch (kind) {
      case "client":
        return this.buildClient(spec);
      case "database":
        return this.of(spec["client"] as string, ClientEntity).client.db(
          spec["databaseName"] as string,
          collectionOptions(spec["databaseOptions"]),
        );
      case "collection":
        return this.of(spec["database"] as string, Db).collection(
          spec["collectionName"] as string,
          collectionOptions(spec["collectionOptions"]),
        );
      case "session":
        return this.of(spec["client"] as string, ClientEntity).client.startSession(sessionOptions(spec["sessionOptions"]));
      default:
        throw new UnsupportedError(`entities of kind ${kind}`);
    }
  }

  private buildClient(spec: Document): ClientEntity {
    for (const option of ["serverApi", "autoEncryptOpts", "observeLogMessages", "observeTracingMessages", "awaitMinPoolSizeMS"]) {
      if (spec[option] !== undefined) throw new UnsupportedError(`client option ${option}`);
    }
    const uriOptions = { ...(spec["uriOptions"] as Document | undefined) };
    const options: MongoClientOptions = { monitorCommands: true, serverSelectionTimeoutMS: 10_000, ...uriOptions };
    if (uriOptions["appname"] !== undefined) options.appName = uriOptions["appname"] as string;
    if (uriOptions["w"] !== undefined) options.writeConcern = { w: uriOptions["w"] as number };
    if (uriOptions["heartbeatFrequencyMS"] === undefined) options.heartbeatFrequencyMS = 500;
    delete (options as Document)["appname"];
    delete (options as Document)["w"];
    const client = new MongoClient(this.uri, options);
    return new ClientEntity(
      client,
      new Set(spec["observeEvents"] as string[] | undefined),
      new Set(spec["ignoreCommandMonitoringEvents"] as string[] | undefined),
    );
  }

  /** Ends sessions, closes streams and clients: what the format asks after each test. */
  async close(): Promise<void> {
    for (const entity of this.entities.values()) {
      if (entity instanceof ChangeStream) await entity.close().catch(() => undefined);
    }
    for (const entity of this.entities.values()) {
      if (entity instanceof ClientSession) await entity.endSession().catch(() => undefined);
    }
    for (const entity of this.entities.values()) {
      if (entity instanceof ClientEntity) await entity.client.close().catch(() => undefined);
    }
  }
}

/** Collection, database and transaction options as the driver takes them: read and write concerns as they are, the read preference built. */
export function collectionOptions(spec: unknown): Document {
  if (spec === undefined) return {};
  const options = { ...(spec as Document) };
  if (options["readPreference"] !== undefined) options["readPreference"] = readPreferenceOf(options["readPreference"] as Document);
  return options;
}

export function readPreferenceOf(spec: Document): ReadPreference {
  const mode = String(spec["mode"]).replace(/^./, (c) => c.toLowerCase()) as ReadPreferenceMode;
  return new ReadPreference(
    mode,
    spec["tagSets"] as TagSet[] | undefined,
    spec["maxStalenessSeconds"] === undefined ? {} : { maxStalenessSeconds: Number(spec["maxStalenessSeconds"]) },
  );
}

function sessionOptions(spec: unknown): Document {
  if (spec === undefined) return {};
  const options = { ...(spec as Document) };
  if (options["defaultTransactionOptions"] !== undefined)
    options["defaultTransactionOptions"] = collectionOptions(options["defaultTransactionOptions"]);
  return options;
}
