import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import GithubSlugger from "github-slugger";
import MarkdownIt from "markdown-it";

const repository = resolve(__dirname, "../..");
// Installed packages and build output are not ours to keep linked.
const notDocuments = new Set(["node_modules", ".git", "dist"]);
const markdown = new MarkdownIt({ html: true });
type Token = MarkdownIt.Token;

function markdownFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    if (notDocuments.has(entry.name)) return [];
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return markdownFiles(path);
    return entry.name.endsWith(".md") ? [path] : [];
  });
}

function inlineTokens(source: string): Token[] {
  return markdown.parse(source, {}).flatMap((token) => (token.type === "inline" ? (token.children ?? []) : [token]));
}

/** The anchors GitHub gives a document's headings (its slugger, duplicates numbered). */
function headingAnchors(source: string): Set<string> {
  const slugger = new GithubSlugger();
  const tokens = markdown.parse(source, {});
  const anchors = new Set<string>();
  tokens.forEach((token, index) => {
    const inline = tokens[index + 1];
    if (token.type !== "heading_open" || inline?.type !== "inline") return;
    const text = (inline.children ?? []).map((child) => child.content).join("");
    anchors.add(slugger.slug(text));
  });
  return anchors;
}

function relativeTargets(source: string): string[] {
  return inlineTokens(source)
    .map((token) => (token.type === "link_open" ? token.attrGet("href") : token.type === "image" ? token.attrGet("src") : null))
    .filter((target): target is string => typeof target === "string" && !/^([a-z][a-z0-9+.-]*:|\/\/)/i.test(target));
}

/** Every relative link of one document that names no file, or a heading its target lacks. */
function brokenLinks(file: string, source: string): string[] {
  return relativeTargets(source).filter((target) => {
    const [path = "", anchor] = target.split("#", 2);
    const targetFile = path === "" ? file : resolve(dirname(file), decodeURIComponent(path));
    if (!existsSync(targetFile)) return true;
    if (anchor === undefined || !targetFile.endsWith(".md") || statSync(targetFile).isDirectory()) return false;
    const targetSource = targetFile === file ? source : readFileSync(targetFile, "utf8");
    return !headingAnchors(targetSource).has(decodeURIComponent(anchor));
  });
}

/**
 * Documents named in prose as a bare path ("described in docs/api/subscriptions.md") instead of a link: a reader
 * cannot follow one, and the check above cannot see it move. Text inside a link, and code spans, are left alone.
 */
function unlinkedDocuments(source: string): string[] {
  let linkDepth = 0;
  return inlineTokens(source).flatMap((token) => {
    if (token.type === "link_open") linkDepth += 1;
    if (token.type === "link_close") linkDepth -= 1;
    if (token.type !== "text" || linkDepth > 0) return [];
    return [...token.content.matchAll(/(?<![\w/.-])(?:[\w.-]+\/)*[\w-]+\.md\b/g)].map((match) => match[0]);
  });
}

const documents = markdownFiles(repository);

describe("links between the documents", () => {
  it("finds the documents it checks, README.md and docs/ among them", () => {
    const names = documents.map((file) => relative(repository, file));
    expect(names).toEqual(expect.arrayContaining(["README.md", "SECURITY.md", "BENCHMARKS.md", "docs/glossary.md"]));
  });

  it.each(documents.map((file) => [relative(repository, file), file]))("every relative link in %s resolves", (_name, file) => {
    expect(brokenLinks(file, readFileSync(file, "utf8"))).toEqual([]);
  });

  // The API's documents, which client developers read on their own; the others still name some by path (issue 57 left them).
  const apiDocuments = documents.filter((file) => relative(repository, file).startsWith("docs/api/"));
  it.each(apiDocuments.map((file) => [relative(repository, file), file]))("%s names no document by a bare path", (_name, file) => {
    expect(unlinkedDocuments(readFileSync(file, "utf8"))).toEqual([]);
  });

  it("reports a document named by a bare path, but not in a link or a code span", () => {
    const source = "Described in docs/api/subscriptions.md and SECURITY.md; [docs/api/limits.md](docs/api/limits.md), `docs/testing.md`.";
    expect(unlinkedDocuments(source)).toEqual(["docs/api/subscriptions.md", "SECURITY.md"]);
  });

  it("reports a link to a missing file and to a missing heading, and accepts GitHub's slugs", () => {
    const file = join(repository, "README.md");
    const source = [
      "# Retries: `purchaseId`",
      "## Retries: `purchaseId`",
      "[ok](#retries-purchaseid) [second](#retries-purchaseid-1) [file](SECURITY.md) [anchor](docs/testing.md#nowhere)",
      "[gone](docs/nothing.md) [heading](#no-such-heading) [site](https://example.com/x.md)",
    ].join("\n\n");
    expect(brokenLinks(file, source)).toEqual(["docs/testing.md#nowhere", "docs/nothing.md", "#no-such-heading"]);
  });
});
