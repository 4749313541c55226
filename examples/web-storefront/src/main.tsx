import { ApolloProvider } from "@apollo/client/react";
import { StrictMode, useEffect, useState } from "react";
import { createRoot } from "react-dom/client";
import { createStorefrontClient } from "./apollo";
import { BookPage } from "./BookPage";
import { Catalog } from "./Catalog";

/** `#/book/<id>` shows a book; anything else the catalog. A hash needs no server routes, so the built page is static. */
function useRoute(): { bookId: string | null } {
  const read = () => /^#\/book\/(.+)$/.exec(window.location.hash)?.[1] ?? null;
  const [bookId, setBookId] = useState(read);
  useEffect(() => {
    const onChange = () => setBookId(read());
    window.addEventListener("hashchange", onChange);
    return () => window.removeEventListener("hashchange", onChange);
  }, []);
  return { bookId: bookId === null ? null : decodeURIComponent(bookId) };
}

function App() {
  const { bookId } = useRoute();
  return (
    <main style={{ fontFamily: "system-ui, sans-serif", maxWidth: 760, margin: "2rem auto", padding: "0 1rem" }}>
      <h1>
        <a href="#/">Bookstore</a>
      </h1>
      {bookId === null ? <Catalog /> : <BookPage id={bookId} />}
    </main>
  );
}

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <ApolloProvider client={createStorefrontClient()}>
      <App />
    </ApolloProvider>
  </StrictMode>,
);
