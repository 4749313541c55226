import { once } from "node:events";
import { performance } from "node:perf_hooks";
import type { Db } from "mongodb";
import WebSocket from "ws";
import type { OutlierSettings } from "../../src/config";
import { loadCatalog } from "../../src/maintenance/demo-catalog";
import { formatBookId } from "../../src/sales/book-ids";
import { salesCollection } from "../../src/sales/documents";
import { sendFrom } from "./from-address";
import { errorCodes, send } from "./http";
import { webSocketUrl } from "./subscriptions";

/**
 * Issue 35's victim set-up, one module for its test (`test/api/victim.test.ts`: what is not a time) and
 * its benchmark (`bench/scenarios/victim.ts`: the victim's latency): a 3,002-book catalog with 20 outliers,
 * four attackers of each amplifying kind (a broad search, windows of buyers, `_entities`, aliases), each
 * sending again as soon as it is answered, and a cheap anonymous query sent every 50 ms. Each attacker sends from
 * an address of its own (127.0.0.2 and on), as real attackers are other machines, and each client's budget
 * (client-budget.ts) is its own; the victim sends from 127.0.0.1.
 */

export const ATTACKERS_PER_KIND = 4;
/** The issue's attack: ten seconds. */
export const ATTACK_MS = 10_000;
export const VICTIM_EVERY_MS = 50;
/** Representations per `_entities` attack: as many as one request may read. */
const ENTITIES = 1_000;

/** What the attacks aim at: the catalog's outliers (for windows of buyers) and its first 1,000 books (for `_entities`). */
export interface VictimCatalog {
  outliers: string[];
  bookIds: string[];
}

/** Seeds the catalog the attacks read and names the books they aim at. */
export async function seedVictimCatalog(db: Db, settings: OutlierSettings): Promise<VictimCatalog> {
  await loadCatalog(db, { seed: 35, books: 3000, outliers: 20, maxPurchases: 2_000 }, settings);
  const books = salesCollection(db);
  const outliers = (await books.find({ has_extras: true }, { projection: { _id: 1 } }).toArray()).map(({ _id }) => formatBookId(_id));
  if (outliers.length === 0) throw new Error("the victim's catalog holds no outlier: the windows attack would read nothing");
  const bookIds = (
    await books
      .find({}, { projection: { _id: 1 } })
      .limit(ENTITIES)
      .toArray()
  ).map(({ _id }) => formatBookId(_id));
  return { outliers, bookIds };
}

export interface RequestBody {
  query: string;
  variables?: Record<string, unknown>;
}

export interface Attack {
  body: RequestBody;
  /** Whether it is sent with the `purchases:read` bearer (windows of buyers need it); every other attacker is anonymous. */
  reader: boolean;
}

/**
 * The codes each attacker's answers may carry: the refusal meant for it first, or only REQUEST_TIMEOUT (a wait
 * too long in the heavy lane) when it may be answered in full; then RATE_LIMITED, once its budget is spent.
 * Never DATABASE_UNAVAILABLE, never a 5xx.
 */
export const MEANT_CODES = {
  search: ["SEARCH_TOO_BROAD", "REQUEST_TIMEOUT", "RATE_LIMITED"],
  windows: ["QUERY_TOO_COMPLEX", "RATE_LIMITED"],
  entities: ["REQUEST_TIMEOUT", "RATE_LIMITED"],
  aliases: ["QUERY_TOO_COMPLEX", "RATE_LIMITED"],
} as const satisfies Record<string, readonly string[]>;

export type AttackKind = keyof typeof MEANT_CODES;

const KINDS = Object.keys(MEANT_CODES) as AttackKind[];

/** The address of the `index`th client of the attack (127.0.0.2 and on): every address of 127.0.0.0/8 is loopback. */
function clientAddress(index: number): string {
  return `127.0.0.${2 + index}`;
}

/** The address of attacker `index` of `kind`: one of its own. */
export function attackerAddress(kind: AttackKind, index: number): string {
  return clientAddress(KINDS.indexOf(kind) * ATTACKERS_PER_KIND + index);
}

/** The address of client `index` of the crowd sending the victim's query: past every attacker's. */
export function crowdAddress(index: number): string {
  return clientAddress(KINDS.length * ATTACKERS_PER_KIND + index);
}

const aliased = (count: number, field: (index: number) => string) => Array.from({ length: count }, (_, index) => field(index)).join(" ");

