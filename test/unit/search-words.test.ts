import { normalizedWords, searchTermsOf, searchWordsOf } from "../../src/sales/search-words";

describe("the words a book is found by", () => {
  it.each([
    ["The Wooden Amulet", ["the", "wooden", "amulet"]],
    ["Émile ZOLA", ["emile", "zola"]],
    ["Brontë's Œuvre", ["bronte", "s", "oeuvre"]],
    ["Straße – Æsop's 2nd edition!", ["strasse", "aesop", "s", "2nd", "edition"]],
    // Marks go from every script alike: й loses its breve, as a search typed with it does too.
    ["Война и мир", ["воина", "и", "мир"]],
    ["  ...  ", []],
  ])("normalizes %j to %j", (text, words) => {
    expect(normalizedWords(text)).toEqual(words);
  });

  it("cuts a word longer than 40 characters, so that no index key grows with a title", () => {
    expect(normalizedWords("x".repeat(500))).toEqual(["x".repeat(40)]);
  });

  it("stores each distinct word of title and author once, then each distinct prefix of three letters or more, marked", () => {
    expect(searchWordsOf({ title: "Nana and Nana", author: "Émile Zola" })).toEqual([
      "nana",
      "and",
      "emile",
      "zola",
      "nan*",
      "nana*",
      "and*",
      "emi*",
      "emil*",
      "emile*",
      "zol*",
      "zola*",
    ]);
  });
});

describe("the terms of a search", () => {
  it("takes the last word as a prefix and the others as whole words, once each", () => {
    expect(searchTermsOf("Wooden wooden AMU")).toEqual({ words: ["wooden"], prefix: "amu" });
  });

  it.each([null, undefined, "", "   ", "?!"])("takes %j as no search", (search) => {
    expect(searchTermsOf(search)).toBeNull();
  });
});
