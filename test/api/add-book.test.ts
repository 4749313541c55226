import { ObjectId } from "mongodb";
import { graphql } from "../__generated__";
import { useTestApi } from "../support/api";
import { addBook, storedBook } from "../support/factories";

const api = useTestApi();

const BOOK_ID = graphql(`
  query BookId($id: ID!) {
    book(id: $id) {
      id: databaseId
    }
  }
`);

const ADD_BOOK = `mutation ($input: AddBookInput!) { addBook(input: $input) { id: databaseId title author year purchaseCount hasExtras } }`;

describe("addBook", () => {
  it("stores the book in the manual's shape with an empty purchase list", async () => {
    const result = await api.execute(ADD_BOOK, { input: { id: "1", title: "Invisible Cities", author: "Italo Calvino", year: 1972 } });
    expect(result.errors).toBeUndefined();
    expect(result.data).toEqual({
      addBook: { id: "1", title: "Invisible Cities", author: "Italo Calvino", year: 1972, purchaseCount: 0, hasExtras: false },
    });
    expect((await storedBook(api.db, "1")).book).toEqual({
      _id: 1,
      title: "Invisible Cities",
      author: "Italo Calvino",
      year: 1972,
      search_words: [
        "invisible",
        "cities",
        "italo",
        "calvino",
        ...["inv", "invi", "invis", "invisi", "invisib", "invisibl", "invisible"].map((p) => `${p}*`),
        ...["cit", "citi", "citie", "cities", "ita", "ital", "italo", "cal", "calv", "calvi", "calvin", "calvino"].map((p) => `${p}*`),
      ],
      customers_purchased: [],
      has_extras: false,
      purchase_count: 0,
      extra_page_size: 1000,
    });
  });

  it.each([
    ["an integer", "4242", 4242],
    ["a string", "isbn-978-0156453806", "isbn-978-0156453806"],
    ["an ObjectId", "65f1a2b3c4d5e6f708192a3b", new ObjectId("65f1a2b3c4d5e6f708192a3b")],
  ])("keeps %s id as that BSON type and reads it back unchanged", async (_kind, id, stored) => {
    await addBook(api, { id });
    expect((await storedBook(api.db, id)).book?._id).toEqual(stored);
    const read = await api.execute(BOOK_ID, { id });
    expect(read.data?.book?.id).toBe(id);
  });

  it("makes an ObjectId when no id is given", async () => {
    const id = await addBook(api);
    expect(id).toMatch(/^[0-9a-f]{24}$/);
    expect((await storedBook(api.db, id)).book?._id).toBeInstanceOf(ObjectId);
  });

  it("leaves the year out when it is not known", async () => {
    const id = await addBook(api);
    expect((await storedBook(api.db, id)).book).not.toHaveProperty("year");
  });

  it("refuses an id that is taken with ALREADY_EXISTS and keeps the first book", async () => {
    await addBook(api, { id: "taken", title: "First" });
    const result = await api.execute(ADD_BOOK, { input: { id: "taken", title: "Second", author: "B" } });
    expect(result.errors?.[0]?.extensions?.code).toBe("ALREADY_EXISTS");
    expect((await storedBook(api.db, "taken")).book?.title).toBe("First");
  });

  it.each([
    ["an empty id", { id: "", title: "T", author: "A" }, "input.id"],
    ["an over-long id", { id: "x".repeat(129), title: "T", author: "A" }, "input.id"],
    ["an empty title", { id: "no-title", title: "", author: "A" }, "title"],
    ["a blank title", { id: "blank-title", title: "   ", author: "A" }, "title"],
    ["an over-long title", { id: "long-title", title: "t".repeat(501), author: "A" }, "title"],
    ["an empty author", { id: "no-author", title: "T", author: "" }, "author"],
  ])("refuses %s with BAD_USER_INPUT and writes nothing", async (_case, input, argumentName) => {
    const before = await api.db.collection("sales").countDocuments();
    const result = await api.execute(ADD_BOOK, { input });
    expect(result.errors?.[0]?.extensions).toEqual({ code: "BAD_USER_INPUT", argumentName });
    expect(await api.db.collection("sales").countDocuments()).toBe(before);
  });
});
