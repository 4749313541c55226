import { createPrivateKey, generateKeyPairSync, sign } from "node:crypto";
import WebSocket from "ws";
import { startApiProcess, type ApiProcess } from "../support/api-process";
import { errorCodes, freePort, send, type HttpAnswer } from "../support/http";
import { webSocketUrl } from "../support/subscriptions";
import { bearer, tokenSpec } from "../support/tokens";
import { shopperTokenTool } from "../../src/cli/shopper-token";
import { runTool } from "../../src/cli/tool";

/**
 * Issue 54: shoppers sign in with access tokens from the development issuer `npm start` serves (real tokens, signed by
 * oidc-provider, fetched as `npm run shopper-token` fetches them), and reach only their own customer's data.
 */
const backOffice = tokenSpec("back-office", ["purchases:read", "catalog:write"]);

let api: ApiProcess;
let issuer: string;
beforeAll(async () => {
  const issuerPort = await freePort();
  issuer = `http://127.0.0.1:${issuerPort}`;
  // No cool-down between fetches of the issuer's keys: the rotation test follows a new key at once.
  api = await startApiProcess("src/cli/start.ts", {
    OIDC_DEV_PORT: String(issuerPort),
    OIDC_KEYS_COOLDOWN_SECONDS: "0",
    API_TOKENS: JSON.stringify([backOffice]),
  });
  for (const id of ["1", "2"]) {
    const added = await asBackOffice(`mutation ($id: ID!) { addBook(input: { id: $id, title: "Book ${id}", author: "A" }) { id } }`, {
      id,
    });
    expect(added.status).toBe(200);
  }
});
afterAll(() => api.stop());

/** A shopper's access token: printed by `npm run shopper-token -- <id>`, or with `parameters` from the issuer's route it asks. */
async function shopperToken(customerId: string, parameters: Record<string, string> = {}): Promise<string> {
  if (Object.keys(parameters).length === 0) {
    const printed: string[] = [];
    const status = await runTool(
      shopperTokenTool,
      [customerId],
      { OIDC_DEV_PORT: new URL(issuer).port },
      { out: (line) => printed.push(line), err: () => {} },
    );
    expect(status).toBe(0);
    return printed.join("");
  }
  const response = await fetch(`${issuer}/dev/shopper-token?${new URLSearchParams({ customer: customerId, ...parameters })}`);
  expect(response.status).toBe(200);
  return (await response.text()).trim();
}

function asShopper(token: string, query: string, variables: Record<string, unknown> = {}): Promise<HttpAnswer> {
  return send(api.url, { query, variables }, { headers: { "content-type": "application/json", authorization: `Bearer ${token}` } });
}

function asBackOffice(query: string, variables: Record<string, unknown> = {}): Promise<HttpAnswer> {
  return send(api.url, { query, variables }, { headers: { "content-type": "application/json", authorization: bearer(backOffice) } });
}

const HISTORY = `query ($id: ID!) { customer(id: $id) { databaseId booksPurchased { edges { node { databaseId } } } } }`;
const VIEWER = `{ viewer { databaseId booksPurchased { edges { node { databaseId } } } } }`;
const BUY = `mutation ($input: RecordPurchaseInput!) { recordPurchase(input: $input) { book { databaseId purchaseCount } } }`;
const BUYERS = `{ book(id: "1") { customersPurchased(first: 100) { edges { node { databaseId } } } } }`;

function booksOf(answer: HttpAnswer, root: "viewer" | "customer"): string[] {
  const customer = (answer.json?.data as Record<string, { booksPurchased: { edges: { node: { databaseId: string } }[] } }>)[root]!;
  return customer.booksPurchased.edges.map((edge) => edge.node.databaseId);
}

/** A refusal as the issue asks for it: the status, one error with its code, and no data at all. */
function expectRefused(answer: HttpAnswer, status: number, code: string): void {
  expect({ status: answer.status, codes: errorCodes(answer), data: answer.json?.data }).toEqual({ status, codes: [code], data: undefined });
}

