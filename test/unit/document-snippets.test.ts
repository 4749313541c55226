import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import MarkdownIt from "markdown-it";
import ts from "typescript";

/**
 * The client snippets of docs/api are for copying into an app: subscriptions.md's once called `useSubscription` and
 * `gql` without importing either. Each ```ts or ```tsx block is compiled by tsc, as a module of its own, against
 * the packages installed here, as a browser app's bundler would (DOM, React's JSX, package exports).
 */
const repository = resolve(__dirname, "../..");
const DOCUMENTS = join(repository, "docs/api");

interface Snippet {
  /** The document, for the failure message: docs/api/clients.md. */
  document: string;
  /** The document's line of the block's first line of code. */
  line: number;
  /** A path beside the documents, so that imports resolve from this repository's node_modules. */
  fileName: string;
  source: string;
}

function snippets(): Snippet[] {
  const markdown = new MarkdownIt();
  return readdirSync(DOCUMENTS)
    .filter((name) => name.endsWith(".md"))
    .flatMap((name) =>
      markdown
        .parse(readFileSync(join(DOCUMENTS, name), "utf8"), {})
        .filter((token) => token.type === "fence" && ["ts", "tsx"].includes(token.info.trim()))
        .map((token) => {
          // token.map's first line is the fence's, counted from 0: the code starts two lines on, counted from 1.
          const line = (token.map?.[0] ?? 0) + 2;
          return {
            document: `docs/api/${name}`,
            line,
            fileName: join(DOCUMENTS, `${name}.${line}.${token.info.trim()}`),
            source: token.content,
          };
        }),
    );
}

const OPTIONS: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  lib: ["lib.es2023.d.ts", "lib.dom.d.ts"],
  jsx: ts.JsxEmit.ReactJSX,
  types: [],
  strict: true,
  skipLibCheck: true,
  noEmit: true,
};

/** tsc's errors for the snippets, each prefixed with the document's line where its block starts. */
function compile(all: Snippet[]): string[] {
  const byName = new Map(all.map((snippet) => [snippet.fileName, snippet]));
  const host = ts.createCompilerHost(OPTIONS);
  const { getSourceFile, fileExists, readFile } = host;
  host.fileExists = (name) => byName.has(name) || fileExists(name);
  host.readFile = (name) => byName.get(name)?.source ?? readFile(name);
  host.getSourceFile = (name, language, ...rest) => {
    const snippet = byName.get(name);
    return snippet ? ts.createSourceFile(name, snippet.source, language) : getSourceFile(name, language, ...rest);
  };
  const program = ts.createProgram([...byName.keys()], OPTIONS, host);
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => {
    return `${origin(diagnostic, byName)}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n")}`;
  });
}

/** Where an error is: the document and its line for a snippet's, the file for a package's. */
function origin({ file, start }: ts.Diagnostic, byName: ReadonlyMap<string, Snippet>): string {
  const snippet = file && byName.get(file.fileName);
  if (!snippet) return file?.fileName ?? "tsc";
  return `${snippet.document}:${snippet.line + (start === undefined ? 0 : file.getLineAndCharacterOfPosition(start).line)}`;
}

describe("the TypeScript snippets of docs/api", () => {
  const all = snippets();

  it("are found: the client setups of clients.md and subscriptions.md at least", () => {
    expect(new Set(all.map(({ document }) => document))).toEqual(new Set(["docs/api/clients.md", "docs/api/subscriptions.md"]));
  });

  it("compile, each as a module of its own, against the installed packages", () => {
    expect(compile(all)).toEqual([]);
  });
});
