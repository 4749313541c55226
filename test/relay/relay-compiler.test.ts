import { execFile } from "node:child_process";
import { copyFile, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { openTestApi, type TestApi } from "../support/api";
import { customers, seedBook } from "../support/factories";

const ROOT = join(__dirname, "..", "..");
/** relay-compiler's defaults: `Node.id` is the global id Relay keys its store by and refetches with. */
const RELAY_CONFIG = { src: "./src", schema: "./schema.graphql", language: "typescript" };

let api: TestApi;
let workspace: string;
/** The operation text relay-compiler generated, by operation name. */
const operations = new Map<string, string>();

beforeAll(async () => {
  workspace = await mkdtemp(join(tmpdir(), "relay-"));
  await writeFile(join(workspace, "relay.config.json"), JSON.stringify(RELAY_CONFIG));
  await copyFile(join(ROOT, "schema.graphql"), join(workspace, "schema.graphql"));
  await promisify(execFile)("mkdir", ["-p", join(workspace, "src")]);
  await copyFile(join(__dirname, "fixtures", "BookBuyers.js"), join(workspace, "src", "BookBuyers.js"));
  await promisify(execFile)(join(ROOT, "node_modules", ".bin", "relay-compiler"), [], { cwd: workspace });
  for (const name of ["BookPageQuery", "BookBuyersPaginationQuery", "BookNewestBuyersPaginationQuery"]) {
    operations.set(name, await operationText(join(workspace, "src", "__generated__", `${name}.graphql.ts`)));
  }
  api = await openTestApi();
  await seedBook(api.db, "2", customers(60));
});
afterAll(async () => {
  await api?.close();
  await rm(workspace, { recursive: true, force: true });
});

/** The `params.text` of a generated artifact: a JSON string literal holding the operation. */
async function operationText(artifact: string): Promise<string> {
  const match = /"text": ("(?:[^"\\]|\\.)*")/.exec(await readFile(artifact, "utf8"));
  if (!match?.[1]) throw new Error(`no operation text in ${artifact}`);
  return JSON.parse(match[1]) as string;
}

/** Runs a generated operation; its result types are Relay's, generated beside it in the temporary workspace, so the shapes read here are stated below. */
async function run<TData>(name: string, variables: Record<string, unknown>): Promise<TData> {
  const result = await api.execute(operations.get(name)!, variables);
  if (result.errors) throw new Error(JSON.stringify(result.errors));
  return result.data as TData;
}

type Buyers = { edges: { node: { databaseId: string } }[]; pageInfo: { endCursor: string | null; startCursor: string | null } };
type BookPage = { book: { id: string; title: string; customersPurchased: Buyers } };
type Refetched = { node: { id: string; __typename: string; title?: string; customersPurchased: Buyers; newestBuyers: Buyers } };
const ids = (buyers: Buyers) => buyers.edges.map((edge) => edge.node.databaseId);

describe("relay-compiler against this schema", () => {
  it("compiles @refetchable fragments on Book with @connection on customersPurchased, both ways", () => {
    expect(operations.get("BookBuyersPaginationQuery")).toMatch(/node\(id: \$id\)/);
    expect(operations.get("BookNewestBuyersPaginationQuery")).toMatch(
      /newestBuyers: customersPurchased\(last: \$count, before: \$cursor\)/,
    );
  });

  it("runs the generated queries: the page query by database id, then each refetch by the book's id returns the same book's next page", async () => {
    const { book } = await run<BookPage>("BookPageQuery", { id: "2" });
    expect(book.title).toBe("Seeded 2");
    expect(ids(book.customersPurchased)).toEqual(["user00", "user01"]);

    const forward = await run<Refetched>("BookBuyersPaginationQuery", {
      id: book.id,
      count: 50,
      cursor: book.customersPurchased.pageInfo.endCursor,
    });
    expect(forward.node).toMatchObject({ __typename: "Book", id: book.id, title: "Seeded 2" });
    expect(ids(forward.node.customersPurchased)).toEqual(customers(50, 2));

    const newest = await run<Refetched>("BookNewestBuyersPaginationQuery", { id: book.id, count: 5 });
    expect(ids(newest.node.newestBuyers)).toEqual(customers(5, 55));
    const older = await run<Refetched>("BookNewestBuyersPaginationQuery", {
      id: book.id,
      count: 5,
      cursor: newest.node.newestBuyers.pageInfo.startCursor,
    });
    expect(ids(older.node.newestBuyers)).toEqual(customers(5, 50));
  });
});
