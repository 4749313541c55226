import type { ApolloServerPlugin, GraphQLRequestListener } from "@apollo/server";
import {
  getOperationAST,
  GraphQLError,
  parse,
  specifiedRules,
  validate,
  type DocumentNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type ValidationRule,
} from "graphql";
import { LRUCache } from "lru-cache";
import type { Principal } from "../../auth/principal";
import { trustedDocumentOf, type TrustedDocuments } from "../../auth/trusted-documents";
import type { ErrorCode } from "../../error-codes";
import { afterPolling } from "../../sales/turns";
import { accessRefusal, operationScopes, type Requirement } from "./access";
import { inputProblem, operationTransportRule, type Transport } from "./input-checks";
import { createHeavyLane, LIGHT_DOCUMENTS, type LaneRelease } from "../limits/heavy-lane";
import {
  armorProtection,
  operationWeight,
  parseOptions,
  REFUSED_DOCUMENTS,
  RequestLimitError,
  weightRefusal,
  type OperationWeight,
} from "../limits/operation";
import { memoizeByOperation } from "./operation-memo";
import { coerceVariables, type CoercedVariables } from "./variables";

/*
 * The one path of an operation, whichever transport brought it (docs/design/execution.md, "The one path"):
 * the document a caller may run (trusted documents), parsing, validation, the variables coerced once, the input
 * checks, the weight, the scopes, the client's budget, then execution with the coerced values and one formatter.
 * HTTP reaches it through Apollo (its parsing and validation with these rules, then `operationPipelinePlugin`);
 * the WebSocket calls the same steps from graphql-ws's `onSubscribe` (subscriptions.ts), adding only its protocol.
 */

/**
 * The validation rules a transport adds to graphql-js's own (`specifiedRules`): graphql-armor's limits on depth,
 * aliases and directives, then the refusal of the operation types the transport does not serve. Apollo runs them
 * after `specifiedRules` for HTTP; `parsedDocuments` does the same for the WebSocket.
 */
export function validationRules(transport: Transport): ValidationRule[] {
  return [...armorProtection().validationRules, operationTransportRule(transport)];
}

/** How many distinct texts stay parsed and validated for the WebSocket (Apollo keeps HTTP's in its document store). */
const VALID_DOCUMENTS = 1_000;

/** A document parsed and validated, or the errors that refused it, each with its code. */
export type ParsedDocument = { document: DocumentNode } | { errors: GraphQLError[] };

/**
 * Parsing (within the token limit) and validation (`validationRules`) for a transport Apollo does not serve, with
 * the codes Apollo gives their errors: GRAPHQL_PARSE_FAILED, GRAPHQL_VALIDATION_FAILED, a limit's own. Thousands of
 * storefront pages send the same few texts: each is parsed and validated once, and one document is held for all.
 */
export function parsedDocuments(schema: GraphQLSchema, transport: Transport): (query: string) => ParsedDocument {
  const rules = [...specifiedRules, ...validationRules(transport)];
  const valid = new LRUCache<string, DocumentNode>({ max: VALID_DOCUMENTS });
  return (query) => {
    const known = valid.get(query);
    if (known) return { document: known };
    let document: DocumentNode;
    try {
      document = parse(query, parseOptions);
    } catch (error) {
      return { errors: [coded(error as GraphQLError, "GRAPHQL_PARSE_FAILED")] };
    }
    const invalid = validate(schema, document, rules);
    if (invalid.length > 0) return { errors: invalid.map((error) => coded(error, "GRAPHQL_VALIDATION_FAILED")) };
    valid.set(query, document);
    return { document };
  };
}

/** A request limit keeps its own code, as Apollo's formatter leaves it over HTTP; any other parse or validation error takes `code`. */
function coded(error: GraphQLError, code: ErrorCode): GraphQLError {
  if (error instanceof RequestLimitError) return error;
  return new GraphQLError(error.message, { nodes: error.nodes, source: error.source, positions: error.positions, extensions: { code } });
}

/** The operation a document's `operationName` names, or the refusal when it names none. */
export function operationOf(document: DocumentNode, operationName: string | null | undefined): OperationDefinitionNode | GraphQLError {
  return (
    getOperationAST(document, operationName) ??
    new GraphQLError("No operation to run: name one of the document's operations.", {
      extensions: { code: "OPERATION_RESOLUTION_FAILURE" satisfies ErrorCode },
    })
  );
}

