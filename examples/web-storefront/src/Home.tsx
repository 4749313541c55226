import { useEffect, useState } from "react";
import { Shelf } from "./Shelf";

/** How long typing pauses before the search is sent: one request per pause, not per key. */
const TYPING_PAUSE_MS = 200;

/** The bestsellers, or the books matching the search box, which answers as the shopper types. */
export function Home() {
  const [typed, setTyped] = useState("");
  const search = useSettled(typed.trim(), TYPING_PAUSE_MS);
  return (
    <>
      <input
        className="search"
        type="search"
        aria-label="Search titles and authors"
        placeholder="Search titles and authors…"
        value={typed}
        onChange={(event) => setTyped(event.target.value)}
      />
      <h2>{search === "" ? "Bestsellers" : `Books matching “${search}”`}</h2>
      {/* A new search starts at its first window. */}
      {search === "" ? <Shelf key="" label="Bestsellers" /> : <Shelf key={search} search={search} label="Search results" />}
    </>
  );
}

/** The value once it has stopped changing for `delayMs`. */
function useSettled(value: string, delayMs: number): string {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), delayMs);
    return () => clearTimeout(timer);
  }, [value, delayMs]);
  return settled;
}
