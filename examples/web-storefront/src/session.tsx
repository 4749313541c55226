import { createContext, useContext, useEffect, useState, type ReactNode } from "react";

/**
 * Who is signed in, as the storefront's server side says (`GET /auth/session`, server/session.ts): a customer id and
 * never a token, which stays on the server. Unknown until it answers; signed out when it cannot be asked.
 */
export type Session = { state: "unknown" } | { state: "signed-out" } | { state: "signed-in"; customerId: string };

interface SessionAnswer {
  signedIn: boolean;
  customerId?: string;
}

const SessionContext = createContext<Session>({ state: "unknown" });

export function SessionProvider({ children }: { children: ReactNode }) {
  const [session, setSession] = useState<Session>({ state: "unknown" });
  useEffect(() => {
    const asked = new AbortController();
    fetch("/auth/session", { signal: asked.signal })
      .then((response): Promise<SessionAnswer> | SessionAnswer => (response.ok ? response.json() : { signedIn: false }))
      .then((answer) =>
        setSession(answer.signedIn && answer.customerId ? { state: "signed-in", customerId: answer.customerId } : { state: "signed-out" }),
      )
      .catch(() => !asked.signal.aborted && setSession({ state: "signed-out" }));
    return () => asked.abort();
  }, []);
  return <SessionContext.Provider value={session}>{children}</SessionContext.Provider>;
}

export const useSession = () => useContext(SessionContext);

/** The sign-in link: the storefront's server side sends the browser to the issuer, and back to this page after. */
export const signInHref = () => `/auth/login?returnTo=${encodeURIComponent(`/${window.location.hash}`)}`;

/** Sign out is a POST (a form), so that no link on another site can sign the shopper out. */
export function SignOut() {
  return (
    <form method="post" action="/auth/logout" className="sign-out">
      <button type="submit">Sign out</button>
    </form>
  );
}
