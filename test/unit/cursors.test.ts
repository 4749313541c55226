import { ObjectId } from "mongodb";
import { bookCursor, customerCursor, parseBookCursor, parseCustomerCursor } from "../../src/graphql/cursors";
import { InvalidInputError } from "../../src/sales/errors";

describe("customer cursors", () => {
  it("round-trip a position", () => {
    expect(parseCustomerCursor(customerCursor(1234))).toBe(1234);
  });

  it("mean 'from the start' when absent", () => {
    expect(parseCustomerCursor(null)).toBeNull();
    expect(parseCustomerCursor(undefined)).toBeNull();
  });

  it.each(["", "abc", "YXJyYXljb25uZWN0aW9uOi0x", Buffer.from("arrayconnection:12x").toString("base64"), bookCursor(5)])(
    "reject a cursor the API did not issue: %p",
    (cursor) => {
      expect(() => parseCustomerCursor(cursor)).toThrow(InvalidInputError);
    },
  );
});

describe("book cursors", () => {
  it.each([[42], ["isbn-978"], [new ObjectId()]])("round-trip an id with its type: %p", (id) => {
    expect(parseBookCursor(bookCursor(id))).toEqual(id);
  });

  it("keep the integer 1 apart from the string '1'", () => {
    expect(parseBookCursor(bookCursor(1))).toBe(1);
    expect(parseBookCursor(bookCursor("1"))).toBe("1");
  });

  it.each(["%%%", Buffer.from("{}").toString("base64url"), Buffer.from('{"id":{"a":1}}').toString("base64url"), customerCursor(3)])(
    "reject a cursor the API did not issue: %p",
    (cursor) => {
      expect(() => parseBookCursor(cursor)).toThrow(InvalidInputError);
    },
  );

  it.each([
    ["an empty", ""],
    ["a 129-character", "b".repeat(129)],
    ["a 50,000-character", "b".repeat(50_000)],
  ])("reject a cursor carrying %s string id, as the id itself would be", (_case, id) => {
    expect(() => parseBookCursor(bookCursor(id))).toThrow(InvalidInputError);
  });

  it("accept a cursor carrying a 128-character string id", () => {
    expect(parseBookCursor(bookCursor("b".repeat(128)))).toBe("b".repeat(128));
  });
});