/** One operation of a parsed, validated document, as a transport hands it to `OperationChecks.check`. */
export interface OperationRequest {
  schema: GraphQLSchema;
  document: DocumentNode;
  operation: OperationDefinitionNode;
  /** What tells the document's text apart from every other (Apollo's SHA-256 of it over HTTP, the text itself over the WebSocket). */
  queryKey: string;
  /** The variables as the transport's JSON carried them. */
  variables: Readonly<Record<string, unknown>> | null | undefined;
  principal: Principal;
}

/** An operation that passed every check: its variables as coerced, for execution too, and what it weighs. */
export interface Checked {
  variables: CoercedVariables;
  /** Undefined only when an argument could not be weighed, which the input checks refuse first. */
  weight: OperationWeight | undefined;
}

/**
 * The one refusal of an operation, with what was learnt before it: the coerced variables (absent when they did not
 * coerce), the weight, and whether it was refused for its weight (over the limits), which its client's budget pays for.
 */
export interface Refused {
  refusal: GraphQLError;
  variables?: CoercedVariables;
  weight?: OperationWeight | undefined;
  overLimits: boolean;
}

/** What an operation's text, operation and coerced variables need, whoever sends them: found once, kept in a memo. */
interface Analysis {
  problem: GraphQLError | undefined;
  weight: OperationWeight | undefined;
  scopes: readonly Requirement[];
}

/** The checks of an operation, in their one order, with their analyses memoized for every transport alike. */
export interface OperationChecks {
  /**
   * Coerces the variables once, then checks the input, the weight and the scopes, in that order: the coerced
   * variables and weight, or the first refusal. Synchronous: over HTTP the coerced values replace the sent ones
   * before any later plugin reads them.
   */
  check(request: OperationRequest): Checked | Refused;
}

export function createOperationChecks(): OperationChecks {
  const analyse = memoizeByOperation(({ schema, document, request }, operation): Analysis => ({
    problem: inputProblem(schema, document, operation, request.variables ?? {}),
    weight: operationWeight(schema, document, operation, request.variables ?? {}),
    scopes: operationScopes(schema, document, operation, request.variables ?? {}),
  }));
  return {
    check({ schema, document, operation, queryKey, variables: sent, principal }) {
      const coerced = coerceVariables(schema, operation, sent);
      if ("refusal" in coerced) return { refusal: coerced.refusal, overLimits: false };
      const { variables } = coerced;
      const { problem, weight, scopes } = analyse({ schema, document, queryHash: queryKey, request: { variables } }, operation);
      if (problem) return { refusal: problem, variables, weight, overLimits: false };
      const tooHeavy = weightRefusal(weight);
      if (tooHeavy) return { refusal: tooHeavy, variables, weight, overLimits: true };
      const refused = accessRefusal(principal, scopes);
      if (refused) return { refusal: refused, variables, weight, overLimits: false };
      return { variables, weight };
    },
  };
}

/** What a client's budget pays for an operation: weighed documents, and whether one of its few refusals too. */
export interface Charge {
  documents: number;
  overLimits: boolean;
}

/**
 * What the client's budget (client-budget.ts) pays for an operation checked or refused, by transport; undefined:
 * nothing. Over HTTP, every weighed operation pays its documents, one refused as over the limits REFUSED_DOCUMENTS and
 * one of its refusals, and nothing else costs a refusal: a page's mistakes (a missing token, a bad id) are not an
 * attack. Over the WebSocket every refusal costs one, whatever refused it: a socket sends messages far faster than
 * HTTP requests can be made, and 61,682 invalid documents in 10 s met no budget (issue 51).
 */
export function chargeOf(transport: Transport, outcome: Checked | Refused): Charge | undefined {
  if (!("refusal" in outcome)) return { documents: outcome.weight?.documents ?? 0, overLimits: false };
  if (transport === "websocket" || outcome.overLimits) return { documents: REFUSED_DOCUMENTS, overLimits: true };
  // Refused for its input or scopes, an HTTP operation whose variables coerced pays its documents as one let through.
  return outcome.variables && outcome.weight ? { documents: outcome.weight.documents, overLimits: false } : undefined;
}

/** Pays a charge from the client's budget; the refusal (RATE_LIMITED) when it cannot. */
export type ChargeHook<TContext> = (context: TContext, documents: number, overLimits: boolean) => Promise<RequestLimitError | undefined>;