describe("a signed-in shopper", () => {
  it("buys as themselves without naming a customer, and reads their own history through viewer and customer(id:)", async () => {
    const token = await shopperToken("user900");
    const bought = await asShopper(token, BUY, { input: { bookId: "1" } });
    expect(bought.json).toEqual({ data: { recordPurchase: { book: { databaseId: "1", purchaseCount: 1 } } } });

    expect(booksOf(await asShopper(token, VIEWER), "viewer")).toEqual(["1"]);
    expect(booksOf(await asShopper(token, HISTORY, { id: "user900" }), "customer")).toEqual(["1"]);
    // The back office (purchases:read) sees the purchase under user900, the token's subject.
    expect(JSON.stringify((await asBackOffice(BUYERS)).json)).toContain('"databaseId":"user900"');
  });

  it("is refused another customer's history: 403 and no data", async () => {
    const token = await shopperToken("user901");
    const answer = await asShopper(token, HISTORY, { id: "user900" });
    expectRefused(answer, 403, "FORBIDDEN");
    // Through a fragment spread under their own customer first, the other customer's is still refused.
    const both = `query ($id: ID!) { viewer { ...History } customer(id: $id) { ...History } } fragment History on Customer { booksPurchased { totalCount } }`;
    expectRefused(await asShopper(token, both, { id: "user900" }), 403, "FORBIDDEN");
    // Nor do a book's buyers, whether one customer bought it, or what its buyers also bought give other customers away.
    expectRefused(await asShopper(token, BUYERS), 403, "FORBIDDEN");
    expectRefused(await asShopper(token, `{ book(id: "1") { purchasedBy(customerId: "user900") } }`), 403, "FORBIDDEN");
    expectRefused(await asShopper(token, `{ book(id: "1") { alsoBought { book { id } } } }`), 403, "FORBIDDEN");
    // Nor a Customer reached by its global id rather than through viewer or customer(id:).
    const viewerId = ((await asShopper(await shopperToken("user900"), `{ viewer { id } }`)).json?.data as { viewer: { id: string } }).viewer
      .id;
    expectRefused(
      await asShopper(token, `query ($id: ID!) { node(id: $id) { ... on Customer { booksPurchased { totalCount } } } }`, { id: viewerId }),
      403,
      "FORBIDDEN",
    );
  });

  it("never records a purchase as another customer's", async () => {
    const token = await shopperToken("user901");
    const before = booksOf(await asBackOffice(HISTORY, { id: "user900" }), "customer");
    expectRefused(await asShopper(token, BUY, { input: { bookId: "2", customerId: "user900" } }), 403, "FORBIDDEN");
    expect(booksOf(await asBackOffice(HISTORY, { id: "user900" }), "customer")).toEqual(before);
    expect((await asBackOffice(`{ book(id: "2") { purchaseCount } }`)).json?.data).toEqual({ book: { purchaseCount: 0 } });

    // Naming themselves is the same as naming no one.
    const own = await asShopper(token, BUY, { input: { bookId: "2", customerId: "user901" } });
    expect(own.json).toEqual({ data: { recordPurchase: { book: { databaseId: "2", purchaseCount: 1 } } } });
    expect(booksOf(await asShopper(token, VIEWER), "viewer")).toEqual(["2"]);
  });

  it("is a shopper only to the API: viewer is null for a service token and for no token", async () => {
    expect((await asBackOffice(`{ viewer { databaseId } }`)).json).toEqual({ data: { viewer: null } });
    expect((await send(api.url, { query: `{ viewer { databaseId } }` })).json).toEqual({ data: { viewer: null } });
  });
});

describe("a token the API must not take for a shopper's is 401", () => {
  const unauthenticated = async (token: string) => expectRefused(await asShopper(token, VIEWER), 401, "UNAUTHENTICATED");

  it("signed by another key, even naming the issuer's key id", async () => {
    const real = decode(await shopperToken("user900"));
    await unauthenticated(forge(real.header, real.payload, generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey));
  });

  it("with alg none", async () => {
    const real = decode(await shopperToken("user900"));
    const header = Buffer.from(JSON.stringify({ alg: "none", typ: "at+jwt" })).toString("base64url");
    await unauthenticated(`${header}.${Buffer.from(JSON.stringify(real.payload)).toString("base64url")}.`);
  });

  it("expired", async () => {
    const token = await shopperToken("user900", { expires_in: "1" });
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    await unauthenticated(token);
  });

  it("for another audience", async () => {
    await unauthenticated(await shopperToken("user900", { audience: "urn:another-api" }));
  });

  it("from another issuer", async () => {
    const real = decode(await shopperToken("user900"));
    const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    await unauthenticated(forge({ ...real.header, kid: "another" }, { ...real.payload, iss: "https://issuer.example" }, privateKey));
  });

  it("and a WebSocket whose connection_init carries one is closed 4403, while a shopper's is acknowledged", async () => {
    const real = await shopperToken("user900");
    expect(await connectionInit(real)).toBe("connection_ack");
    const forged = decode(real);
    expect(await connectionInit(forge(forged.header, forged.payload, generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey))).toBe(
      4403,
    );
  });
});

