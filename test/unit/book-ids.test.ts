import { ObjectId } from "mongodb";
import { formatBookId, parseBookId, parseCustomerId } from "../../src/sales/book-ids";
import { InvalidInputError } from "../../src/sales/errors";

describe("book ids", () => {
  it.each([
    ["2", 2],
    ["-7", -7],
    ["0", 0],
    ["Invisible-Cities", "Invisible-Cities"],
    ["007", "007"],
    ["1e3", "1e3"],
    ["99999999999999999999", "99999999999999999999"],
  ])("parses %p as the stored id %p", (input, stored) => {
    expect(parseBookId(input)).toBe(stored);
  });

  it("parses 24 lowercase hex digits as an ObjectId", () => {
    const id = new ObjectId();
    expect(parseBookId(id.toHexString())).toEqual(id);
  });

  it.each(["2", "-7", "isbn-978", "65f1a2b3c4d5e6f708192a3b"])("formats what it parses back to the same string: %p", (input) => {
    expect(formatBookId(parseBookId(input))).toBe(input);
  });

  it.each(["", "x".repeat(129)])("rejects an id of length %#", (input) => {
    expect(() => parseBookId(input)).toThrow(InvalidInputError);
  });

  it.each([[["1"]], [{ length: 1 }], [{ $regex: "^user0", length: 1 }], [7]])(
    "rejects a book or customer id that is not a string, as only a router's `_Any` representation could send: %p",
    (input) => {
      expect(() => parseBookId(input as unknown as string)).toThrow(InvalidInputError);
      expect(() => parseCustomerId(input as unknown as string)).toThrow(InvalidInputError);
    },
  );
});