export function attacks({ outliers, bookIds }: VictimCatalog): Record<AttackKind, Attack> {
  return {
    // A common word and a prefix too short to bound anything, 15 times over.
    search: {
      body: { query: `{ ${aliased(15, (i) => `s${i}: books(first: 5, search: "the zq") { edges { node { title } } }`)} }` },
      reader: false,
    },
    // 15 windows of the newest buyers on 400 outliers.
    windows: {
      body: {
        query: `query ($r: [_Any!]!) { _entities(representations: $r) { ... on Book { ${aliased(15, (i) => `w${i}: customersPurchased(last: 1) { edges { cursor } }`)} } } }`,
        variables: {
          r: Array.from({ length: 400 }, (_, index) => ({ __typename: "Book", databaseId: outliers[index % outliers.length] })),
        },
      },
      reader: true,
    },
    // As many representations as the document limit lets in, with the catalog's public fields.
    entities: {
      body: {
        query: `query ($r: [_Any!]!) { _entities(representations: $r) { ... on Book { title author year purchaseCount } } }`,
        variables: { r: bookIds.map((databaseId) => ({ __typename: "Book", databaseId })) },
      },
      reader: false,
    },
    // The largest catalog page under every alias the limit allows: refused, as its documents are over the limit.
    aliases: {
      body: { query: `{ ${aliased(15, (i) => `a${i}: books(first: 100) { totalCount edges { node { title author } } }`)} }` },
      reader: false,
    },
  };
}

/** The victim's cheap query: one book by id, anonymous. */
export const VICTIM: RequestBody = { query: `{ book(id: "1") { title purchaseCount } }` };

/** An answer that was not a clean 200: its status and codes. */
export interface Failure {
  status: number;
  codes: unknown[];
}

/**
 * The victim's query every 50 ms until `until` (performance.now()): its latencies, in the order they were answered, when
 * each was sent (ms after the first), and any answer that was not a clean 200.
 */
export async function victim(url: string, until: number): Promise<{ latencies: number[]; sentAtMs: number[]; failures: Failure[] }> {
  const latencies: number[] = [];
  const sentAtMs: number[] = [];
  const failures: Failure[] = [];
  const begin = performance.now();
  const sent: Promise<void>[] = [];
  while (performance.now() < until) {
    sent.push(
      (async () => {
        const start = performance.now();
        const answer = await send(url, VICTIM);
        latencies.push(performance.now() - start);
        sentAtMs.push(start - begin);
        if (answer.status !== 200 || answer.json?.errors !== undefined) failures.push({ status: answer.status, codes: errorCodes(answer) });
      })(),
    );
    await new Promise((resolve) => setTimeout(resolve, VICTIM_EVERY_MS));
  }
  await Promise.all(sent);
  return { latencies, sentAtMs, failures };
}

export interface AttackAnswer {
  /** The x-request-id it was sent with, `<label>-<n>`, by which a test finds the commands it made the API send. */
  requestId: string;
  status: number;
  /** Its distinct error codes; none when answered in full. */
  codes: string[];
}

let sequence = 0;

/** Who sends a labelled request: its label, its bearer if any, and its address (127.0.0.1 unless given). */
export interface Sender {
  label: string;
  authorization?: string;
  from?: string;
}

/** One request of `text` (a JSON body), under an x-request-id `<label>-<n>` of its own. */
export async function sendLabelled(url: string, text: string, { label, authorization, from = "127.0.0.1" }: Sender): Promise<AttackAnswer> {
  const requestId = `${label}-${(sequence += 1)}`;
  const headers = { "content-type": "application/json", "x-request-id": requestId, ...(authorization && { authorization }) };
  const answer = await sendFrom(url, from, text, headers);
  const codes = (answer.json?.errors ?? []).map((error) => String(error.extensions?.code));
  return { requestId, status: answer.status, codes: [...new Set(codes)] };
}

/** One client sending `body` again as soon as it is answered, until `until`: the status and codes of every answer. */
export async function sendUntil(url: string, body: RequestBody, until: number, options: Sender): Promise<AttackAnswer[]> {
  // Serialized once: a thousand representations, stringified per request, would load the sender's process, the victim's in the benchmark.
  const text = JSON.stringify(body);
  const answers: AttackAnswer[] = [];
  while (performance.now() < until) answers.push(await sendLabelled(url, text, options));
  return answers;
}

export interface Attacker {
  kind: AttackKind;
  answers: AttackAnswer[];
}