it("follows the issuer's rotated signing key without a restart, and still takes the previous key's tokens", async () => {
  const before = await shopperToken("user900");
  expect((await asShopper(before, VIEWER)).status).toBe(200);
  const rotated = await fetch(`${issuer}/dev/rotate-keys`, { method: "POST" });
  expect(rotated.status).toBe(200);
  const after = await shopperToken("user900");
  expect(decode(after).header.kid).not.toEqual(decode(before).header.kid);
  expect(booksOf(await asShopper(after, VIEWER), "viewer")).toEqual(["1"]);
  expect((await asShopper(before, VIEWER)).status).toBe(200);
});

interface Decoded {
  header: Record<string, unknown>;
  payload: Record<string, unknown>;
}

function decode(token: string): Decoded {
  const [header, payload] = token
    .split(".")
    .slice(0, 2)
    .map((part) => JSON.parse(Buffer.from(part, "base64url").toString()) as Record<string, unknown>);
  return { header: header!, payload: payload! };
}

/** A JWT with these claims signed RS256 by a key the issuer never published. */
function forge(header: Record<string, unknown>, payload: Record<string, unknown>, key: ReturnType<typeof createPrivateKey>): string {
  const signingInput = `${Buffer.from(JSON.stringify(header)).toString("base64url")}.${Buffer.from(JSON.stringify(payload)).toString("base64url")}`;
  return `${signingInput}.${sign("sha256", Buffer.from(signingInput), key).toString("base64url")}`;
}

/** What the server answers a connection_init carrying `token`: its first message's type, or the close code. */
async function connectionInit(token: string): Promise<string | number> {
  const socket = new WebSocket(webSocketUrl(api.url), "graphql-transport-ws");
  await new Promise((resolve, reject) => socket.once("open", resolve).once("error", reject));
  socket.send(JSON.stringify({ type: "connection_init", payload: { authorization: `Bearer ${token}` } }));
  const outcome = await new Promise<string | number>((resolve) => {
    socket.once("message", (data) => resolve((JSON.parse(String(data)) as { type: string }).type));
    socket.once("close", (code) => resolve(code));
  });
  socket.close();
  return outcome;
}

it("npm run shopper-token refuses a customer the demo catalog does not have, and says to start the API when no issuer answers", async () => {
  const errors: string[] = [];
  const output = { out: () => {}, err: (line: string) => errors.push(line) };
  expect(await runTool(shopperTokenTool, ["mallory"], { OIDC_DEV_PORT: new URL(issuer).port }, output)).toBe(2);
  expect(await runTool(shopperTokenTool, ["user900"], { OIDC_DEV_PORT: String(await freePort()) }, output)).toBe(1);
  expect(errors.join("\n")).toMatch(/"mallory" is not one of the demo catalog's customers[\s\S]*start the API with `npm start` first/);
});

it("in production without OIDC_ISSUER accepts no shopper, serves no development issuer, and says so at start-up", async () => {
  const token = await shopperToken("user900");
  const issuerPort = await freePort();
  const production = await startApiProcess("src/cli/start.ts", {
    NODE_ENV: "production",
    OIDC_DEV_PORT: String(issuerPort),
    API_TOKENS: JSON.stringify([backOffice]),
  });
  try {
    const answer = await send(
      production.url,
      { query: VIEWER },
      { headers: { "content-type": "application/json", authorization: `Bearer ${token}` } },
    );
    expectRefused(answer, 401, "UNAUTHENTICATED");
    await expect(fetch(`http://127.0.0.1:${issuerPort}/.well-known/openid-configuration`)).rejects.toThrow();
    expect(await production.logged(/OIDC_ISSUER is not set: shoppers cannot sign in/)).toMatchObject({ level: 40 });
  } finally {
    await production.stop();
  }
});
