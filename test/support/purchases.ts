import type { Db } from "mongodb";
import type { KeyedPurchaseSettings } from "../../src/sales/keyed-purchases";
import { PurchaseService, type PurchaseServiceOptions } from "../../src/sales/purchase-service";
import type { PurchaseOutcome, PurchaseRequest } from "../../src/sales/purchases";

/** Records one purchase as a server that has just started would: a purchase service of its own, stopped afterwards. */
export async function recordAsNewServer(
  db: Db,
  request: PurchaseRequest,
  settings: KeyedPurchaseSettings,
  options: PurchaseServiceOptions = {},
): Promise<PurchaseOutcome> {
  const purchases = new PurchaseService(db, options);
  try {
    return await purchases.record(request, settings);
  } finally {
    await purchases.stop();
  }
}
