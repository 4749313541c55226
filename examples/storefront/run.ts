import { randomUUID } from "node:crypto";
import { cleanEnv, str, url } from "envalid";
import { StorefrontApiError, StorefrontClient } from "./client";

/**
 * `npm run example`: what a storefront does with the API, against a running server (`npm start`).
 * Prints a catalog page and the buyers of its best-selling book, then checks out one order line
 * and sends the same checkout again, as a client would after a timeout: the retry buys nothing.
 */
export async function runStorefront(client: StorefrontClient, print: (line: string) => void): Promise<void> {
  const catalog = await client.listBooks(5, 3);
  print(`Catalog: ${catalog.books.totalCount} books; the first ${catalog.books.edges.length}, each with up to 3 buyers:`);
  for (const { node: book } of catalog.books.edges) {
    const buyers = book.customersPurchased.edges.map((edge) => edge.node.databaseId).join(", ");
    print(
      `  ${book.databaseId.padEnd(6)} ${book.title} by ${book.author} (${book.year ?? "undated"}): ${book.purchaseCount} sold; buyers ${buyers || "none"}`,
    );
  }

  const bestSeller = catalog.books.edges.map((edge) => edge.node).sort((a, b) => b.purchaseCount - a.purchaseCount)[0];
  if (!bestSeller) throw new Error("The catalog is empty: start the server without MONGODB_URI for the demo data, or add a book first.");
  const { book } = await client.bookBuyers(bestSeller.id, 10);
  const buyers = book!.customersPurchased;
  print(
    `Buyers of "${book!.title}": ${buyers.totalCount} in all, the first ${buyers.edges.length}: ${buyers.edges.map((edge) => edge.node.databaseId).join(", ")}`,
  );

  const purchaseId = `order-${randomUUID()}-line-1`;
  const first = await client.recordPurchase(bestSeller.id, "storefront-example", purchaseId);
  print(`Checkout ${purchaseId}: stored in ${first.recordPurchase.storedIn}, the book has sold ${first.recordPurchase.book.purchaseCount}`);
  const retry = await client.recordPurchase(bestSeller.id, "storefront-example", purchaseId);
  print(
    `Same checkout again: replayed ${retry.recordPurchase.replayed}, stored in ${retry.recordPurchase.storedIn}, ` +
      `still ${retry.recordPurchase.book.purchaseCount} sold`,
  );
}

const REFUSED_ACCESS = new Set(["UNAUTHENTICATED", "FORBIDDEN"]);

/** What went wrong, in the words that lead to the fix: a refused token, an API out of reach, or the API's own error. */
export function explainFailure(error: unknown, apiUrl: string): string {
  if (error instanceof StorefrontApiError && REFUSED_ACCESS.has(error.code))
    return `The API at ${apiUrl} refused the example (${error.message}). Set STOREFRONT_TOKEN to a token with purchases:read and catalog:write.`;
  if (error instanceof StorefrontApiError) return `The API at ${apiUrl} answered with an error: ${error.message}`;
  // fetch's own failure, "fetch failed" with the socket's error as its cause (an Error of Node's realm, not always this one's).
  const { message, cause } = error as { message?: string; cause?: { message?: string } };
  if (message === "fetch failed") return `No answer from ${apiUrl} (${cause?.message ?? message}). Is the API running (npm start)?`;
  return `The storefront example failed: ${message ?? String(error)}`;
}

if (require.main === module) {
  const env = cleanEnv(process.env, {
    STOREFRONT_API_URL: url({ default: "http://localhost:4000/graphql", desc: "the API's /graphql endpoint" }),
    STOREFRONT_TOKEN: str({ default: "", desc: "a bearer token with purchases:read and catalog:write; empty when API_TOKENS is unset" }),
  });
  runStorefront(new StorefrontClient(env.STOREFRONT_API_URL, env.STOREFRONT_TOKEN || undefined), console.log).catch((error: unknown) => {
    console.error(explainFailure(error, env.STOREFRONT_API_URL));
    process.exit(1);
  });
}
