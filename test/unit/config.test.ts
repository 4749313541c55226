import { createHash } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { accessNotice } from "../../src/cli/api";
import { ConfigError, readConfig } from "../../src/config";

describe("configuration", () => {
  it("works out of the box with the documented defaults", () => {
    expect(readConfig({})).toEqual({
      port: 4000,
      host: "127.0.0.1",
      mongodbUri: undefined,
      mongodbDb: "bookstore",
      outlierThreshold: 50,
      extraSalesPageSize: 1000,
      nodeEnv: "development",
      requestTimeoutMs: 10_000,
      purchaseIdLifetimeHours: 24,
      purchaseTransactions: "auto",
      catalogMaxAgeSeconds: 5,
      responseCacheUrl: undefined,
      responseCacheTimeoutMs: 100,
      keepAliveTimeoutSeconds: 65,
      purchaseBatching: true,
      purchaseBatchMax: 100,
      metricsOperations: [],
      subscriptionsPerConnection: 20,
      subscriptionsPerProcess: 20_000,
      anonymousConnectionsPerProcess: 10_000,
      subscriptionKeepAliveSeconds: 20,
      unsentBytesPerConnection: 1_048_576,
      connectionsPerAddress: 20,
      clientBudgetDocuments: 2_000,
      clientBudgetTokenDocuments: 20_000,
      clientBudgetSeconds: 4,
      trustedProxies: [],
      oidcIssuer: undefined,
      oidcAudience: "urn:bookstore-sales-catalog:api",
      oidcCustomerClaim: "sub",
      oidcKeysCooldownSeconds: 30,
      oidcDevPort: undefined,
    });
  });

  it("takes a shoppers' issuer only with the audience its tokens carry for the API", () => {
    expect(() => readConfig({ OIDC_ISSUER: "https://auth.example.com/realms/shop" })).toThrow(
      /OIDC_AUDIENCE: .*must be set with OIDC_ISSUER/,
    );
    expect(() => readConfig({ OIDC_ISSUER: "auth.example.com" })).toThrow(/OIDC_ISSUER/);
    expect(
      readConfig({
        OIDC_ISSUER: "https://auth.example.com/realms/shop",
        OIDC_AUDIENCE: "bookstore-api",
        OIDC_CUSTOMER_CLAIM: "customer_id",
      }),
    ).toMatchObject({
      oidcIssuer: "https://auth.example.com/realms/shop",
      oidcAudience: "bookstore-api",
      oidcCustomerClaim: "customer_id",
    });
  });

  it("refuses an unread bound a single error answer would pass, and takes one in bytes", () => {
    expect(() => readConfig({ UNSENT_BYTES_PER_CONNECTION: "1024" })).toThrow(
      /UNSENT_BYTES_PER_CONNECTION: must be a whole number from 16384 to/,
    );
    expect(readConfig({ UNSENT_BYTES_PER_CONNECTION: "65536", CONNECTIONS_PER_ADDRESS: "3" })).toMatchObject({
      unsentBytesPerConnection: 65_536,
      connectionsPerAddress: 3,
    });
  });

  it("refuses a client budget that could not pay one request at the document limit", () => {
    expect(() => readConfig({ CLIENT_BUDGET_DOCUMENTS: "999" })).toThrow(/CLIENT_BUDGET_DOCUMENTS: must be a whole number from 1000 to/);
    expect(readConfig({ CLIENT_BUDGET_TOKEN_DOCUMENTS: "1000", CLIENT_BUDGET_SECONDS: "60" })).toMatchObject({
      clientBudgetTokenDocuments: 1_000,
      clientBudgetSeconds: 60,
    });
  });

  it("reads TRUSTED_PROXIES as addresses and CIDR ranges, and refuses anything else", () => {
    expect(readConfig({ TRUSTED_PROXIES: " 10.0.0.0/8, 127.0.0.1,::1, fd00::/8 " }).trustedProxies).toEqual([
      "10.0.0.0/8",
      "127.0.0.1",
      "::1",
      "fd00::/8",
    ]);
    expect(() => readConfig({ TRUSTED_PROXIES: "10.0.0.0/33" })).toThrow(
      /TRUSTED_PROXIES: "10.0.0.0\/33" is not an IP address or a CIDR range/,
    );
    expect(() => readConfig({ TRUSTED_PROXIES: "proxy.internal" })).toThrow(/"proxy.internal" is not an IP address/);
  });

  it("lists the operations METRICS_OPERATIONS names, separated by commas", () => {
    expect(readConfig({ METRICS_OPERATIONS: " ProductPage, ListBooks,RecordPurchase " }).metricsOperations).toEqual([
      "ProductPage",
      "ListBooks",
      "RecordPurchase",
    ]);
  });

  it.each<[string, string, RegExp]>([
    ["a name over 64 characters", `Product${"e".repeat(60)}`, /METRICS_OPERATIONS: "Producte+" is not a GraphQL operation name/],
    ["a name that is no GraphQL name", "Product-Page", /METRICS_OPERATIONS: "Product-Page" is not a GraphQL operation name/],
    [
      "more than 50 names",
      Array.from({ length: 51 }, (_, index) => `Op${index}`).join(","),
      /METRICS_OPERATIONS: lists 51 names; at most 50/,
    ],
  ])("rejects a METRICS_OPERATIONS with %s", (_case, value, message) => {
    expect(() => readConfig({ METRICS_OPERATIONS: value })).toThrow(message);
  });

  it("writes every purchase alone with PURCHASE_BATCHING=off", () => {
    expect(readConfig({ PURCHASE_BATCHING: "off" }).purchaseBatching).toBe(false);
  });

  it.each<[string, Record<string, string>, RegExp]>([
    ["a PURCHASE_BATCHING other than on or off", { PURCHASE_BATCHING: "yes" }, /PURCHASE_BATCHING[\s\S]*on[\s\S]*off/],
    ["a PURCHASE_BATCH_MAX of 0", { PURCHASE_BATCH_MAX: "0" }, /PURCHASE_BATCH_MAX: must be a whole number from 1 to 1000/],
    ["a PURCHASE_BATCH_MAX over 1,000", { PURCHASE_BATCH_MAX: "1001" }, /PURCHASE_BATCH_MAX: must be a whole number from 1 to 1000/],
  ])("rejects %s", (_case, env, message) => {
    expect(() => readConfig(env)).toThrow(message);
  });

  it("turns caching off with CATALOG_MAX_AGE_SECONDS=0", () => {
    expect(readConfig({ CATALOG_MAX_AGE_SECONDS: "0" }).catalogMaxAgeSeconds).toBe(0);
  });

  it.each(["-1", "86401", "5s"])("rejects a CATALOG_MAX_AGE_SECONDS of %s", (seconds) => {
    expect(() => readConfig({ CATALOG_MAX_AGE_SECONDS: seconds })).toThrow(
      /CATALOG_MAX_AGE_SECONDS: must be a whole number from 0 to 86400/,
    );
  });

  it.each(["redis://127.0.0.1:6379", "rediss://user:secret@cache.example:6380/2"])("shares the response cache through %s", (url) => {
    expect(readConfig({ RESPONSE_CACHE_URL: url }).responseCacheUrl).toBe(url);
  });

  it.each(["localhost:6379", "http://cache:6379"])("rejects a RESPONSE_CACHE_URL of %s", (url) => {
    expect(() => readConfig({ RESPONSE_CACHE_URL: url })).toThrow(/RESPONSE_CACHE_URL: must be a redis:\/\/ or rediss:\/\/ URL/);
  });

  it.each(["0", "1001", "0.5"])("rejects a RESPONSE_CACHE_TIMEOUT_MS of %s", (milliseconds) => {
    expect(() => readConfig({ RESPONSE_CACHE_TIMEOUT_MS: milliseconds })).toThrow(
      /RESPONSE_CACHE_TIMEOUT_MS: must be a whole number from 1 to 1000/,
    );
  });

  it.each(["0", "3601"])("rejects a KEEP_ALIVE_TIMEOUT_SECONDS of %s", (seconds) => {
    expect(() => readConfig({ KEEP_ALIVE_TIMEOUT_SECONDS: seconds })).toThrow(
      /KEEP_ALIVE_TIMEOUT_SECONDS: must be a whole number from 1 to 3600/,
    );
  });

  it("turns transactions for keyed purchases off with PURCHASE_TRANSACTIONS=off", () => {
    expect(readConfig({ PURCHASE_TRANSACTIONS: "off" }).purchaseTransactions).toBe("off");
  });

  it.each(["on", "true", ""])("rejects a PURCHASE_TRANSACTIONS of %j, naming the choices", (value) => {
    expect(() => readConfig({ PURCHASE_TRANSACTIONS: value })).toThrow(/PURCHASE_TRANSACTIONS[\s\S]*auto[\s\S]*off/);
  });

  it.each<[string, Record<string, string>, string | undefined]>([
    ["127.0.0.1 while the API is open to anyone", {}, "127.0.0.1"],
    [
      "every interface once tokens guard it",
      { API_TOKENS: JSON.stringify([{ name: "a", token: "t".repeat(32), scopes: ["catalog:write"] }]) },
      undefined,
    ],
    ["the HOST given, even while open", { HOST: "0.0.0.0" }, "0.0.0.0"],
  ])("listens on %s", (_case, env, expected) => {
    expect(readConfig(env).host).toBe(expected);
  });

  it.each<[string, Record<string, string>, RegExp]>([
    ["every interface and how to stay on this machine", {}, /listening on every interface .*set HOST=127\.0\.0\.1 to keep it on this one$/],
    ["the HOST given", { HOST: "127.0.0.1" }, /; listening on 127\.0\.0\.1$/],
  ])("says at start-up, with tokens, that it listens on %s", (_case, env, expected) => {
    const config = readConfig({ ...env, API_TOKENS: JSON.stringify([{ name: "a", token: "t".repeat(32), scopes: ["catalog:write"] }]) });
    expect(accessNotice(config)).toEqual({ level: "info", message: expect.stringMatching(expected) });
  });

  it("rejects a HOST that is no address or host name", () => {
    expect(() => readConfig({ HOST: "not a host!" })).toThrow(/HOST/);
  });

  it("accepts a replica-set connection string", () => {
    expect(readConfig({ MONGODB_URI: "mongodb://a:27017,b:27017/?replicaSet=rs0" }).mongodbUri).toContain("replicaSet=rs0");
  });

  it("names every bad variable at once", () => {
    const attempt = () => readConfig({ PORT: "http", OUTLIER_THRESHOLD: "0", EXTRA_SALES_PAGE_SIZE: "1.5", MONGODB_URI: "localhost" });
    expect(attempt).toThrow(ConfigError);
    expect(attempt).toThrow(/PORT[\s\S]*MONGODB_URI[\s\S]*OUTLIER_THRESHOLD[\s\S]*EXTRA_SALES_PAGE_SIZE/);
  });

  it.each(["0", "8761", "1.5"])("rejects a PURCHASE_ID_LIFETIME_HOURS of %s", (hours) => {
    expect(() => readConfig({ PURCHASE_ID_LIFETIME_HOURS: hours })).toThrow(
      /PURCHASE_ID_LIFETIME_HOURS: must be a whole number from 1 to 8760/,
    );
  });

  it.each(["0", "120001", "ten"])("rejects a REQUEST_TIMEOUT_MS of %s", (milliseconds) => {
    expect(() => readConfig({ REQUEST_TIMEOUT_MS: milliseconds })).toThrow(/REQUEST_TIMEOUT_MS: must be a whole number from 1 to 120000/);
  });

  it("refuses production without MONGODB_URI, naming the variable and how to fix it", () => {
    const attempt = () => readConfig({ NODE_ENV: "production" });
    expect(attempt).toThrow(ConfigError);
    expect(attempt).toThrow(
      /MONGODB_URI: must be set when NODE_ENV=production.*set it to your MongoDB's connection string \(eg\. "mongodb:\/\/db1/,
    );
  });

  it("starts development and tests without MONGODB_URI, on a throwaway database", () => {
    expect(readConfig({ NODE_ENV: "development" }).mongodbUri).toBeUndefined();
    expect(readConfig({ NODE_ENV: "test" }).mongodbUri).toBeUndefined();
  });

  it("rejects an unknown NODE_ENV", () => {
    expect(() => readConfig({ NODE_ENV: "staging" })).toThrow(/NODE_ENV/);
  });
});

