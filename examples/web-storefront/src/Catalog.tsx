import { useQuery } from "@apollo/client/react";
import { ErrorNotice } from "./ErrorNotice";
import { CATALOG } from "./operations";

const BOOKS_PER_PAGE = 10;

/** The catalog, a page of books at a time: "More books" asks for the next window after the last cursor. */
export function Catalog() {
  const { data, error, loading, fetchMore } = useQuery(CATALOG, { variables: { first: BOOKS_PER_PAGE } });
  if (error) return <ErrorNotice error={error} />;
  if (!data) return <p>Loading the catalog…</p>;
  const { edges, pageInfo, totalCount } = data.books;
  return (
    <section>
      <h2>
        Catalog <small data-testid="catalog-count">({totalCount.toLocaleString("en")} books)</small>
      </h2>
      <ol data-testid="catalog">
        {edges.map(({ node }) => (
          <li key={node.id} data-book-id={node.id}>
            <a href={`#/book/${encodeURIComponent(node.id)}`}>{node.title}</a> by {node.author} —{" "}
            <span data-testid="purchase-count">{node.purchaseCount.toLocaleString("en")}</span> sold
          </li>
        ))}
      </ol>
      {pageInfo.hasNextPage && (
        <button disabled={loading} onClick={() => void fetchMore({ variables: { after: pageInfo.endCursor } })}>
          More books
        </button>
      )}
    </section>
  );
}
