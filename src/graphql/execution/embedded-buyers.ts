import type { ApolloServerPlugin, GraphQLRequestListener } from "@apollo/server";
import { BREAK, visit, type DocumentNode } from "graphql";
import type { SalesLoaders } from "../../sales/loaders";

/** The only field that reads a book's embedded buyers (`customers_purchased`), through `withEmbeddedBuyers`. */
const READS_BUYERS = "customersPurchased";
/** The fields that load books by id (`loaders.shownBook`), `alsoBought` its recommendations: the only reads the embedded buyers could be left out of. */
const LOADS_BY_ID = new Set(["book", "node", "nodes", "_entities", "alsoBought"]);

/** Whether a document loads books by id without reading their buyers; per document, which Apollo keeps per query text. */
const leavesOutBuyers = new WeakMap<DocumentNode, boolean>();

function loadsBooksWithoutBuyers(document: DocumentNode): boolean {
  let loads = false;
  let reads = false;
  // Every field of the document, in every operation and fragment: a field skipped by a directive still counts, so
  // that nothing its operation runs can miss the buyers.
  visit(document, {
    Field(field) {
      if (field.name.value === READS_BUYERS) {
        reads = true;
        return BREAK;
      }
      if (LOADS_BY_ID.has(field.name.value)) loads = true;
      return undefined;
    },
  });
  return loads && !reads;
}

/**
 * Books loaded by id (`book`, `node`, `nodes`, `_entities`, `alsoBought`'s) come without their embedded buyers (up to 50 ids, most of
 * a book's bytes) when no field of the document reads them: issue 35's `_entities` of 1,000 books spent most of its
 * API time deserializing them. Decided once the operation is known, before any resolver runs.
 */
export function embeddedBuyersPlugin<
  TContext extends { loaders: Pick<SalesLoaders, "leaveOutEmbeddedBuyers"> },
>(): ApolloServerPlugin<TContext> {
  const listener: GraphQLRequestListener<TContext> = {
    async didResolveOperation({ document, contextValue }) {
      let leaves = leavesOutBuyers.get(document);
      if (leaves === undefined) leavesOutBuyers.set(document, (leaves = loadsBooksWithoutBuyers(document)));
      // Only then: the request's loaders are built on first use, and a request loading no book needs none.
      if (leaves) contextValue.loaders.leaveOutEmbeddedBuyers();
    },
  };
  const ready = Promise.resolve(listener);
  return { requestDidStart: () => ready };
}