describe("trusted documents", () => {
  const marked = JSON.stringify([{ name: "storefront", token: "s".repeat(32), scopes: ["purchases:read"], trustedDocuments: true }]);
  const manifestAt = (content: string) => {
    const path = join(mkdtempSync(join(tmpdir(), "manifest-")), "persisted-documents.json");
    writeFileSync(path, content);
    return path;
  };
  const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

  it("refuses to start with a token marked for trusted documents and no TRUSTED_DOCUMENTS", () => {
    expect(() => readConfig({ API_TOKENS: marked })).toThrow(/TRUSTED_DOCUMENTS/);
  });

  it("reads the manifest, by hash, for the marked token", () => {
    const document = "query Shelf { books { totalCount } }";
    const config = readConfig({
      API_TOKENS: marked,
      TRUSTED_DOCUMENTS: manifestAt(JSON.stringify({ [`sha256:${sha256(document)}`]: document })),
    });
    expect([...config.trustedDocuments!]).toEqual([[sha256(document), document]]);
    expect(config.apiTokens?.[0]?.trustedDocumentsOnly).toBe(true);
  });

  it.each([
    [
      "a hash that is not its document's",
      JSON.stringify({ [`sha256:${sha256("query A { books { totalCount } }")}`]: "mutation { addBook }" }),
      /not the SHA-256 of its document/,
    ],
    ["a key that is not a SHA-256", JSON.stringify({ "sha1:abc": "query A { books { totalCount } }" }), /is not "sha256:<64 hex digits>"/],
    ["text that is not JSON", "{", /is not JSON/],
  ])("refuses a manifest with %s, saying what to do", (_problem, content, message) => {
    expect(() => readConfig({ API_TOKENS: marked, TRUSTED_DOCUMENTS: manifestAt(content) })).toThrow(message);
  });

  it("refuses a manifest it cannot read, naming the command that writes it", () => {
    expect(() => readConfig({ TRUSTED_DOCUMENTS: "/nonexistent/persisted-documents.json" })).toThrow(/ENOENT.*npm run codegen/);
  });
});
