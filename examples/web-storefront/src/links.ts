// Hash routes: they need no server routes, so the built page is static.
export const bookHref = (databaseId: string) => `#/book/${encodeURIComponent(databaseId)}`;
export const authorHref = (author: string) => `#/author/${encodeURIComponent(author)}`;
export const MY_BOOKS_HREF = "#/my-books";
export const backOfficeHref = (databaseId: string) => `#/back-office/book/${encodeURIComponent(databaseId)}`;
