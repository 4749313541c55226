import type { TypedDocumentNode } from "@graphql-typed-document-node/core";
import type { GraphQLFormattedError } from "graphql";
import pino from "pino";
import { identifyCaller } from "../../src/auth/principal";
import type { ConfiguredToken } from "../../src/auth/tokens";
import type { OutlierSettings, PurchaseSharingSettings } from "../../src/config";
import { createServerState } from "../../src/graphql/execution/context";
import { createApolloServer } from "../../src/graphql/transport/server";
import { openTestDatabase, type TestDatabase } from "./database";
import { track } from "./in-flight";

export interface TestApi extends TestDatabase {
  /**
   * Runs one operation through the real Apollo server, with a fresh request context as HTTP requests get.
   * A document from `graphql()` (test/__generated__) types the result and variables; a plain string is
   * for operations codegen must not see, such as deliberately invalid ones.
   */
  execute<TData, TVariables extends Variables>(
    document: TypedDocumentNode<TData, TVariables>,
    variables?: TVariables,
  ): Promise<ExecutionResult<TData>>;
  execute(query: string, variables?: Variables): Promise<ExecutionResult<Record<string, unknown>>>;
  /** The same database and server as a later run would see them with other settings in its environment. */
  withSettings(settings: Partial<OutlierSettings>): TestApi;
  /** The same API as a caller sending this Authorization header sees it; undefined sends none. */
  withAuthorization(authorization: string | undefined): TestApi;
}

type Variables = Record<string, unknown>;

export interface ExecutionResult<TData> {
  data?: TData | null;
  errors?: readonly GraphQLFormattedError[];
}

export const TEST_SETTINGS: OutlierSettings = { outlierThreshold: 50, extraSalesPageSize: 1000 };

/** How a test's API is set up; every option has the default of a development server on the run's database. */
export interface TestApiOptions {
  /** The outlier settings, over TEST_SETTINGS. */
  settings?: Partial<OutlierSettings>;
  /** As with NODE_ENV=production: no introspection, internal errors without their message. */
  production?: boolean;
  /** Without them the API is open, as in development without API_TOKENS. */
  apiTokens?: readonly ConfiguredToken[];
  /** How purchases of an outlier share their writes; the server's defaults when left out. */
  batching?: PurchaseSharingSettings;
  /** On the replica set beside the run's database (see database-process.ts), where keyed purchases are transactions. */
  replicaSet?: boolean;
  /** On the server at this URI, one the test started for itself, instead. */
  uri?: string;
}

export async function openTestApi({
  settings = {},
  production = false,
  apiTokens,
  batching,
  replicaSet = false,
  uri,
}: TestApiOptions = {}): Promise<TestApi> {
  const database = await openTestDatabase({ replicaSet, ...(uri === undefined ? {} : { uri }) });
  const logger = pino({ level: "silent" });
  const apollo = createApolloServer({ logger, production });
  await apollo.start();
  // One per API, as one per HTTP server, built as startHttpServer builds it: what it learns about outliers, and its recent figures, outlive each request.
  const server = createServerState({ db: database.db, purchaseBatching: batching, logger });
  const close = async () => {
    await apollo.stop();
    await server.stop();
    await database.close();
  };
  const bind = (resolvedSettings: OutlierSettings, authorization: string | undefined): TestApi => ({
    ...database,
    async execute(query: string | TypedDocumentNode, variables?: Variables) {
      const response = await track(
        apollo.executeOperation(
          { query, variables },
          {
            contextValue: server.contextFor(resolvedSettings, identifyCaller(apiTokens, authorization)),
          },
        ),
      );
      if (response.body.kind !== "single") throw new Error("incremental delivery is not used by this API");
      return response.body.singleResult;
    },
    withSettings: (changes) => bind({ ...resolvedSettings, ...changes }, authorization),
    withAuthorization: (header) => bind(resolvedSettings, header),
    close,
  });
  return bind({ ...TEST_SETTINGS, ...settings }, undefined);
}

/**
 * The test file's API, opened before its tests and closed after them, as `useTestDatabase` gives the
 * stand-in's tests their database. Register seeding in a `beforeAll` after this call: jest runs them in order.
 */
export function useTestApi(options: TestApiOptions = {}): TestApi {
  let opened: TestApi | undefined;
  beforeAll(async () => void (opened = await openTestApi(options)));
  afterAll(() => opened?.close());
  // Every member of a TestApi is a closure over its state, so handing them out of the opened one is the same API.
  return new Proxy({} as TestApi, {
    get(_target, member) {
      if (opened === undefined) throw new Error("The test API is only there once beforeAll has run: use it inside a hook or a test.");
      return Reflect.get(opened, member);
    },
  });
}
