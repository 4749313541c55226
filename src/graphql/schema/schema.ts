import { readFileSync } from "node:fs";
import { join } from "node:path";
import { buildSubgraphSchema } from "@apollo/subgraph";
import { parse } from "graphql";
import { fieldEstimators } from "../limits/field-costs";
import { resolvers } from "../resolvers/index";

const typeDefs = readFileSync(join(__dirname, "..", "..", "..", "schema.graphql"), "utf8");
const federationDefs = readFileSync(join(__dirname, "..", "..", "..", "federation.graphql"), "utf8");

/** The resolver map `buildSubgraphSchema` takes, which @apollo/subgraph 2.14 does not export by name. */
type SubgraphResolvers = Extract<Parameters<typeof buildSubgraphSchema>[0], { resolvers?: unknown; typeDefs: unknown }>["resolvers"];

/**
 * The API's schema as a Federation 2 subgraph: `schema.graphql` with the entity keys of
 * `federation.graphql`, and `_service` and `_entities` added, which a router uses and a client alone
 * never needs.
 */
export function buildApiSchema() {
  return buildSubgraphSchema({
    typeDefs: [parse(typeDefs), parse(federationDefs)],
    // codegen's Resolvers and the subgraph's resolver map describe one object in two vocabularies.
    resolvers: resolvers as SubgraphResolvers,
  });
}

/** Built once: a schema never changes. Apollo and the subscriptions use this one; compiled execution builds its own. */
export const schema = buildApiSchema();
// Its @cost and @listSize read now, into the map operations are weighed by: a schema without them stops the start, not a request.
fieldEstimators(schema);

/** The second build graphql-jit compiles against (see `CompiledExecutionOptions.compiledSchema`), shared by HTTP and subscriptions. */
export const compiledSchema = buildApiSchema();