/** What HTTP's pipeline plugin needs besides the checks. */
export interface HttpPipelineOptions<TContext> {
  /** The only operations a token marked `trustedDocumentsOnly` may run, by hash. */
  trustedDocuments: TrustedDocuments | undefined;
  /** How long a heavy request waits for the heavy lane before it is refused: a share of the request's time limit. */
  laneWaitMs: number;
  /** The client's budget; absent (executeOperation), nothing is charged. */
  charge?: ChargeHook<TContext>;
  /** The client a request is counted against, whose turns in the heavy lane go round with the others'; absent, arrival order. */
  clientOf?: (context: TContext) => string | undefined;
  /** Told the weight of an operation let through: the request's pool share bounds its connection time by it (pool-share.ts). */
  weighed?: (context: TContext, weight: OperationWeight) => void;
}

/** What a refused trusted-documents request runs instead of what it sent, so that nothing of the caller's document is even parsed. */
const NOTHING = "{ __typename }";

/** A request outside the heavy lane leaves nothing: one function for all of them, not one made per request. */
const NOT_IN_LANE: LaneRelease = () => {};

/**
 * The pipeline's steps for HTTP, as one Apollo plugin (Apollo parses and validates with `validationRules("http")`):
 * - `requestDidStart`, before Apollo parses anything: a token held to trusted documents runs the manifest's document
 *   named by hash; one that sent a document of its own, or a hash the manifest lacks, runs one that reads nothing and
 *   is refused whole with DOCUMENT_NOT_TRUSTED once its operation is resolved, the first hook whose errors Apollo
 *   answers with their own code and status.
 * - `didResolveOperation`: `OperationChecks.check`, whose coerced variables replace the sent ones before it awaits
 *   anything (Apollo calls every plugin's hook in the order of its list within one turn, so every later plugin and
 *   the executor read them); then the client's budget pays `chargeOf("http")` (RATE_LIMITED when it cannot), the
 *   first refusal is thrown, and an operation let through is `weighed` and takes its turn in the heavy lane
 *   (heavy-lane.ts), REQUEST_TIMEOUT when it cannot get in within `laneWaitMs`. A heavy operation runs on a turn of
 *   the event loop of its own, and its answer is serialized on another.
 */
export function operationPipelinePlugin<TContext extends { principal: Principal }>(
  { trustedDocuments, laneWaitMs, charge, clientOf, weighed }: HttpPipelineOptions<TContext>,
  checks: OperationChecks = createOperationChecks(),
): ApolloServerPlugin<TContext> {
  const lane = createHeavyLane(laneWaitMs);
  return {
    async requestDidStart({ contextValue, request }): Promise<GraphQLRequestListener<TContext>> {
      const trusted = trustedDocumentOf(contextValue.principal, trustedDocuments, request.query !== undefined, request.extensions);
      let untrusted: GraphQLError | undefined;
      if (trusted !== undefined) {
        // Run as a plain document: Apollo would otherwise look the hash up as an automatic persisted query.
        const { persistedQuery: _hashed, ...extensions } = request.extensions ?? {};
        request.extensions = extensions;
        if ("document" in trusted) request.query = trusted.document;
        else {
          untrusted = trusted.refusal;
          request.query = NOTHING;
          request.operationName = undefined;
        }
      }
      let leave: LaneRelease = NOT_IN_LANE;
      let heavy = false;
      return {
        async didResolveOperation({ schema, document, operation, queryHash, contextValue: context }) {
          if (untrusted) throw untrusted;
          if (!operation) return;
          const outcome = checks.check({
            schema,
            document,
            operation,
            queryKey: queryHash,
            variables: request.variables,
            principal: context.principal,
          });
          if (outcome.variables) request.variables = outcome.variables;
          const owed = chargeOf("http", outcome);
          const unpaid = owed && (await charge?.(context, owed.documents, owed.overLimits));
          if (unpaid) throw unpaid;
          if ("refusal" in outcome) throw outcome.refusal;
          const { weight } = outcome;
          if (!weight) return;
          weighed?.(context, weight);
          const release = await lane.enter(weight.documents, clientOf?.(context));
          if (release === undefined) {
            throw new RequestLimitError(
              "REQUEST_TIMEOUT",
              `The server is busy with other large queries and this one waited ${laneWaitMs} ms for its turn; try again, or ask for less.`,
            );
          }
          leave = release;
          // Its parsing, checks and weighing were one synchronous stretch, and its execution's first (resolving 1,000
          // representations) is another; other requests are read in between.
          heavy = weight.documents > LIGHT_DOCUMENTS;
          if (heavy) await afterPolling();
        },
        async willSendResponse() {
          leave();
          leave = NOT_IN_LANE;
          // A heavy answer is serialized on a turn of its own (1,000 entities: 3 to 6 ms), not in the stretch that completed its last entities.
          if (heavy) await afterPolling();
        },
      };
    },
  };
}
