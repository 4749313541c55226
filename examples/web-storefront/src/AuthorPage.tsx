import { Shelf } from "./Shelf";

/** An author's books, bestsellers first. */
export function AuthorPage({ author }: { author: string }) {
  return (
    <>
      <h2 data-testid="author-name">{author}</h2>
      <Shelf key={author} filter={{ author }} label={`Books by ${author}`} />
    </>
  );
}
