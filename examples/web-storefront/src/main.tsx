import { ApolloProvider } from "@apollo/client/react";
import { StrictMode, useEffect, useState } from "react";
import { createRoot } from "react-dom/client";
import { createStorefrontClient } from "./apollo";
import { AuthorPage } from "./AuthorPage";
import { BuyersPage } from "./back-office/BuyersPage";
import { BookPage } from "./BookPage";
import { Home } from "./Home";
import { LivePausedNotice } from "./live-status";
import { MY_BOOKS_HREF } from "./links";
import { MyBooks } from "./MyBooks";
import { SessionProvider, signInHref, SignOut, useSession } from "./session";
import "./styles.css";

type Route =
  | { page: "home" }
  | { page: "my-books" }
  | { page: "book"; id: string }
  | { page: "buyers"; id: string }
  | { page: "author"; author: string };

/**
 * `#/book/<id>` shows a book, `#/author/<name>` an author's books, `#/my-books` the signed-in shopper's,
 * `#/back-office/book/<id>` a book's buyers (the back office's), anything else the bestsellers and the search.
 */
function readRoute(): Route {
  if (window.location.hash === MY_BOOKS_HREF) return { page: "my-books" };
  const [, page, value] = /^#\/(book|author|back-office\/book)\/(.+)$/.exec(window.location.hash) ?? [];
  if (page === "book") return { page, id: decodeURIComponent(value!) };
  if (page === "back-office/book") return { page: "buyers", id: decodeURIComponent(value!) };
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
        <Account />
      </header>
      <LivePausedNotice />
      <main>
        {route.page === "book" && <BookPage key={route.id} id={route.id} />}
        {route.page === "buyers" && <BuyersPage key={route.id} id={route.id} />}
        {route.page === "my-books" && <MyBooks />}
        {route.page === "author" && <AuthorPage author={route.author} />}
        {route.page === "home" && <Home />}
      </main>
    </>
  );
}

/** The masthead's account links: "Sign in", or the shopper's "My books" and "Sign out". */
function Account() {
  const session = useSession();
  if (session.state === "unknown") return null;
  return (
    <nav className="account" data-testid="account">
      {session.state === "signed-in" ? (
        <>
          <a href={MY_BOOKS_HREF}>My books</a>
          <SignOut />
        </>
      ) : (
        <a href={signInHref()}>Sign in</a>
      )}
    </nav>
  );
}

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <ApolloProvider client={createStorefrontClient()}>
      <SessionProvider>
        <App />
      </SessionProvider>
    </ApolloProvider>
  </StrictMode>,
);
