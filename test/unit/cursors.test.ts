import { ObjectId } from "mongodb";
import { bookCursor, customerCursor, parseBookCursor, parseCustomerCursor } from "../../src/graphql/schema/cursors";
import { InvalidInputError } from "../../src/sales/errors";
import { pageInfo, windowEnds } from "../../src/graphql/schema/windows";

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

describe("a window's ends", () => {
  it("make one cursor for a window of one item, whose start and end it is", () => {
    const cursorOf = jest.fn((position: number) => customerCursor(position));
    expect(windowEnds([7], cursorOf)).toEqual({ start: customerCursor(7), end: customerCursor(7) });
    expect(cursorOf).toHaveBeenCalledTimes(1);
  });

  it("make cursors for the first and last items only, and none for an empty window", () => {
    const cursorOf = jest.fn((position: number) => customerCursor(position));
    expect(windowEnds([1, 2, 3, 4], cursorOf)).toEqual({ start: customerCursor(1), end: customerCursor(4) });
    expect(cursorOf.mock.calls).toEqual([[1], [4]]);
    expect(pageInfo(windowEnds([], cursorOf), false, true)).toEqual({
      hasNextPage: false,
      hasPreviousPage: true,
      startCursor: null,
      endCursor: null,
    });
  });
});
