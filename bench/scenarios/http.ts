import type { Db } from "mongodb";
import type autocannon from "autocannon";
import type { OutlierSettings } from "../../src/config";
import { customerCursor } from "../../src/graphql/schema/cursors";
import { customerId, customerIds, seedBook } from "../kit/catalog";
import { graphql, load, post, withServer, type Scenario } from "../kit/http";
import { bookViolations } from "../kit/invariants";
import type { CommandMonitor } from "../kit/monitor";
import type { Plan } from "../kit/plan";
import type { Progress } from "../kit/progress";
import { ratio } from "../kit/stats";
import {
  BOOK_BUYERS,
  listingScenario,
  ONE_ROUND_TRIP,
  OVERHEAD,
  RECORD_PURCHASE,
  seedShelf,
  SHELF_BOOKS,
  SHELF_THRESHOLD,
  shelfCustomers,
} from "./shelf";

const HOT_BOOK = 1_000_000;
const HOT_PURCHASES = 100_000;
const DEEP_WINDOW = 20;
// A prime stride scatters consecutive requests over the whole list instead of walking it in order.
const DEEP_STRIDE = 7_919;

export interface HttpRow {
  scenario: string;
  batching: boolean;
  requests: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Commands the server sent during the measured run over the requests it completed. */
  commandsPerRequestUnderLoad: number;
  /** Commands of one request sent alone: exact, whatever the load. */
  commandsPerRequest: number;
  failures: number;
}

export interface HttpResults {
  rows: HttpRow[];
  violations: string[];
}

type Load = Plan["http"];

export function httpSteps(plan: Load): number {
  // Batched: overhead, one round trip, the listings, deep windows, one round trip beside amplifiers; unbatched: the listings; then the purchase mix.
  return 2 * plan.listingSizes.length + 5;
}

export async function benchmarkHttp(
  db: Db,
  monitor: CommandMonitor,
  settings: OutlierSettings,
  plan: Load,
  progress: Progress,
): Promise<HttpResults> {
  await seedShelfAndHotBook(db, settings);
  const rows: HttpRow[] = [];
  const listings = plan.listingSizes.map(listingScenario);
  const deepWindows: Scenario = {
    name: `deep windows of buyers of a ${HOT_PURCHASES.toLocaleString("en")}-purchase outlier (first: ${DEEP_WINDOW})`,
    body: (index) =>
      graphql(BOOK_BUYERS, {
        id: String(HOT_BOOK),
        first: DEEP_WINDOW,
        after: customerCursor((((index + 1) * DEEP_STRIDE) % (HOT_PURCHASES / DEEP_WINDOW)) * DEEP_WINDOW),
      }),
  };
  for (const batching of [true, false]) {
    await withServer(db, settings, batching, async (url) => {
      const scenarios = batching ? [OVERHEAD, ONE_ROUND_TRIP, ...listings, deepWindows] : listings;
      for (const scenario of scenarios) {
        rows.push(await measureScenario(url, monitor, scenario, batching, plan));
        progress.step(`${scenario.name}${batching ? "" : " without batching"}`);
      }
      if (!batching) return;
      rows.push(await measureBesideAmplifiers(url, monitor, plan));
      progress.step(BESIDE_AMPLIFIERS.name);
    });
  }
  const mix = await withServer(db, settings, true, (url) => measurePurchaseMix(db, url, monitor, settings, plan));
  progress.step("recordPurchase mix");
  return { rows: [...rows, mix.row], violations: mix.violations };
}

const AMPLIFIED_REPRESENTATIONS = 180;
const AMPLIFIERS = 2;

/**
 * A request as expensive as the cost limit lets through: `alsoBought` on 180 `_entities` representations
 * (cost about 91,000), one aggregation per book, 180 commands that the request's pool share holds to a
 * tenth of the pool at once.
 */
export const AMPLIFIER: Scenario = {
  name: `alsoBought(first: 1) on ${AMPLIFIED_REPRESENTATIONS} _entities representations`,
  body: () =>
    graphql(
      "query ($r: [_Any!]!) { _entities(representations: $r) { ... on Book { alsoBought(first: 1) { sharedBuyers book { title } } } } }",
      {
        r: Array.from({ length: AMPLIFIED_REPRESENTATIONS }, (_, index) => ({
          __typename: "Book",
          databaseId: String(1 + (index % SHELF_BOOKS)),
        })),
      },
    ),
};

/** One round trip while other clients send amplifying requests back to back; commands under load include theirs. */
export const BESIDE_AMPLIFIERS: Scenario = {
  name: `${ONE_ROUND_TRIP.name} beside ${AMPLIFIERS} clients sending ${AMPLIFIER.name} (commands under load include theirs)`,
  body: ONE_ROUND_TRIP.body,
};

