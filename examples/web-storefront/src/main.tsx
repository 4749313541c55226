import { ApolloProvider } from "@apollo/client/react";
import { StrictMode, useEffect, useState } from "react";
import { createRoot } from "react-dom/client";
import { createStorefrontClient } from "./apollo";
import { AuthorPage } from "./AuthorPage";
import { BookPage } from "./BookPage";
import { Home } from "./Home";
import "./styles.css";

type Route = { page: "home" } | { page: "book"; id: string } | { page: "author"; author: string };

/** `#/book/<id>` shows a book, `#/author/<name>` an author's books, anything else the bestsellers and the search. */
function readRoute(): Route {
  const [, page, value] = /^#\/(book|author)\/(.+)$/.exec(window.location.hash) ?? [];
  if (page === "book") return { page, id: decodeURIComponent(value!) };
  if (page === "author") return { page, author: decodeURIComponent(value!) };
  return { page: "home" };
}

function useRoute(): Route {
  const [route, setRoute] = useState(readRoute);
  useEffect(() => {
    const onChange = () => {
      setRoute(readRoute());
      window.scrollTo(0, 0);
    };
    window.addEventListener("hashchange", onChange);
    return () => window.removeEventListener("hashchange", onChange);
  }, []);
  return route;
}

function App() {
  const route = useRoute();
  return (
    <>
      <header className="masthead">
        <a href="#/">
          <img src="/favicon.svg" alt="" width={24} height={24} /> Bookstore
        </a>
      </header>
      <main>
        {route.page === "book" && <BookPage key={route.id} id={route.id} />}
        {route.page === "author" && <AuthorPage author={route.author} />}
        {route.page === "home" && <Home />}
      </main>
    </>
  );
}

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <ApolloProvider client={createStorefrontClient()}>
      <App />
    </ApolloProvider>
  </StrictMode>,
);
