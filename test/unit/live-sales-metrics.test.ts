import { Counter } from "prom-client";
import { createServerMetrics } from "../../src/observability/metrics";

const DELIVERED = "bookstore_subscription_events_delivered_total";

/** The delivered counter's samples in one scrape, by field. */
async function deliveredAtScrape(metrics: ReturnType<typeof createServerMetrics>): Promise<Record<string, number>> {
  const text = await metrics.registry.metrics();
  const samples = [...text.matchAll(new RegExp(`^${DELIVERED}\\{field="(\\w+)"\\} (\\d+)$`, "gm"))];
  return Object.fromEntries(samples.map(([, field, value]) => [field, Number(value)]));
}

describe("live sales' delivered values in /metrics", () => {
  afterEach(() => jest.restoreAllMocks());

  it("shows at each scrape every value delivered so far, by field, counted once however often it is scraped", async () => {
    const metrics = createServerMetrics(async () => 0);
    expect(await deliveredAtScrape(metrics)).toEqual({ bookSales: 0, bestsellers: 0, newBuyers: 0 });
    for (let value = 0; value < 1_500; value += 1) metrics.live.onDelivered("bookSales", value % 3 === 0 ? undefined : 0.02);
    metrics.live.onDelivered("newBuyers", 0.5);
    expect(await deliveredAtScrape(metrics)).toEqual({ bookSales: 1_500, bestsellers: 0, newBuyers: 1 });
    expect(await deliveredAtScrape(metrics)).toEqual({ bookSales: 1_500, bestsellers: 0, newBuyers: 1 });
    metrics.live.onDelivered("bestsellers", 0.01);
    expect(await deliveredAtScrape(metrics)).toEqual({ bookSales: 1_500, bestsellers: 1, newBuyers: 1 });
  });

  it("counts a delivery without an increment of prom-client's: it reads the count when scraped", async () => {
    // prom-client's instances take their increment from the prototype when made: spied on first, every counter counts through the spy.
    const prototype = Counter.prototype as unknown as { incWithoutExemplar: (...args: unknown[]) => unknown };
    const increments = jest.spyOn(prototype, "incWithoutExemplar");
    const metrics = createServerMetrics(async () => 0);
    increments.mockClear();
    for (let value = 0; value < 1_000; value += 1) metrics.live.onDelivered("bookSales", 0.02);
    expect(increments).not.toHaveBeenCalled();
    expect((await deliveredAtScrape(metrics))["bookSales"]).toBe(1_000);
  });
});