/** What one request's share of the pool leaves the others: the public query's latency while amplifiers run throughout. */
async function measureBesideAmplifiers(url: string, monitor: CommandMonitor, plan: Load): Promise<HttpRow> {
  const commandsPerRequest = await probeCommands(url, monitor, BESIDE_AMPLIFIERS.body(0, {}));
  await probeCommands(url, monitor, AMPLIFIER.body(0, {}));
  const amplifiers = load(url, AMPLIFIER, { connections: AMPLIFIERS, duration: plan.warmupSeconds + plan.seconds });
  await load(url, BESIDE_AMPLIFIERS, { connections: plan.connections, duration: plan.warmupSeconds });
  const before = monitor.snapshot().commands;
  const result = await load(url, BESIDE_AMPLIFIERS, { connections: plan.connections, duration: plan.seconds });
  const commands = monitor.snapshot().commands - before;
  await amplifiers;
  return httpRow(BESIDE_AMPLIFIERS.name, true, result, commands, commandsPerRequest);
}

async function seedShelfAndHotBook(db: Db, settings: OutlierSettings): Promise<void> {
  await seedShelf(db, settings);
  await seedBook(db, HOT_BOOK, hotCustomers(), settings);
}

const hotCustomers = () => customerIds("hot-", HOT_PURCHASES);

async function measureScenario(url: string, monitor: CommandMonitor, scenario: Scenario, batching: boolean, plan: Load): Promise<HttpRow> {
  const commandsPerRequest = await probeCommands(url, monitor, scenario.body(0, {}));
  await load(url, scenario, { connections: plan.connections, duration: plan.warmupSeconds });
  await monitor.quiet();
  const before = monitor.snapshot().commands;
  const result = await load(url, scenario, { connections: plan.connections, duration: plan.seconds });
  const commands = monitor.snapshot().commands - before;
  return httpRow(scenario.name, batching, result, commands, commandsPerRequest);
}

function httpRow(scenario: string, batching: boolean, result: autocannon.Result, commands: number, commandsPerRequest: number): HttpRow {
  return {
    scenario,
    batching,
    requests: result.requests.total,
    requestsPerSecond: result.requests.total / result.duration,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    commandsPerRequestUnderLoad: ratio(commands, result.requests.total),
    commandsPerRequest,
    failures: result.non2xx + result.errors,
  };
}

/** Sends one request alone and counts its commands exactly; a GraphQL error here would make every figure meaningless. */
async function probeCommands(url: string, monitor: CommandMonitor, body: string): Promise<number> {
  await monitor.quiet();
  const measured = await monitor.measure(() => post(url, body));
  const reply = measured.result as { errors?: unknown };
  if (reply.errors) throw new Error(`bench request failed: ${JSON.stringify(reply.errors)}`);
  return measured.commands;
}

/** The customers the mix sent and which of them the API acknowledged, by book. */
class PurchaseLog {
  private sent = 0;
  readonly acknowledged = new Map<number, string[]>();

  /** Half the purchases go to the hot outlier, the rest round the shelf: both paths of recordPurchase under contention. */
  next(connection: object): string {
    const index = this.sent++;
    const bookId = index % 2 === 0 ? HOT_BOOK : 1 + ((index >> 1) % SHELF_BOOKS);
    const customer = customerId("http-", index);
    Object.assign(connection, { bookId, customer });
    return graphql(RECORD_PURCHASE, { bookId: String(bookId), customerId: customer });
  }

  onResponse(status: number, body: string, connection: object): void {
    const { bookId, customer } = connection as { bookId?: number; customer?: string };
    if (status !== 200 || bookId === undefined || customer === undefined) return;
    if ((JSON.parse(body) as { errors?: unknown }).errors) return;
    this.acknowledged.set(bookId, [...(this.acknowledged.get(bookId) ?? []), customer]);
  }
}

/**
 * Purchases over HTTP from concurrent connections, run for a fixed number of requests rather than
 * a duration so that every request sent is answered before the books are checked: each
 * acknowledged purchase must be stored exactly once, and nothing else.
 */
async function measurePurchaseMix(db: Db, url: string, monitor: CommandMonitor, settings: OutlierSettings, plan: Load) {
  const log = new PurchaseLog();
  const scenario: Scenario = {
    name: `recordPurchase mix (half on the outlier, half round ${SHELF_BOOKS} books)`,
    body: (_index, connection) => log.next(connection),
  };
  const onResponse = (status: number, body: string, connection: object) => log.onResponse(status, body, connection);
  const probeConnection = {};
  const commandsPerRequest = await probeCommands(url, monitor, scenario.body(0, probeConnection));
  log.onResponse(200, "{}", probeConnection);
  await load(url, scenario, { connections: plan.connections, amount: plan.mixWarmupRequests }, onResponse);
  const before = monitor.snapshot().commands;
  const result = await load(url, scenario, { connections: plan.connections, amount: plan.mixRequests }, onResponse);
  const row = httpRow(scenario.name, true, result, monitor.snapshot().commands - before, commandsPerRequest);
  return { row, violations: await mixViolations(db, log, settings) };
}

async function mixViolations(db: Db, log: PurchaseLog, settings: OutlierSettings): Promise<string[]> {
  const violations = await bookViolations(db, HOT_BOOK, [...hotCustomers(), ...(log.acknowledged.get(HOT_BOOK) ?? [])], settings);
  for (let book = 1; book <= SHELF_BOOKS; book += 1) {
    const expected = [...shelfCustomers(book), ...(log.acknowledged.get(book) ?? [])];
    violations.push(...(await bookViolations(db, book, expected, { outlierThreshold: SHELF_THRESHOLD })));
  }
  return violations;
}
