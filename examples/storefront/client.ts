import type { TypedDocumentNode } from "@graphql-typed-document-node/core";
import { print } from "graphql";
import { BookBuyersDocument, ListBooksDocument, ProductPageDocument, RecordPurchaseDocument } from "./__generated__/graphql";

/**
 * A storefront's view of the API: four operations, typed end to end by graphql-codegen's client
 * preset from `operations/*.graphql`. Any fetch-based GraphQL client works the same way.
 */
export class StorefrontClient {
  constructor(
    private readonly endpoint: string,
    /** A bearer token from API_TOKENS: buyers need `purchases:read`, checkout `catalog:write`. */
    private readonly token?: string,
  ) {}

  /** The catalog page: books with their first few buyers. */
  listBooks(first: number, buyers: number, after?: string | null) {
    return this.request(ListBooksDocument, { first, buyers, after });
  }

  /** One book's buyers, a window at a time: pass the previous window's endCursor as `after`. */
  bookBuyers(id: string, first: number, after?: string | null) {
    return this.request(BookBuyersDocument, { id, first, after });
  }

  /** A book's product page: its newest buyers and "customers also bought"; both need `purchases:read`. */
  productPage(id: string, recentBuyers: number, recommendations: number) {
    return this.request(ProductPageDocument, { id, recentBuyers, recommendations });
  }

  /** Checkout, once per order line: calling again with the same `purchaseId` never buys twice. */
  recordPurchase(bookId: string, customerId: string, purchaseId: string) {
    return this.request(RecordPurchaseDocument, { bookId, customerId, purchaseId });
  }

  private async request<TData, TVariables>(document: TypedDocumentNode<TData, TVariables>, variables: TVariables): Promise<TData> {
    const response = await fetch(this.endpoint, {
      method: "POST",
      headers: { "content-type": "application/json", ...(this.token ? { authorization: `Bearer ${this.token}` } : {}) },
      body: JSON.stringify({ query: print(document), variables }),
    });
    const body = (await response.json()) as { data?: TData; errors?: { message: string; extensions?: { code?: string } }[] };
    const [first] = body.errors ?? [];
    if (first) throw new StorefrontApiError(first.extensions?.code ?? "ERROR", first.message);
    return body.data as TData;
  }
}

/** The API answered, and refused: `code` is its `extensions.code` (UNAUTHENTICATED, BOOK_NOT_FOUND, ...). */
export class StorefrontApiError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(`${code}: ${message}`);
    this.name = "StorefrontApiError";
  }
}
