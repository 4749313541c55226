import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { ApolloServer, HeaderMap } from "@apollo/server";
import { buildSchema } from "graphql";
import { MongoClient } from "mongodb";
import { compiledExecution, type GatewayRequest } from "../../src/graphql/execution/compiled-execution";

// Two changes to dependencies, as patches (patches/, applied by patch-package at install) on exactly pinned versions,
// each reported upstream (docs/design/upstream-reports.md). Issue 39: an object with accessors of its own, made per
// request, keeps what its accessors' closures reach past every scavenge until a full collection, and so does a
// long-lived Set that every operation adds to and deletes from (docs/benchmarks/analysis.md). Apollo 5.5.1 made each
// gateway request's answer head so, and mongodb 7.9.0 tracks every session and cursor so.

const schema = buildSchema("type Query { hello: String }");

/**
 * An Apollo Server on compiled execution whose executor hands `seen` each gateway request, then sets the answer's
 * status and a header through it, as the gateway interface lets an executor do.
 */
async function serveThroughCompiledExecution(seen: GatewayRequest[]): Promise<ApolloServer> {
  const gateway = compiledExecution({ schema, compiledSchema: schema });
  const server = new ApolloServer({
    gateway: {
      ...gateway,
      load: async (options) => {
        const { executor } = await gateway.load(options);
        return {
          executor: async (request) => {
            seen.push(request);
            request.response?.http?.headers.set("x-executed", request.request.http?.headers.get("x-sent") ?? "");
            if (request.response?.http) request.response.http.status = 203;
            return executor!(request);
          },
        };
      },
    },
  });
  await server.start();
  return server;
}

describe("the gateway requests Apollo hands compiled execution", () => {
  it("have no accessors of their own, and their status and headers still reach Apollo's answer", async () => {
    const seen: GatewayRequest[] = [];
    const server = await serveThroughCompiledExecution(seen);
    try {
      const answer = await server.executeHTTPGraphQLRequest({
        httpGraphQLRequest: {
          method: "POST",
          headers: new HeaderMap([
            ["content-type", "application/json"],
            ["x-sent", "yes"],
          ]),
          search: "a=1",
          body: { query: "{ __typename }" },
        },
        context: async () => ({}),
      });
      expect(seen).toHaveLength(1);
      const [request] = seen;
      const head = request!.response!.http!;
      expect(Object.getOwnPropertyDescriptor(head, "status")).toBeUndefined();
      expect(head.status).toBe(203);
      expect(request!.request.http?.url).toBe("https://unknown-url.invalid/?a=1");
      expect(answer.status).toBe(203);
      expect(answer.headers.get("x-executed")).toBe("yes");
      expect(answer.body).toEqual({ kind: "complete", string: '{"data":{"__typename":"Query"}}\n' });
    } finally {
      await server.stop();
    }
  });

  it("come so from Apollo's ES module build too, which the patch mends alike", () => {
    const esm = join(dirname(require.resolve("@apollo/server")), "..", "esm", "utils", "makeGatewayGraphQLRequestContext.js");
    const script = `
      const { makeGatewayGraphQLRequestContext } = await import(${JSON.stringify(pathToFileURL(esm).href)});
      const http = { headers: new Map(), status: 200 };
      const made = makeGatewayGraphQLRequestContext({ request: {}, response: { http } }, {}, {});
      made.response.http.status = 203;
      console.log(JSON.stringify([Object.getOwnPropertyDescriptor(made.response.http, "status") === undefined, http.status]));`;
    const printed = execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
    expect(JSON.parse(printed)).toEqual([true, 203]);
  });
});

describe("the driver's clients", () => {
  /** The Set a client's renewing set keeps its members in, to tell one storage from the next. */
  const storageOf = (set: unknown) => (set as { members: Set<unknown> }).members;

  it("track their sessions and cursors in sets whose storage is renewed every 64 deletions, holding the same members", () => {
    const client = new MongoClient("mongodb://127.0.0.1:1");
    const { activeSessions, activeCursors } = (client as unknown as { s: Record<string, Set<number>> }).s;
    expect([activeSessions?.constructor.name, activeCursors?.constructor.name]).toEqual(["RenewingSet", "RenewingSet"]);
    const set = activeCursors!.add(-1);
    const first = storageOf(set);
    for (let value = 0; value < 63; value += 1) set.add(value).delete(value);
    expect(storageOf(set)).toBe(first);
    set.add(1).add(2).delete(1);
    expect(storageOf(set)).not.toBe(first);
    expect([[...set], set.size, set.has(2), set.has(1)]).toEqual([[-1, 2], 2, true, false]);
    set.clear();
    expect(set.size).toBe(0);
  });
});

describe("the patches of dependencies", () => {
  const root = join(__dirname, "..", "..");
  const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
    dependencies: Record<string, string>;
    scripts: Record<string, string>;
  };
  const patches = readdirSync(join(root, "patches")).map((file) => /^(.+)\+(\d[^+]*)\.patch$/.exec(file)!);

  it("are each for the exact version package.json pins and the install holds", () => {
    expect(patches.map(([, name]) => name)).toEqual(["@apollo+server", "mongodb"]);
    for (const [, name, version] of patches) {
      const packageName = name!.replace("+", "/");
      expect([packageName, manifest.dependencies[packageName]]).toEqual([packageName, version]);
      const installed = JSON.parse(readFileSync(join(root, "node_modules", packageName, "package.json"), "utf8")) as { version: string };
      expect([packageName, installed.version]).toEqual([packageName, version]);
    }
  });

  it("are applied at every install, which fails when one no longer applies", () => {
    expect(manifest.scripts["postinstall"]).toBe("patch-package --error-on-fail");
    expect(manifest.dependencies["patch-package"]).toMatch(/^\d/);
  });
});