/**
 * Four attackers of each kind, each from an address of its own, for `durationMs` beside the victim: the victim's
 * latencies and failures, and every attacker's answers. Attacking request ids start with `attack-`.
 */
export async function underAttack(url: string, catalog: VictimCatalog, authorization: string, durationMs = ATTACK_MS) {
  const until = performance.now() + durationMs;
  const attackers = Object.entries(attacks(catalog)).flatMap(([kind, attack]) =>
    Array.from({ length: ATTACKERS_PER_KIND }, async (_, index): Promise<Attacker> => {
      const options = {
        label: `attack-${kind}`,
        from: attackerAddress(kind as AttackKind, index),
        ...(attack.reader && { authorization }),
      };
      return { kind: kind as AttackKind, answers: await sendUntil(url, attack.body, until, options) };
    }),
  );
  const victimAnswers = await victim(url, until);
  return { victim: victimAnswers, attackers: await Promise.all(attackers) };
}

/**
 * The answers an attacker of `kind` was not meant to get: any code outside its own (DATABASE_UNAVAILABLE,
 * INTERNAL_SERVER_ERROR), or a 5xx without a code. REQUEST_TIMEOUT, where it is meant, is a 503 by design.
 */
export function unexpectedAnswers(kind: AttackKind, answers: readonly AttackAnswer[]): AttackAnswer[] {
  const allowed: readonly string[] = MEANT_CODES[kind];
  return answers.filter(({ status, codes }) => (status >= 500 && codes.length === 0) || codes.some((code) => !allowed.includes(code)));
}

/** What a WebSocket attacker was answered: the codes of its refused subscriptions, each once it was answered, and its sockets' close codes. */
export interface SocketAttack {
  codes: string[];
  closes: number[];
}

/** The invalid document issue 51's WebSocket attacker sent 61,682 times in 10 s: each one costs the API a parse and a validation. */
const INVALID_SUBSCRIPTION = { query: "subscription { noSuchField }" };
/** Subscribe messages the attacker has unanswered at once on a socket: it sends again as each is answered. */
const SUBSCRIBES_IN_FLIGHT = 20;
/** The sockets the WebSocket attacker holds open at once (and opens again once closed). */
export const ATTACKER_SOCKETS = 3;
/** The WebSocket attacker's address, past every HTTP attacker's and the crowd's. */
const SOCKET_ATTACKER_ADDRESS = "127.0.0.150";

/**
 * Issue 51's WebSocket attacker: anonymous sockets from one address of their own, each sending invalid subscriptions
 * with SUBSCRIBES_IN_FLIGHT unanswered at once until `until`, and a socket closed by the API opened again at once, as a
 * client that ignores its close reason does. Every code it was answered, and every close code.
 */
export async function socketAttacker(url: string, until: number, sockets = ATTACKER_SOCKETS): Promise<SocketAttack> {
  const attack: SocketAttack = { codes: [], closes: [] };
  const attackOn = async () => {
    while (performance.now() < until) attack.closes.push(await floodOneSocket(url, until, attack.codes));
  };
  await Promise.all(Array.from({ length: sockets }, attackOn));
  return attack;
}

/** One socket's flood, until `until` (then it closes it, 1000) or the API closes it: its close code. */
async function floodOneSocket(url: string, until: number, codes: string[]): Promise<number> {
  const socket = new WebSocket(webSocketUrl(url), "graphql-transport-ws", { localAddress: SOCKET_ATTACKER_ADDRESS });
  const closed = once(socket, "close").then(([code]) => code as number);
  socket.on("error", () => {});
  let sent = 0;
  const subscribe = () => {
    if (socket.readyState !== WebSocket.OPEN) return;
    if (performance.now() >= until) return socket.close(1000);
    socket.send(JSON.stringify({ id: String((sent += 1)), type: "subscribe", payload: INVALID_SUBSCRIPTION }));
  };
  socket.on("message", (data: Buffer) => {
    const message = JSON.parse(data.toString()) as { type: string; payload?: { extensions?: { code?: string } }[] };
    if (message.type === "connection_ack") for (let i = 0; i < SUBSCRIBES_IN_FLIGHT; i += 1) subscribe();
    if (message.type !== "error") return;
    codes.push(...new Set((message.payload ?? []).map((error) => String(error.extensions?.code))));
    subscribe();
  });
  socket.on("open", () => socket.send(JSON.stringify({ type: "connection_init" })));
  return closed;
}
